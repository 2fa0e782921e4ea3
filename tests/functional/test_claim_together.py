"""Claims of several trees in one message (RPC 1.9): one transaction, each claim judged alone.

GroupCommitter.claim_together over the real writes, both ways a batch can
go (savepoints, split writes); the harness is test_claim_batch's.
"""

import pytest

from common import exception
from tests.functional import alloc_helpers as h
from tests.functional.test_claim_batch import Harness, _consumer, _used


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
    assert (_used(ctx, a), _used(ctx, b)) == (10, 3)
    assert (h.generation(client, a), h.generation(client, b)) == (gen_a + 2, gen_b + 1)


def test_a_claim_that_lost_a_race_is_retried_alone_after_the_commit(berth, ctx, rps, split):
    a, b = rps
    requests = [(a, _consumer(a, 1)), (b, _consumer(b, 1)), (a, _consumer(a, 1))]
    lost = requests[1][1]['uuid']
    harness = Harness(berth.conf, queued_behind=0, split=split, fail={
        lost: exception.ConcurrentUpdate(what='resource provider', reason='test')})
    assert _together(harness, ctx, requests) == [None, None, None]
    assert harness.batches == [2]
    assert harness.alone == [lost]
    assert (_used(ctx, a), _used(ctx, b)) == (2, 1)


def test_a_transaction_failing_as_a_whole_is_written_claim_by_claim(berth, ctx, rps, split):
    a, b = rps
    requests = [(a, _consumer(a, 1)), (b, _consumer(b, 2)), (a, _consumer(a, 3))]
    harness = Harness(berth.conf, queued_behind=0, split=split, fail={
        requests[2][1]['uuid']: RuntimeError('connection lost mid-batch')})
    assert _together(harness, ctx, requests) == [None, None, None]
    assert harness.batches == []
    assert sorted(harness.alone) == sorted(r['uuid'] for _, r in requests)
    assert (_used(ctx, a), _used(ctx, b)) == (4, 2)


def test_a_claim_failing_alone_unexpectedly_answers_its_error(berth, ctx, rps):
    a, b = rps
    requests = [(a, _consumer(a, 1)), (b, _consumer(b, 2))]
    harness = Harness(berth.conf, queued_behind=0, split=True, fail={
        requests[0][1]['uuid']: RuntimeError('connection lost mid-batch')})

    def broken_alone(ctx, tree, consumers):
        raise RuntimeError('the database went away')
    harness.committer._write_alone = broken_alone
    assert _together(harness, ctx, requests) == ['RuntimeError', 'RuntimeError']
    assert (_used(ctx, a), _used(ctx, b)) == (0, 0)


def test_a_claim_without_a_tree_is_refused_alone(berth, ctx, rps, split):
    """Providers that do not exist have no tree (None): that claim alone is refused."""
    a, _ = rps
    missing = h.new_uuid()
    harness = Harness(berth.conf, queued_behind=0, split=split)
    claims = [(None, [_consumer(missing, 1)]), (a, [_consumer(a, 2)])]
    answers = harness.committer.claim_together(ctx, claims)
    assert isinstance(answers[0], exception.AllocationProviderNotFound)
    assert answers[1] is None
    assert _used(ctx, a) == 2
