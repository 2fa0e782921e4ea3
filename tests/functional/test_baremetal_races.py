"""Races of node allocations: many requests over one pool never share a node."""

import collections
import concurrent.futures
import threading

from common import context as berth_context
from conductor.manager import node_allocations
from objects.baremetal import allocation as node_alloc_obj
from tests.functional import baremetal_helpers as h


def _check_pool(bm, nodes, allocs):
    active = [a for a in allocs if a['state'] == 'active']
    held = collections.Counter(a['node_uuid'] for a in active)
    assert all(count == 1 for count in held.values()), held
    owners = {n['uuid']: bm.get('/v1/nodes/%s' % n['uuid']).json()['instance_uuid']
              for n in nodes}
    assert {owners[a['node_uuid']] for a in active} == {a['uuid'] for a in active}
    return active


def test_concurrent_requests_over_http(bm):
    nodes = [h.make_node(bm, 'r%d' % i) for i in range(6)]
    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        allocs = list(pool.map(lambda _: h.allocate(bm, resource_class='gold'),
                               range(10)))
    assert all(a['state'] in ('active', 'error') for a in allocs)
    assert len(_check_pool(bm, nodes, allocs)) == 6


def test_conductors_racing_on_one_pool(bm, ctx):
    """Allocators of four hosts run at once on the same nodes; the DB decides."""
    nodes = [h.make_node(bm, 'q%d' % i, traits=['CUSTOM_Q']) for i in range(5)]
    hosts = ['racer-%d' % i for i in range(4)]
    rows = [node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'traits': ['CUSTOM_Q'],
                                   'conductor_affinity': hosts[i % 4]})
            for i in range(12)]
    allocators = {host: node_allocations.NodeAllocator(host, lock_attempts=5,
                                                       lock_interval=0.01)
                  for host in hosts}
    allocs = h.race_allocators(bm, ctx.db, allocators, rows)
    assert all(a['state'] in ('active', 'error') for a in allocs)
    assert len(_check_pool(bm, nodes, allocs)) == 5


def test_take_over_compare_and_swap(ctx):
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': 'dead'})
    start = threading.Barrier(8)

    def grab(i):
        start.wait()
        return node_alloc_obj.take_over(berth_context.admin_context(ctx.db), row.id,
                                   'dead', 'host-%d' % i)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(grab, range(8)))
    assert results.count(True) == 1
    assert not node_alloc_obj.take_over(ctx, row.id, 'host-x', 'host-x')


def test_allocation_not_ours_is_left_alone(bm, ctx):
    h.make_node(bm, 'mine')
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold',
                                 'conductor_affinity': 'someone-else'})
    node_allocations.NodeAllocator('me').allocate(ctx, row.id)
    assert node_alloc_obj.get_by_id(ctx, row.id).state == 'allocating'
    assert not node_alloc_obj.set_error(ctx, row.id, 'me', 'x')


def test_candidates_taken_meanwhile_lead_to_the_next_ones(bm, ctx, monkeypatch):
    """The first pass reads a few candidates at a time; when every one it read
    was taken meanwhile it reads the untried ones, and only fails when none
    is left (so 250 requests over 200 nodes still give exactly 50 errors)."""
    from objects.baremetal import reservation as node_reservation
    nodes = {h.make_node(bm, 'p%d' % i, traits=['CUSTOM_P'])['uuid'] for i in range(3)}
    h.make_node(bm, 'no-trait')
    monkeypatch.setattr(node_reservation, 'CANDIDATE_BATCH', 1)
    # as where no one statement chooses and locks (MySQL): a few at a time
    from objects.baremetal import node_choice
    monkeypatch.setattr(node_choice, 'pick_and_reserve', lambda *a: node_choice.NO_PICK)
    monkeypatch.setattr(node_choice, 'pick_and_hold', lambda *a: node_choice.NO_PICK)
    claim, seen = node_reservation._claim, []   # one node's step, in reserve's transaction

    def taken_twice(ctx, alloc, node_id, host, claimant=None):
        seen.append(node_id)
        if len(seen) <= 2:
            return node_reservation.SKIPPED   # another allocation got it first
        return claim(ctx, alloc, node_id, host, claimant)
    monkeypatch.setattr(node_reservation, '_claim', taken_twice)
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'traits': ['CUSTOM_P'],
                                 'conductor_affinity': 'w'})
    written = node_allocations.NodeAllocator('w').allocate(ctx, row.id)
    assert len(set(seen)) == len(seen) == 3
    assert written['state'] == 'active' and written['node_uuid'] in nodes
    again = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'traits': ['CUSTOM_P'],
                                   'conductor_affinity': 'w'})
    seen.clear()
    failed = node_allocations.NodeAllocator('w').allocate(ctx, again.id)
    assert failed['state'] == 'error' and len(seen) == 2   # both free ones, then none
    assert 'all nodes were filtered out during reservation' in failed['last_error']


def _hold(ctx, node_uuid, host='other-host'):
    import sqlalchemy as sa
    with ctx.db.engine.begin() as conn:
        conn.execute(sa.text('UPDATE nodes SET reservation = :h WHERE uuid = :u'),
                     {'h': host, 'u': node_uuid})


def test_the_one_statement_pick_passes_over_nodes_another_operation_holds(bm, ctx):
    held = [h.make_node(bm, 'held%d' % i, traits=['CUSTOM_H'])['uuid'] for i in range(4)]
    free = h.make_node(bm, 'free', traits=['CUSTOM_H'])['uuid']
    h.make_node(bm, 'no-trait')
    for uuid in held:
        _hold(ctx, uuid)
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'traits': ['CUSTOM_H'],
                                 'conductor_affinity': 'w'})
    written = node_allocations.NodeAllocator('w').allocate(ctx, row.id)
    assert written['state'] == 'active' and written['node_uuid'] == free
    assert {bm.get('/v1/nodes/%s' % u).json()['instance_uuid'] for u in held} == {None}


def test_when_the_pick_finds_every_fitting_node_held_it_retries_then_fails(bm, ctx):
    nodes = [h.make_node(bm, 'busy%d' % i)['uuid'] for i in range(2)]
    for uuid in nodes:
        _hold(ctx, uuid)
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': 'w'})
    written = node_allocations.NodeAllocator('w', lock_attempts=2,
                                             lock_interval=0.01).allocate(ctx, row.id)
    assert written['state'] == 'error'
    assert 'could not reserve any of 2 suitable nodes' in written['last_error']


def test_the_reservation_keeps_the_nodes_instance_info_and_sets_its_traits(ctx):
    from objects.baremetal import node as node_obj
    node = node_obj.create(ctx, {'driver': 'fake-hardware', 'name': 'info',
                                 'resource_class': 'gold', 'provision_state': 'available',
                                 'power_state': 'power off',
                                 'instance_info': {'image_source': 'img', 'traits': ['OLD']}})
    node_obj.create(ctx, {'driver': 'fake-hardware', 'name': 'bare', 'resource_class': 'iron',
                          'provision_state': 'available', 'power_state': 'power off'})
    for rc, traits in (('gold', []), ('iron', [])):
        row = node_alloc_obj.create_row(ctx, {'resource_class': rc, 'traits': traits,
                                     'conductor_affinity': 'w'})
        assert node_allocations.NodeAllocator('w').allocate(ctx, row.id)['state'] == 'active'
    assert node_obj.get(ctx, node.uuid).instance_info == {'image_source': 'img', 'traits': []}
    assert node_obj.get(ctx, 'bare').instance_info == {'traits': []}
