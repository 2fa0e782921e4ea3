"""Claims of several trees in one message (RPC 1.9): one transaction, each claim judged alone.

GroupCommitter.claim_together over the real writes, both ways a batch can
go (savepoints, split writes); the harness is test_claim_batch's.  Calls
made concurrently on one conductor merge into the next transaction.
"""

import threading

import pytest

from common import exception
from conductor.manager import claim_batch
from tests.functional import alloc_helpers as h
from tests.functional.test_claim_batch import Harness, _consumer


@pytest.fixture(params=[False, True], ids=['savepoints', 'split'])
def split(request):
    return request.param


@pytest.fixture
def rps(client, ctx):
    return [h.provider(client, ctx, {'VCPU': {'total': 10, 'max_unit': 10}})
            for _ in range(2)]


def _together(harness, ctx, requests):
    claims = [(rp, [req]) for rp, req in requests]
    return [None if e is None else type(e).__name__
            for e in harness.committer.claim_together(ctx, claims)]


def test_claims_on_two_trees_commit_in_one_transaction_each_judged_alone(
        berth, ctx, rps, client, split):
    a, b = rps
    existing = h.new_uuid()
    assert h.put(client, existing, {a: {'VCPU': 1}}).status_code == 204
    gen_a, gen_b = h.generation(client, a), h.generation(client, b)
    harness = Harness(berth.conf, queued_behind=0, split=split)
    answers = _together(harness, ctx, [
        (a, _consumer(a, 4)), (b, _consumer(b, 3)), (a, _consumer(a, 9)),
        (b, _consumer(b, 1, generation=7, check=True, uuid=existing)), (a, _consumer(a, 5))])
    # the 9 is judged against the 1 + 4 written before it in the same transaction
    assert answers == [None, None, 'InvalidAllocation', 'ConsumerGenerationConflict', None]
    assert harness.batches == [3]
    # a stale consumer generation is a lost race to the batch: judged again alone
    assert harness.alone in ([], [existing])
    assert (h.vcpu_used(ctx, a), h.vcpu_used(ctx, b)) == (10, 3)
    assert (h.generation(client, a), h.generation(client, b)) == (gen_a + 2, gen_b + 1)


def test_a_claim_that_lost_a_race_is_retried_alone_after_the_commit(berth, ctx, rps, split):
    a, b = rps
    requests = [(a, _consumer(a, 1)), (b, _consumer(b, 1)), (a, _consumer(a, 1))]
    lost = requests[1][1].uuid
    harness = Harness(berth.conf, queued_behind=0, split=split, fail={
        lost: exception.ConcurrentUpdate(what='resource provider', reason='test')})
    assert _together(harness, ctx, requests) == [None, None, None]
    assert harness.batches == [2]
    assert harness.alone == [lost]
    assert (h.vcpu_used(ctx, a), h.vcpu_used(ctx, b)) == (2, 1)


def test_a_transaction_failing_as_a_whole_is_written_claim_by_claim(berth, ctx, rps, split):
    a, b = rps
    requests = [(a, _consumer(a, 1)), (b, _consumer(b, 2)), (a, _consumer(a, 3))]
    harness = Harness(berth.conf, queued_behind=0, split=split, fail={
        requests[2][1].uuid: RuntimeError('connection lost mid-batch')})
    assert _together(harness, ctx, requests) == [None, None, None]
    assert harness.batches == []
    assert sorted(harness.alone) == sorted(r.uuid for _, r in requests)
    assert (h.vcpu_used(ctx, a), h.vcpu_used(ctx, b)) == (4, 2)


def test_a_claim_failing_alone_unexpectedly_answers_its_error(berth, ctx, rps):
    a, b = rps
    requests = [(a, _consumer(a, 1)), (b, _consumer(b, 2))]
    harness = Harness(berth.conf, queued_behind=0, split=True, fail={
        requests[0][1].uuid: RuntimeError('connection lost mid-batch')})

    def broken_alone(ctx, tree, consumers):
        raise RuntimeError('the database went away')
    harness.committer._write_alone = broken_alone
    assert _together(harness, ctx, requests) == ['RuntimeError', 'RuntimeError']
    assert (h.vcpu_used(ctx, a), h.vcpu_used(ctx, b)) == (0, 0)


def test_a_claim_without_a_tree_is_refused_alone(berth, ctx, rps, split):
    """Providers that do not exist have no tree (None): that claim alone is refused."""
    a, _ = rps
    missing = h.new_uuid()
    harness = Harness(berth.conf, queued_behind=0, split=split)
    claims = [(None, [_consumer(missing, 1)]), (a, [_consumer(a, 2)])]
    answers = harness.committer.claim_together(ctx, claims)
    assert isinstance(answers[0], exception.AllocationProviderNotFound)
    assert answers[1] is None
    assert h.vcpu_used(ctx, a) == 2


class _MergeHarness(Harness):
    """Harness whose first write waits for claims queued by other claim_together calls."""

    def _queued(self, ctx):
        return self.committer.waiting(claim_batch.TOGETHER)


def _concurrent_calls(harness, ctx, calls):
    """Each of ``calls`` (``[(tree, consumer)]``) from a thread: the first, then the rest.

    The first call's write is held until the others' claims have queued, so
    they overlap it deterministically.  Answers per call, as _together does.
    """
    answers = [None] * len(calls)

    def call(i):
        got = harness.committer.claim_together(
            ctx.__class__.from_dict(ctx.to_dict(), db=ctx.db),
            [(tree, [consumer]) for tree, consumer in calls[i]])
        answers[i] = [None if e is None else type(e).__name__ for e in got]

    threads = [threading.Thread(target=call, args=(i,), daemon=True,
                                name='claim-together-%d' % i) for i in range(len(calls))]
    threads[0].start()
    assert harness._first.wait(60), 'the first call never wrote'
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive(), '%s hung' % t.name
    return answers


def test_concurrent_calls_on_one_conductor_share_the_next_transaction(berth, ctx, rps, split):
    a, b = rps
    harness = _MergeHarness(berth.conf, queued_behind=3, split=split)
    answers = _concurrent_calls(harness, ctx, [
        [(a, _consumer(a, 1))],
        [(a, _consumer(a, 2)), (b, _consumer(b, 3))],
        [(b, _consumer(b, 4))]])
    assert answers == [[None], [None, None], [None]]
    # two transactions: the first call's, then both later calls' claims in one
    assert harness.batches == [1, 3]
    assert harness.alone == []
    assert (h.vcpu_used(ctx, a), h.vcpu_used(ctx, b)) == (3, 7)


def test_a_refused_claim_of_one_call_leaves_another_calls_claims_in_the_merged_batch(
        berth, ctx, rps, split, client):
    a, b = rps
    gen_b = h.generation(client, b)
    harness = _MergeHarness(berth.conf, queued_behind=3, split=split)
    answers = _concurrent_calls(harness, ctx, [
        [(a, _consumer(a, 1))],
        # 1 + 3 + 7 > 10: the 7 is refused, judged after the 3 of its own call
        [(a, _consumer(a, 3)), (a, _consumer(a, 7))],
        [(b, _consumer(b, 2))]])
    assert answers == [[None], [None, 'InvalidAllocation'], [None]]
    assert harness.batches == [1, 2]
    assert (h.vcpu_used(ctx, a), h.vcpu_used(ctx, b)) == (4, 2)
    assert h.generation(client, b) == gen_b + 1


def test_merged_calls_beyond_max_batch_go_in_several_transactions(berth, ctx, rps, split):
    a, b = rps
    harness = _MergeHarness(berth.conf, queued_behind=3, split=split)
    harness.committer.max_batch = 2
    answers = _concurrent_calls(harness, ctx, [
        [(a, _consumer(a, 1))],
        [(a, _consumer(a, 1)), (b, _consumer(b, 1))],
        [(b, _consumer(b, 1))]])
    assert answers == [[None], [None, None], [None]]
    assert harness.batches == [1, 2, 1]
    assert (h.vcpu_used(ctx, a), h.vcpu_used(ctx, b)) == (2, 2)
