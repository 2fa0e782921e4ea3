"""Group commit on a conductor: claims queued together share one transaction, each judged alone.

The first claim's write is held until the others have queued behind it, so
the second transaction deterministically carries all of them.  Every test
runs both ways a batch can go: each claim in a savepoint, and (the
conductor's default without quotas) split writes, checks first, no
savepoints.
"""

import threading
import time

import pytest

from common import exception
from common.claim_contract import ClaimConsumer
from conductor.manager import claim_batch
from conductor.manager import claims as conductor_claims
from db import api as db_api
from objects.placement import allocation as alloc_obj
from tests.functional import alloc_helpers as h


def _consumer(rp, vcpu, generation=None, check=False, uuid=None):
    return ClaimConsumer(uuid or h.new_uuid(), {rp: {'VCPU': vcpu}}, 'p1', 'u1',
                         check_generation=check, generation=generation)


class _Committer(claim_batch.GroupCommitter):
    """The conductor's group commit, recording the claims each batch committed."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.batches = []

    def _committed(self, count):
        super()._committed(count)
        self.batches.append(count)


class Harness:
    """A GroupCommitter over the real writes, whose first write waits for a queue.

    ``fail`` maps a consumer uuid to the exception its write raises before
    writing anything; ``fail_after_write`` (split writes only) to one raised
    once its rows are written.  The harness is the committer's ClaimWriter;
    a claim written outside any transaction of the committer's is one run
    again alone (``alone``).
    """

    def __init__(self, conf, queued_behind, fail=None, split=False,
                 fail_after_write=None):
        claims = conductor_claims.Claims(conf)
        self.split = split
        self.alone = []
        self.fail = fail or {}
        self.fail_after_write = fail_after_write or {}
        self._first = threading.Event()
        self._queued_behind = queued_behind
        self.committer = _Committer(self, claims.locks, claims.retries)
        self.batches = self.committer.batches

    def _queued(self, ctx):
        # SQLite has one queue; the other engines queue per tree
        return self.committer.waiting(None if ctx.db.is_sqlite else 'tree')

    def _hold_first(self, ctx, consumers):
        if not self._first.is_set():
            self._first.set()
            deadline = time.monotonic() + 60     # a broken queue fails, never hangs
            while self._queued(ctx) < self._queued_behind:
                assert time.monotonic() < deadline, 'claims did not queue'
                threading.Event().wait(0.01)
        uuid = consumers[0].uuid
        if uuid in self.fail:
            raise self.fail.pop(uuid)

    def write(self, ctx, consumers):
        if not db_api.in_transaction(ctx):
            self.alone.append(consumers[0].uuid)
            alloc_obj.replace(ctx, consumers)
            return
        self._hold_first(ctx, consumers)
        alloc_obj.replace(ctx, consumers)

    def check(self, ctx, consumers):
        self._hold_first(ctx, consumers)
        return alloc_obj.check_replace(ctx, consumers)

    def apply(self, ctx, plan):
        alloc_obj.apply_replace(ctx, plan)
        uuid = plan.requests[0].uuid
        if uuid in self.fail_after_write:
            raise self.fail_after_write.pop(uuid)

    def check_many(self, ctx, claims):
        return None     # claim by claim, as the harness's tests expect

    def apply_many(self, ctx, plan):
        raise AssertionError('check_many planned nothing')

    def run(self, ctx_factory, requests):
        """Claim ``requests`` from one thread each, the first one first."""
        outcomes = [None] * len(requests)

        def claim(i):
            try:
                self.committer.claim(ctx_factory(), 'tree', [requests[i]])
                outcomes[i] = 'granted'
            except exception.BerthException as exc:
                outcomes[i] = type(exc).__name__

        threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(requests))]
        threads[0].start()
        assert self._first.wait(60)
        for t in threads[1:]:
            t.start()
        for t in threads:
            t.join(120)
        return outcomes


@pytest.fixture(params=[False, True], ids=['savepoints', 'split'])
def split(request):
    return request.param


@pytest.fixture
def rp(client, ctx):
    return h.provider(client, ctx, {'VCPU': {'total': 10, 'max_unit': 10}})


def _new_ctx(ctx):
    return lambda: ctx.__class__.from_dict(ctx.to_dict(), db=ctx.db)


def test_claims_queued_together_commit_in_one_transaction(berth, ctx, rp, split):
    harness = Harness(berth.conf, queued_behind=4, split=split)
    outcomes = harness.run(_new_ctx(ctx), [_consumer(rp, 1) for _ in range(5)])
    assert outcomes == ['granted'] * 5
    assert harness.batches == [1, 4]
    assert harness.alone == []
    assert h.vcpu_used(ctx, rp) == 5


def test_one_bad_claim_fails_alone_and_the_others_commit(berth, ctx, rp, split, client):
    gen = h.generation(client, rp)
    requests = [_consumer(rp, 2), _consumer(rp, 3), _consumer(rp, 9), _consumer(rp, 4)]
    harness = Harness(berth.conf, queued_behind=3, split=split)
    outcomes = harness.run(_new_ctx(ctx), requests)
    # 2 + 3 + 4 fit into 10; the 9 is judged against what the batch wrote before it
    assert outcomes[0] == 'granted'
    assert sorted(outcomes[1:]) == ['InvalidAllocation', 'granted', 'granted']
    assert outcomes[2] == 'InvalidAllocation'
    assert harness.batches == [1, 2]
    assert h.vcpu_used(ctx, rp) == 9
    assert h.generation(client, rp) == gen + 3


def test_stale_consumer_generation_in_a_batch_is_a_conflict_for_that_claim(
        berth, ctx, rp, client, split):
    existing = h.new_uuid()
    assert h.put(client, existing, {rp: {'VCPU': 1}}).status_code == 204
    requests = [_consumer(rp, 1), _consumer(rp, 1, generation=7, check=True,
                                            uuid=existing), _consumer(rp, 1)]
    harness = Harness(berth.conf, queued_behind=2, split=split)
    outcomes = harness.run(_new_ctx(ctx), requests)
    assert outcomes == ['granted', 'ConsumerGenerationConflict', 'granted']
    assert h.vcpu_used(ctx, rp) == 3


def test_a_claim_that_lost_a_race_in_a_batch_is_retried_alone(berth, ctx, rp, split):
    requests = [_consumer(rp, 1) for _ in range(3)]
    lost = requests[1].uuid
    harness = Harness(berth.conf, queued_behind=2, split=split, fail={
        lost: exception.ConcurrentUpdate(what='resource provider', reason='test')})
    outcomes = harness.run(_new_ctx(ctx), requests)
    assert outcomes == ['granted'] * 3
    assert harness.batches == [1, 1]
    assert harness.alone == [lost]
    assert h.vcpu_used(ctx, rp) == 3


def test_a_batch_failing_as_a_whole_is_written_claim_by_claim(berth, ctx, rp, split):
    requests = [_consumer(rp, 1) for _ in range(4)]
    harness = Harness(berth.conf, queued_behind=3, split=split, fail={
        requests[2].uuid: RuntimeError('connection lost mid-batch')})
    outcomes = harness.run(_new_ctx(ctx), requests)
    assert outcomes == ['granted'] * 4
    # the second transaction rolled back entirely, then each claim went alone
    assert harness.batches == [1]
    assert sorted(harness.alone) == sorted(r.uuid for r in requests[1:])
    assert h.vcpu_used(ctx, rp) == 4


def test_split_claim_failing_after_its_writes_fails_the_batch_and_leaves_nothing(
        berth, ctx, rp, client):
    gen = h.generation(client, rp)
    requests = [_consumer(rp, 1) for _ in range(4)]
    harness = Harness(berth.conf, queued_behind=3, split=True, fail_after_write={
        requests[2].uuid: exception.ConcurrentUpdate(what='consumer', reason='test')})
    outcomes = harness.run(_new_ctx(ctx), requests)
    assert outcomes == ['granted'] * 4
    # what the batch wrote before (and with) the failure was rolled back
    assert harness.batches == [1]
    assert sorted(harness.alone) == sorted(r.uuid for r in requests[1:])
    assert h.vcpu_used(ctx, rp) == 4
    assert h.generation(client, rp) == gen + 4
