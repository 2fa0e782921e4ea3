"""Recovery of node allocations: resume at start, orphan takeover, stale sweep."""

import math
import time

import pytest

from common import context as berth_context
from conductor import service as conductor_service
from conductor.manager import node_allocations
from conductor.periodic import node_allocations as periodics
from objects.baremetal import allocation as node_alloc_obj
from tests import fixtures
from tests.functional import baremetal_helpers as h


def _allocating(ctx, host, n=1, rc='gold'):
    return [node_alloc_obj.create_row(ctx, {'resource_class': rc, 'conductor_affinity': host})
            for _ in range(n)]


def test_orphans_of_a_departed_host_are_taken_over(bm, berth, ctx):
    for i in range(3):
        h.make_node(bm, 'o%d' % i)
    rows = _allocating(ctx, 'gone-host', 3)
    mine = berth.conductors[0]
    own = _allocating(ctx, mine.host)[0]
    taken = periodics.take_over_orphans(ctx, mine.manager.node_allocator, mine.ring)
    assert taken == 3
    for row in rows:
        done = node_alloc_obj.get(ctx, row.uuid)
        assert (done.state, done.conductor_affinity) == ('active', mine.host)
    # never from itself: our own rows are resume's and the sweep's business
    assert node_alloc_obj.get(ctx, own.uuid).state == 'allocating'


def test_live_hosts_keep_their_rows(berth, ctx):
    mine = berth.conductors[0]
    rows = _allocating(ctx, mine.host)
    assert periodics.take_over_orphans(ctx, mine.manager.node_allocator,
                                       mine.ring) == 0
    assert node_alloc_obj.get(ctx, rows[0].uuid).conductor_affinity == mine.host


def test_stale_sweep_drives_own_rows(bm, berth, ctx):
    h.make_node(bm, 's1')
    mine = berth.conductors[0]
    row = _allocating(ctx, mine.host)[0]
    assert periodics.sweep_stale(ctx, mine.manager.node_allocator, 3600) == 0
    assert periodics.sweep_stale(ctx, mine.manager.node_allocator, 0) == 1
    assert node_alloc_obj.get(ctx, row.uuid).state == 'active'


def test_a_restarted_conductor_resumes_its_rows(bm, berth, ctx):
    h.make_node(bm, 'r1')
    row = _allocating(ctx, 'restarted-host')[0]
    service = conductor_service.ConductorService(
        berth.conf, 'restarted-host', berth.db, transport=berth.transport).start()
    try:
        done = h.wait_allocation(bm, row.uuid)
    finally:
        service.stop(grace=0)
    assert (done['state'], done['node_uuid']) == (
        'active', bm.get('/v1/nodes/r1').json()['uuid'])


def _step(ctx):
    """Let the clock move far enough for the stored times to keep their order.

    MySQL and MariaDB keep whole seconds (DATETIME has no fraction; MySQL
    rounds, MariaDB truncates): step past the next second boundary there.
    """
    now = time.time()
    time.sleep(math.ceil(now) - now + 0.05 if ctx.db.engine.dialect.name == 'mysql'
               else 0.01)


@pytest.fixture
def no_orphan_checks(conf, tmp_path_factory):
    """A berth whose conductor leaves the rows of hosts outside the ring alone."""
    conf.set_override('orphan_check_interval', 0, group='allocation')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def test_the_resume_leaves_rows_created_since_the_start_to_their_requests(
        no_orphan_checks):
    # a conductor of its own, whose rows the running one never drives
    allocator = node_allocations.NodeAllocator('resuming-host')
    ctx = berth_context.admin_context(no_orphan_checks.db)
    # no node fits: a row driven ends "error", one left alone stays "allocating"
    left = _allocating(ctx, allocator.host)[0]
    _step(ctx)
    started = periodics._now()
    _step(ctx)
    fresh = _allocating(ctx, allocator.host)[0]     # its API request is on its way
    assert periodics.resume_own(ctx, allocator, before=started) == 1
    assert node_alloc_obj.get(ctx, left.uuid).state == 'error'
    assert node_alloc_obj.get(ctx, fresh.uuid).state == 'allocating'


@pytest.fixture
def two_conductors(conf, tmp_path_factory):
    conf.set_override('embedded_conductors', 2, group='conductor')
    conf.set_override('orphan_check_interval', 1, group='allocation')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def test_periodic_takeover_with_two_conductors(two_conductors):
    """Rows of a host that is not in the ring end active, each taken by one owner."""
    stack = two_conductors
    bm = fixtures.BaremetalClient(stack.baremetal_url)
    ctx = berth_context.admin_context(stack.db)
    for i in range(4):
        h.make_node(bm, 't%d' % i)
    rows = _allocating(ctx, 'dead-host', 6)
    done = [h.wait_allocation(bm, r.uuid) for r in rows]
    assert sorted(d['state'] for d in done) == ['active'] * 4 + ['error'] * 2
    hosts = {c.host for c in stack.conductors}
    assert {node_alloc_obj.get(ctx, r.uuid).conductor_affinity for r in rows} <= hosts
    active_nodes = [d['node_uuid'] for d in done if d['state'] == 'active']
    assert len(set(active_nodes)) == 4
    bm.close()


def test_a_row_finished_while_its_cast_fails_is_201(bm, berth, monkeypatch):
    """Found by the chaos suite: the 503 "nothing stored" answer of a failed cast
    must not be given for a row the conductor's re-drive (which reads the
    database, not the broker) finished while the cast was being retried."""
    from common import exception
    h.make_node(bm, 'raced')
    admin = berth_context.admin_context(berth.db)

    def redriven_then_down(ctx, allocation_id, host, wait=0):
        owner = next(c for c in berth.conductors if c.host == host)
        owner.manager.node_allocator.allocate(admin, allocation_id)
        raise exception.ServiceUnavailable(reason='the message broker cannot be reached')
    monkeypatch.setattr(berth.conductor_api, 'create_allocation', redriven_then_down)
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'})
    assert resp.status_code == 201, resp.text
    stored = bm.get('/v1/allocations').json()['allocations']
    assert [(a['uuid'], a['state']) for a in stored] == [(resp.json()['uuid'], 'active')]


def test_broker_failure_is_503_and_stores_nothing(bm, berth, monkeypatch):
    from common import exception

    def down(*args, **kwargs):
        raise exception.ServiceUnavailable(reason='the message broker cannot be reached')
    monkeypatch.setattr(berth.conductor_api, 'create_allocation', down)
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'})
    assert resp.status_code == 503
    assert bm.get('/v1/allocations').json()['allocations'] == []
