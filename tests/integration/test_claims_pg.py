"""Claims and usages on PostgreSQL: real row locks, READ COMMITTED, GROUP BY rules.

Two conductors that both think they own a tree (or claims of different
trees meeting on one provider) race for real here; the database decides.
"""

import collections
import threading
import uuid as uuidlib

import pytest
import sqlalchemy as sa

from common import context as berth_context
from common import exception
from common.claim_contract import ClaimConsumer
from conductor.manager import claims
from db import api as db_api
from objects.placement import allocation as alloc_obj
from objects.placement import inventory as inv_obj
from objects.placement import project_usage
from objects.placement import resource_provider as rp_obj
from tests import fixtures
from tests.integration import conftest

pytestmark = conftest.MARKS


@pytest.fixture
def pg_ctx(pg_synced):
    db = db_api.Database(pg_synced)
    yield lambda: berth_context.admin_context(db)
    db.dispose()


def _provider(ctx, inventories):
    uuid = str(uuidlib.uuid4())
    rp_obj.create(ctx, 'pg-' + uuid, uuid)
    inv_obj.replace_all(ctx, uuid, 0, [inv_obj.from_record(rc, rec)
                                       for rc, rec in inventories.items()], True)
    return uuid


def _consumer(allocations, consumer_type=None, project='pg-p'):
    return ClaimConsumer(str(uuidlib.uuid4()), allocations, project, 'pg-u', consumer_type,
                         check_generation=True)


def _race(new_ctx, conductors, claims_per_thread, make_claim, threads=10):
    """Claims from ``threads`` threads, thread i on conductor i % len(conductors)
    with a tree key of its own (so no in-process lock serialises them)."""
    results = collections.Counter()
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def worker(i):
        start.wait()
        for _ in range(claims_per_thread):
            try:
                conductors[i % len(conductors)].claim_resources(
                    new_ctx(), 'tree-%d' % i, [make_claim()])
                outcome = 'granted'
            except exception.BerthException as exc:
                outcome = type(exc).__name__
            with lock:
                results[outcome] += 1

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return results


def _used(ctx, rp):
    _, allocations, _ = alloc_obj.get_for_provider(ctx, rp)
    return sum(sum(a['resources'].values()) for a in allocations.values())


def test_two_conductors_claiming_the_last_units(tmp_path, pg_ctx):
    conf = fixtures.make_conf(tmp_path)
    ctx = pg_ctx()
    rp = _provider(ctx, {'VCPU': {'total': 30}})
    gen = inv_obj.provider_generation(ctx, rp)
    conductors = [claims.Claims(conf), claims.Claims(conf)]
    results = _race(pg_ctx, conductors, 6,
                    lambda: _consumer({rp: {'VCPU': 1}}))
    assert results == {'granted': 30, 'InvalidAllocation': 30}
    assert _used(ctx, rp) == 30
    assert inv_obj.provider_generation(ctx, rp) == gen + 30


def test_two_conductors_claiming_the_last_units_in_batches(tmp_path, pg_ctx):
    """Batches of new consumers (objects.placement.allocation_batch) racing for real."""
    conf = fixtures.make_conf(tmp_path)
    ctx = pg_ctx()
    rp = _provider(ctx, {'VCPU': {'total': 30}})
    gen = inv_obj.provider_generation(ctx, rp)
    conductors = [claims.Claims(conf), claims.Claims(conf)]
    results = collections.Counter()
    lock = threading.Lock()
    start = threading.Barrier(6)

    def worker(i):
        start.wait()
        for _ in range(4):
            batch = [('tree-%d' % i, [_consumer({rp: {'VCPU': 1}})]) for _ in range(3)]
            answers = conductors[i % 2].claim_many(pg_ctx(), batch)
            with lock:
                results.update('granted' if e is None else type(e).__name__
                               for e in answers)

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert results == {'granted': 30, 'InvalidAllocation': 42}
    assert _used(ctx, rp) == 30
    assert inv_obj.provider_generation(ctx, rp) == gen + 30


def test_claims_of_many_trees_meeting_on_a_shared_provider(tmp_path, pg_ctx):
    conf = fixtures.make_conf(tmp_path)
    ctx = pg_ctx()
    shared = _provider(ctx, {'DISK_GB': {'total': 25}})
    computes = [_provider(ctx, {'VCPU': {'total': 100}}) for _ in range(5)]
    picks = iter(range(10 ** 6))
    lock = threading.Lock()

    def claim():
        with lock:
            i = next(picks)
        return _consumer({computes[i % 5]: {'VCPU': 1}, shared: {'DISK_GB': 1}})

    results = _race(pg_ctx, [claims.Claims(conf)], 5, claim)
    assert results == {'granted': 25, 'InvalidAllocation': 25}
    assert _used(ctx, shared) == 25
    assert sum(_used(ctx, rp) for rp in computes) == 25


def test_usages_grouped_by_consumer_type_on_postgresql(pg_ctx):
    """Upstream Placement answers 500 here (GROUP BY); berth groups by every column."""
    ctx = pg_ctx()
    rp = _provider(ctx, {'VCPU': {'total': 100}, 'MEMORY_MB': {'total': 100000}})
    project = 'usage-' + uuidlib.uuid4().hex
    for consumer_type, resources in (('INSTANCE', {'VCPU': 2, 'MEMORY_MB': 512}),
                                     ('INSTANCE', {'VCPU': 1}),
                                     (None, {'MEMORY_MB': 128})):
        alloc_obj.replace(ctx, [_consumer({rp: resources}, consumer_type, project)])
    assert project_usage.get_by_consumer_type(ctx, project) == {
        'INSTANCE': {'consumer_count': 2, 'VCPU': 3, 'MEMORY_MB': 512},
        'unknown': {'consumer_count': 1, 'MEMORY_MB': 128}}
    assert project_usage.get_by_consumer_type(ctx, project, consumer_type='all') == {
        'all': {'consumer_count': 3, 'VCPU': 3, 'MEMORY_MB': 640}}
    assert project_usage.get_by_consumer_type(ctx, project, 'pg-u', 'unknown') == {
        'unknown': {'consumer_count': 1, 'MEMORY_MB': 128}}
    assert project_usage.get_totals(ctx, project) == {'VCPU': 3, 'MEMORY_MB': 640}
    # nothing half-written anywhere
    with ctx.db.reader(ctx):
        assert ctx.session.execute(sa.text(
            "SELECT count(*) FROM consumers c WHERE NOT EXISTS "
            "(SELECT 1 FROM allocations a WHERE a.consumer_id = c.uuid)")).scalar() == 0
