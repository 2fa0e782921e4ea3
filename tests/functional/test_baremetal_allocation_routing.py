"""Which conductor a new node allocation goes to: ``[conductor] allocation_routing``.

``process`` (the default): every allocation one API process creates goes to
one conductor, the ring owner of that process, so concurrent creates share
one queue and their waiting calls coalesce into few ``create_allocations``
calls however many conductors there are.  ``allocation``: the ring owner of
each allocation's uuid.  Either way the chosen conductor is the row's
``conductor_affinity``, and a delete goes to that conductor while it lives.
"""

import concurrent.futures
import threading

import pytest

from common import context as berth_context
from objects.baremetal import allocation as node_alloc_obj
from tests import fixtures
from tests.functional import baremetal_helpers as h
from tests.functional import metrics_helpers as mh

CREATES = 12
CONDUCTORS = 3


@pytest.fixture
def trio(conf, tmp_path_factory):
    """A berth with three embedded conductors; the routing set by the test first."""
    conf.set_override('embedded_conductors', CONDUCTORS, group='conductor')
    stacks = []

    def start(routing):
        conf.set_override('allocation_routing', routing, group='conductor')
        fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
        stacks.append(fixtures.start_embedded(conf))
        return stacks[-1]
    yield start
    for stack in stacks:
        stack.stop()


def _post_together(url, count):
    """``count`` waiting POST /v1/allocations sent at once; their answers' JSON."""
    barrier = threading.Barrier(count)

    def post(_):
        client = fixtures.BaremetalClient(url, version='latest')
        barrier.wait(60)
        resp = client.post('/v1/allocations', json={'resource_class': 'gold'},
                           headers={'Berth-Allocation-Wait': '20'})
        assert resp.status_code == 201, resp.text
        return resp.json()
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        return list(pool.map(post, range(count)))


def _creates(text):
    return sum(mh.value(text, 'berth_rpc_duration_seconds_count', method=m)
               for m in ('create_allocation', 'create_allocations'))


def test_process_routing_sends_every_create_of_a_process_to_one_conductor_in_batches(
        trio):
    stack = trio('process')
    assert stack.conf.conductor.allocation_routing == 'process'   # the default
    bm = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
    placement = fixtures.PlacementClient(stack.placement_url, version='latest')
    for i in range(CREATES):
        h.make_node(bm, 'r%d' % i)
    before = mh.scrape(placement)
    answers = _post_together(stack.baremetal_url, CREATES)
    calls = _creates(mh.scrape(placement)) - _creates(before)
    ctx = berth_context.admin_context(stack.db)
    rows = [node_alloc_obj.get(ctx, a['uuid']) for a in answers]
    owner = stack.conductor_api.allocation_owner('any')
    assert owner in {c.host for c in stack.conductors}
    assert {r.conductor_affinity for r in rows} == {owner}
    assert [r.state for r in rows] == ['active'] * CREATES
    assert len({r.node_id for r in rows}) == CREATES
    # one queue per process: the waiting creates shared calls
    assert 1 <= calls < CREATES, calls


def test_allocation_routing_gives_each_row_the_ring_owner_of_its_uuid(trio):
    stack = trio('allocation')
    bm = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
    for i in range(CREATES):
        h.make_node(bm, 'u%d' % i)
    answers = _post_together(stack.baremetal_url, CREATES)
    ctx = berth_context.admin_context(stack.db)
    ring = stack.conductor_api.ring
    rows = [node_alloc_obj.get(ctx, a['uuid']) for a in answers]
    assert [r.conductor_affinity for r in rows] == [ring.owner(r.uuid) for r in rows]
    assert len({r.conductor_affinity for r in rows}) > 1    # spread: 3**-11 to fail
    assert [r.state for r in rows] == ['active'] * CREATES


def test_an_allocation_held_away_from_its_uuid_s_owner_deletes_and_frees_its_node(trio):
    """Process routing: the holder is not the ring owner of the uuid; the
    delete (to the holder, conductor.rpcapi.routing.holder_host) frees the node."""
    stack = trio('process')
    bm = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
    ring = stack.conductor_api.ring
    owner = stack.conductor_api.allocation_owner('any')
    h.make_node(bm, 'd0')
    for _ in range(40):
        a = h.allocate(bm, resource_class='gold')
        assert a['state'] == 'active', a
        if ring.owner(a['uuid']) != owner:
            break
        assert bm.delete('/v1/allocations/%s' % a['uuid']).status_code == 204
    assert ring.owner(a['uuid']) != owner
    ctx = berth_context.admin_context(stack.db)
    assert node_alloc_obj.get(ctx, a['uuid']).conductor_affinity == owner
    resp = bm.delete('/v1/allocations/%s' % a['uuid'])
    assert resp.status_code == 204, resp.text
    assert bm.get('/v1/allocations/%s' % a['uuid']).status_code == 404
    node = bm.get('/v1/nodes/%s' % a['node_uuid']).json()
    assert (node['instance_uuid'], node['allocation_uuid']) == (None, None)
