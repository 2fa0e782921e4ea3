"""Node allocations of one batch reserved together on PostgreSQL (objects/baremetal/node_batch.py).

A conductor's ``create_allocations`` batch runs its first passes in one
transaction (reservation.reserve_many); allocations of one shape share one
statement that locks as many free nodes as there are allocations.  These
tests check what that must keep: distinct nodes, the extras of a batch
larger than the free nodes failing with the reason one alone gets, mixed
shapes each on a node that fits it, and two conductors picking at once
never holding one node twice (SKIP LOCKED: the database decides).  Runs on
the session's migrated PostgreSQL (tests/integration/conftest.py); every
test uses resource classes of its own.
"""

import threading
import uuid

import pytest
import sqlalchemy as sa

from common import context as berth_context
from common import exception
from conductor.manager import node_allocations
from db import api as db_api
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import node as node_obj
from objects.baremetal import node_batch, reservation
from tests.integration.conftest import MARKS

pytestmark = MARKS


@pytest.fixture
def db(pg_synced):
    db = db_api.Database(pg_synced)
    yield db
    db.dispose()


@pytest.fixture
def ctx(db):
    return berth_context.admin_context(db)


def _rc():
    return 'batch-%s' % uuid.uuid4().hex[:8]


def _nodes(ctx, rc, count, traits=(), prefix=None):
    nodes = []
    for i in range(count):
        values = {'driver': 'fake-hardware', 'resource_class': rc,
                  'provision_state': node_obj.AVAILABLE, 'power_state': node_obj.POWER_OFF}
        if prefix:
            values['name'] = '%s-%d' % (prefix, i)
        node = node_obj.create(ctx, values)
        if traits:
            node_obj.set_traits(ctx, node.uuid, list(traits))
        nodes.append(node)
    return nodes


def _allocs(ctx, rc, count, host, **values):
    return [node_alloc_obj.create_row(ctx, dict(values, resource_class=rc, conductor_affinity=host))
            for _ in range(count)]


@pytest.fixture
def batch_statements(db):
    """The batch picks each test runs (SQL text of node_batch's statement)."""
    seen = []

    def count(conn, cursor, statement, *args):
        if 'WITH ORDINALITY' in statement:
            seen.append(statement)
    engine = db.engine
    sa.event.listen(engine, 'before_cursor_execute', count)
    yield seen
    sa.event.remove(engine, 'before_cursor_execute', count)


def _held(ctx, rc):
    """{node id: allocation id} of the nodes of ``rc`` that hold an allocation."""
    return {n.id: n.allocation_id for n in node_obj.list_nodes(ctx)
            if n.resource_class == rc and n.allocation_id is not None}


def _check_reserved(ctx, alloc_ids):
    """Every allocation active on a node that holds it, and nothing locked."""
    nodes = {n.id: n for n in node_obj.list_nodes(ctx)}
    for alloc_id in alloc_ids:
        alloc = node_alloc_obj.get_by_id(ctx, alloc_id)
        assert alloc.state == node_alloc_obj.ACTIVE, alloc
        node = nodes[alloc.node_id]
        assert (node.allocation_id, node.instance_uuid) == (alloc.id, alloc.uuid)
        assert node.instance_info['traits'] == list(alloc.traits)
        assert node.reservation is None


def test_a_batch_of_one_shape_gets_distinct_nodes_in_one_statement(ctx, batch_statements):
    rc = _rc()
    _nodes(ctx, rc, 8, traits=['CUSTOM_GOLD', 'CUSTOM_FAST'])
    allocs = _allocs(ctx, rc, 6, 'c0', traits=['CUSTOM_GOLD'])
    results = reservation.reserve_many(ctx, [a.id for a in allocs], 'c0')
    assert [r.outcome for r in results] == [reservation.RESERVED] * 6
    assert len({r.alloc.node_id for r in results}) == 6
    # one batch statement reserved all six (a random start may need a second)
    assert 1 <= len(batch_statements) <= 2
    _check_reserved(ctx, [a.id for a in allocs])
    assert sorted(_held(ctx, rc).values()) == sorted(a.id for a in allocs)


def test_more_allocations_than_free_nodes_fail_only_the_extras(ctx, batch_statements):
    rc = _rc()
    _nodes(ctx, rc, 3)
    allocs = _allocs(ctx, rc, 5, 'c0')
    results = node_allocations.NodeAllocator('c0').allocate_many(ctx, [a.id for a in allocs])
    states = [r['state'] for r in results]
    assert sorted(states) == ['active'] * 3 + ['error'] * 2
    assert batch_statements     # the shared pick ran
    active = [a.id for a, s in zip(allocs, states) if s == 'active']
    _check_reserved(ctx, active)
    for alloc, result in zip(allocs, results):
        if result['state'] != 'error':
            continue
        stored = node_alloc_obj.get_by_id(ctx, alloc.id)
        # the reason one allocation alone gets when no node is free
        expected = exception.AllocationFailed(
            uuid=alloc.uuid, error='no available nodes match the resource class %s' % rc
        ).message
        assert stored.state == node_alloc_obj.ERROR and stored.node_id is None
        assert stored.last_error == result['last_error'] == expected


def test_mixed_shapes_in_one_batch_each_get_a_node_that_fits(ctx, batch_statements):
    """Named first (its namesake), then shapes with a candidate list, then the rest."""
    plain, gold = _rc(), _rc()
    p = _nodes(ctx, plain, 5, prefix=plain)
    gold_nodes = _nodes(ctx, gold, 3, traits=['CUSTOM_GOLD'])
    _nodes(ctx, gold, 3)        # gold without the trait: never for a trait request
    rows = (_allocs(ctx, plain, 2, 'c0')
            + _allocs(ctx, gold, 3, 'c0', traits=['CUSTOM_GOLD'])
            + _allocs(ctx, plain, 2, 'c0', candidate_nodes=[p[2].uuid, p[3].uuid])
            + _allocs(ctx, plain, 1, 'c0', name=p[4].name))
    results = node_allocations.NodeAllocator('c0').allocate_many(ctx, [a.id for a in rows])
    assert [r['state'] for r in results] == ['active'] * 8
    assert len(batch_statements) >= 3       # the three shapes of two, each batched
    _check_reserved(ctx, [a.id for a in rows])
    stored = [node_alloc_obj.get_by_id(ctx, a.id) for a in rows]
    assert len({s.node_id for s in stored}) == 8
    assert {s.node_id for s in stored[2:5]} == {n.id for n in gold_nodes}
    assert {s.node_id for s in stored[5:7]} == {p[2].id, p[3].id}   # their candidates
    assert stored[7].node_id == p[4].id                             # its namesake
    assert {s.node_id for s in stored[:2]} == {p[0].id, p[1].id}


def test_a_peer_batch_passes_over_the_nodes_another_conductor_is_reserving(
        db, ctx, monkeypatch):
    """Conductor c1's batch holds its nodes' row locks (transaction open) while
    c2's batch picks: c2 gets the other nodes, and sees c1's as locked."""
    rc = _rc()
    _nodes(ctx, rc, 6)
    first = _allocs(ctx, rc, 4, 'c1')
    second = _allocs(ctx, rc, 4, 'c2')
    picking, release = threading.Event(), threading.Event()
    original = node_batch.pick_and_reserve_many

    def paused(ctx, allocs, host, now):
        rows = original(ctx, allocs, host, now)
        if host == 'c1':        # c1's writes are done; its transaction stays open
            picking.set()
            assert release.wait(60)
        return rows
    monkeypatch.setattr(node_batch, 'pick_and_reserve_many', paused)
    results = {}

    def run():
        results['c1'] = reservation.reserve_many(
            berth_context.admin_context(db), [a.id for a in first], 'c1')
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        assert picking.wait(60)
        peer = reservation.reserve_many(ctx, [a.id for a in second], 'c2')
    finally:
        release.set()
        thread.join(60)
    assert not thread.is_alive()
    assert [r.outcome for r in results['c1']] == [reservation.RESERVED] * 4
    mine = {r.alloc.node_id for r in results['c1']}
    got = [r for r in peer if r.outcome == reservation.RESERVED]
    assert len(got) == 2 and not mine & {r.alloc.node_id for r in got}
    # the other two found only c1's locked nodes: worth another try, nothing reserved
    for r in peer:
        if r.outcome != reservation.RESERVED:
            assert r.outcome is None and {n.id for n in r.locked} <= mine
    held = _held(ctx, rc)
    assert len(held) == 6 and len(set(held.values())) == 6
    _check_reserved(ctx, [a.id for a in first] + [r.alloc.id for r in got])


def test_two_conductors_racing_never_hold_one_node_twice(db, pg_synced):
    rc = _rc()
    ctx = berth_context.admin_context(db)
    _nodes(ctx, rc, 10)
    hosts = {'r1': _allocs(ctx, rc, 7, 'r1'), 'r2': _allocs(ctx, rc, 7, 'r2')}
    start = threading.Barrier(2)
    results = {}
    dbs = {host: db_api.Database(pg_synced) for host in hosts}

    def run(host):
        start.wait(60)
        allocator = node_allocations.NodeAllocator(host, lock_interval=0.05)
        results[host] = allocator.allocate_many(berth_context.admin_context(dbs[host]),
                                                [a.id for a in hosts[host]])
    threads = [threading.Thread(target=run, args=(h,), daemon=True) for h in hosts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for d in dbs.values():
        d.dispose()
    assert not any(t.is_alive() for t in threads)
    outcomes = [r['state'] for host in hosts for r in results[host]]
    assert sorted(outcomes) == ['active'] * 10 + ['error'] * 4
    active = [a.id for host in hosts for a, r in zip(hosts[host], results[host])
              if r['state'] == 'active']
    _check_reserved(ctx, active)
    held = _held(ctx, rc)
    assert len(held) == 10 and sorted(held.values()) == sorted(active)
