"""``[allocation] backend = placement``: nodes mirrored as providers, allocations as claims."""

import threading
import time

import pytest

from conductor.manager import claims, node_allocations
from db import models
from objects.baremetal import allocation as node_alloc_obj
from tests.functional import baremetal_helpers as h


@pytest.fixture
def conf(conf):
    conf.set_override('backend', 'placement', group='allocation')
    conf.set_override('enforce', True, group='quota')
    return conf


def _inventory(client, node_uuid):
    resp = client.get('/resource_providers/%s/inventories' % node_uuid)
    assert resp.status_code == 200, resp.text
    return resp.json()['inventories']


def _reserved(client, node_uuid, rc='CUSTOM_GOLD'):
    return _inventory(client, node_uuid)[rc]['reserved']


def _claim(client, alloc_uuid):
    return {rp: a['resources'] for rp, a in
            client.get('/allocations/%s' % alloc_uuid).json()['allocations'].items()}


def test_a_node_is_mirrored_through_its_life(bm, client):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'm1',
                                      'resource_class': 'baremetal-gold.v2'})
    node = resp.json()
    rp = client.get('/resource_providers/%s' % node['uuid']).json()
    assert rp['name'] == node['uuid']
    inv = _inventory(client, node['uuid'])
    assert list(inv) == ['CUSTOM_BAREMETAL_GOLD_V2']
    assert inv['CUSTOM_BAREMETAL_GOLD_V2'] == {
        'total': 1, 'reserved': 1, 'min_unit': 1, 'max_unit': 1, 'step_size': 1,
        'allocation_ratio': 1.0}  # enroll, no power state: unusable
    path = '/v1/nodes/%s' % node['uuid']
    for verb, reserved in (('manage', 1), ('provide', 0)):
        bm.put(path + '/states/provision', json={'target': verb})
        assert _reserved(client, node['uuid'], 'CUSTOM_BAREMETAL_GOLD_V2') == reserved
    bm.put(path + '/maintenance', json={'reason': 'disk'})
    assert _reserved(client, node['uuid'], 'CUSTOM_BAREMETAL_GOLD_V2') == 1
    bm.delete(path + '/maintenance')
    assert _reserved(client, node['uuid'], 'CUSTOM_BAREMETAL_GOLD_V2') == 0
    bm.put(path + '/traits', json={'traits': ['CUSTOM_RAID', 'HW_CPU_X86_AVX2']})
    traits = client.get('/resource_providers/%s/traits' % node['uuid']).json()['traits']
    assert sorted(traits) == ['CUSTOM_RAID', 'HW_CPU_X86_AVX2']
    bm.delete(path + '/traits/CUSTOM_RAID')
    bm.put(path + '/traits/CUSTOM_FAST')
    traits = client.get('/resource_providers/%s/traits' % node['uuid']).json()['traits']
    assert sorted(traits) == ['CUSTOM_FAST', 'HW_CPU_X86_AVX2']
    bm.patch(path, json=[{'op': 'replace', 'path': '/resource_class', 'value': 'silver'}])
    assert list(_inventory(client, node['uuid'])) == ['CUSTOM_SILVER']
    bm.patch(path, json=[{'op': 'add', 'path': '/instance_uuid',
                          'value': '2d8a3a9c-57b3-4f27-8d43-0d9fa1e7f7c5'}])
    assert _reserved(client, node['uuid'], 'CUSTOM_SILVER') == 1  # has an instance
    # their answers are checked: one PostgreSQL run saw the unit still
    # reserved here (2026-11-28, once); a refused request then says which
    resp = bm.patch(path, json=[{'op': 'remove', 'path': '/instance_uuid'}])
    assert resp.status_code == 200, resp.text
    resp = bm.put(path + '/states/power', json={'target': 'power on'})
    assert resp.status_code == 202, resp.text
    assert _reserved(client, node['uuid'], 'CUSTOM_SILVER') == 0
    assert bm.delete(path).status_code == 204
    assert client.get('/resource_providers/%s' % node['uuid']).status_code == 404


def test_allocation_is_a_claim_and_delete_releases_it(bm, client):
    node = h.make_node(bm, 'n1', traits=['CUSTOM_RAID'])
    alloc = h.allocate(bm, resource_class='gold', traits=['CUSTOM_RAID'])
    assert alloc['state'] == 'active' and alloc['node_uuid'] == node['uuid']
    assert _claim(client, alloc['uuid']) == {node['uuid']: {'CUSTOM_GOLD': 1}}
    assert _reserved(client, node['uuid']) == 1  # in use
    usages = client.get('/resource_providers/%s/usages' % node['uuid']).json()
    assert usages['usages'] == {'CUSTOM_GOLD': 1}
    assert bm.delete('/v1/allocations/%s' % alloc['uuid']).status_code == 204
    assert _claim(client, alloc['uuid']) == {}
    assert _reserved(client, node['uuid']) == 0
    again = h.allocate(bm, resource_class='gold')
    assert again['node_uuid'] == node['uuid']
    assert _claim(client, again['uuid']) == {node['uuid']: {'CUSTOM_GOLD': 1}}


def test_undeploy_and_node_delete_release_the_claim(bm, client):
    node = h.make_node(bm, 'n1')
    path = '/v1/nodes/%s' % node['uuid']
    alloc = h.allocate(bm, resource_class='gold')
    bm.put(path + '/states/provision', json={'target': 'active'})
    assert bm.delete('/v1/allocations/%s' % alloc['uuid']).status_code == 409
    assert _claim(client, alloc['uuid']) == {node['uuid']: {'CUSTOM_GOLD': 1}}
    bm.put(path + '/states/provision', json={'target': 'deleted'})
    assert bm.get('/v1/allocations/%s' % alloc['uuid']).status_code == 404
    assert _claim(client, alloc['uuid']) == {}
    assert _reserved(client, node['uuid']) == 0
    alloc = h.allocate(bm, resource_class='gold')
    bm.put(path + '/maintenance', json={})
    assert bm.delete(path).status_code == 204  # allowed in maintenance: orphaned
    assert _claim(client, alloc['uuid']) == {}
    assert client.get('/resource_providers/%s' % node['uuid']).status_code == 404


def test_no_node_is_an_error_and_claims_nothing(bm, client):
    h.make_node(bm, 'n1', resource_class='silver')
    alloc = h.allocate(bm, resource_class='gold')
    assert alloc['state'] == 'error'
    assert 'no available nodes match the resource class gold' in alloc['last_error']
    assert _claim(client, alloc['uuid']) == {}


def test_a_node_placement_refuses_is_skipped_and_left_untouched(bm, client):
    """A unit taken directly in Placement makes the claim fail: the node stays free."""
    node = h.make_node(bm, 'n1')
    resp = client.put('/allocations/6b0d4fd9-4b1a-4a42-a8a2-0d7d6a1e3f10', json={
        'allocations': {node['uuid']: {'resources': {'CUSTOM_GOLD': 1}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'})
    assert resp.status_code == 204, resp.text
    alloc = h.allocate(bm, resource_class='gold')
    assert alloc['state'] == 'error'
    assert 'all nodes were filtered out during reservation' in alloc['last_error']
    after = bm.get('/v1/nodes/%s' % node['uuid']).json()
    assert after['instance_uuid'] is None and after['allocation_uuid'] is None
    assert _claim(client, alloc['uuid']) == {}


def test_quota_is_enforced_on_node_allocations(bm, client):
    for i in range(2):
        h.make_node(bm, 'q%d' % i, owner='p1')  # an owner only gets its own nodes
    h.make_node(bm, 'q2', owner='p2')
    assert client.put('/quotas/p1', json={'resources': {'CUSTOM_GOLD': 1}}
                      ).status_code == 200
    first = h.allocate(bm, resource_class='gold', owner='p1')
    assert first['state'] == 'active'
    second = h.allocate(bm, resource_class='gold', owner='p1')
    assert second['state'] == 'error'
    assert 'Quota exceeded for project p1: CUSTOM_GOLD limit 1' in second['last_error']
    assert second['node_uuid'] is None
    other = h.allocate(bm, resource_class='gold', owner='p2')
    assert other['state'] == 'active'
    held = [n for n in bm.get('/v1/nodes').json()['nodes']
            if n['instance_uuid'] is not None]
    assert len(held) == 2


def test_backfill_claims_the_active_node(bm, client):
    node = h.make_node(bm, 'n1', state='active')
    resp = bm.post('/v1/allocations', json={'node': node['uuid']})
    assert resp.status_code == 201, resp.text
    alloc = resp.json()
    assert alloc['state'] == 'active'
    assert _claim(client, alloc['uuid']) == {node['uuid']: {'CUSTOM_GOLD': 1}}
    assert _reserved(client, node['uuid']) == 1


def test_resource_class_of_a_held_node_cannot_change(bm, client):
    node = h.make_node(bm, 'n1')
    h.allocate(bm, resource_class='gold')
    resp = bm.patch('/v1/nodes/%s' % node['uuid'], json=[
        {'op': 'replace', 'path': '/resource_class', 'value': 'silver'}])
    assert resp.status_code == 409
    assert 'CUSTOM_GOLD' in h.fault(resp)
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()['resource_class'] == 'gold'
    assert list(_inventory(client, node['uuid'])) == ['CUSTOM_GOLD']


def test_conductors_racing_for_the_last_nodes(bm, client, ctx, conf):
    """Allocators of four hosts claim at once; each node has one allocation and one claim."""
    nodes = [h.make_node(bm, 'r%d' % i) for i in range(4)]
    hosts = ['racer-%d' % i for i in range(4)]
    rows = [node_alloc_obj.create_row(ctx, {'resource_class': 'gold',
                                   'conductor_affinity': hosts[i % 4]})
            for i in range(10)]
    allocators = {}
    for host in hosts:
        allocators[host] = node_allocations.NodeAllocator.from_conf(
            conf, host, claims.Claims(conf))
        allocators[host].lock_interval = 0.01
    allocs = h.race_allocators(bm, ctx.db, allocators, rows)
    assert all(a['state'] in ('active', 'error') for a in allocs)
    active = [a for a in allocs if a['state'] == 'active']
    assert sorted(a['node_uuid'] for a in active) == sorted(n['uuid'] for n in nodes)
    for a in allocs:
        want = {a['node_uuid']: {'CUSTOM_GOLD': 1}} if a['state'] == 'active' else {}
        assert _claim(client, a['uuid']) == want
    for n in nodes:
        usages = client.get('/resource_providers/%s/usages' % n['uuid']).json()
        assert usages['usages'] == {'CUSTOM_GOLD': 1}


def _new_ctx(ctx):
    return ctx.__class__.from_dict(ctx.to_dict(), db=ctx.db)


def test_a_node_claim_waits_for_its_tree_lock_outside_any_transaction(bm, ctx, conf):
    """The tree lock is taken before the reservation's transaction, as claims take it.

    While a claim of the node's tree holds the lock, the allocator waits for
    it holding nothing in the database: a writer of the node's row is not
    blocked (taken inside, the two would wait for each other).
    """
    node = h.make_node(bm, 'tl')
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': 'tl'})
    conductor_claims = claims.Claims(conf)
    allocator = node_allocations.NodeAllocator.from_conf(conf, 'tl', conductor_claims)
    results, written = [], threading.Event()
    nodes = models.Node.__table__

    def touch_node():
        other = _new_ctx(ctx)
        with other.db.writer(other):
            other.session.execute(nodes.update().where(nodes.c.uuid == node['uuid'])
                                  .values(extra={'touched': True}))
        written.set()

    with conductor_claims.locks.hold(node['uuid']):
        driver = threading.Thread(target=lambda: results.append(
            allocator.allocate(_new_ctx(ctx), row.id)))
        driver.start()
        deadline = time.monotonic() + 60
        while conductor_claims.locks._locks[node['uuid']][1] < 2:   # it waits for us
            assert time.monotonic() < deadline and driver.is_alive()
            time.sleep(0.01)
        writer = threading.Thread(target=touch_node)
        writer.start()
        assert written.wait(30), 'the allocator holds a transaction while it waits'
    driver.join(60)
    writer.join(60)
    assert results[0]['state'] == 'active' and results[0]['node_uuid'] == node['uuid']


def test_conductor_start_mirrors_existing_nodes(bm, client, ctx):
    from conductor.periodic import node_allocations as periodic
    from objects.baremetal import node as node_obj
    node = node_obj.create(ctx, {'driver': 'fake-hardware', 'resource_class': 'gold',
                                 'provision_state': 'available',
                                 'power_state': 'power off'})
    assert client.get('/resource_providers/%s' % node.uuid).status_code == 404
    assert periodic.mirror_nodes(ctx) == 1
    assert _reserved(client, node.uuid) == 0


def test_a_start_mirror_racing_a_node_write_mirrors_the_written_node(bm, client, ctx,
                                                                       monkeypatch):
    """The conductor's start-up mirror (mirror_nodes) never writes back a node's old state.

    It reads the node, then the provider's generation for its compare-and-swap.
    A node written in between (here: its instance removed, which frees the
    unit) bumped that generation already, so an unlocked read would swap in
    the unit reserved as the old node had it.  On PostgreSQL this was seen once
    as test_a_node_is_mirrored_through_its_life's unit still reserved: the
    conductor's first mirror runs 0.5 s after it starts, in the middle of it.
    """
    from objects.baremetal import mirror as mirror_mod
    from objects.baremetal import node as node_obj
    node = h.make_node(bm, 'mr')
    path = '/v1/nodes/%s' % node['uuid']
    bm.patch(path, json=[{'op': 'add', 'path': '/instance_uuid',
                          'value': '6c2b7a0e-2f5d-4a8e-9b1c-3d4e5f607182'}])
    assert _reserved(client, node['uuid']) == 1
    real_provider, started = mirror_mod._provider, []

    def write_between(c, n):
        if not started:     # the mirror's own read; the writer's sync passes through
            started.append(threading.Thread(target=lambda: node_obj.update(
                _new_ctx(ctx), node['uuid'], {'instance_uuid': None}, mirror=True)))
            started[0].start()
            started[0].join(1)   # it commits now unless the mirror holds the node
        return real_provider(c, n)

    monkeypatch.setattr(mirror_mod, '_provider', write_between)
    node_obj.mirror(_new_ctx(ctx), node_obj.get(ctx, node['uuid']).id)
    started[0].join(60)
    assert not started[0].is_alive()
    assert bm.get(path).json()['instance_uuid'] is None
    assert _reserved(client, node['uuid']) == 0


def test_a_child_node_is_mirrored_reserved(bm, client):
    """A child node (API 1.83) is never allocated, so its unit stays reserved."""
    h.make_node(bm, 'parent')
    child = h.make_node(bm, 'child')
    assert _reserved(client, child['uuid']) == 0
    resp = bm.patch('/v1/nodes/child', json=[
        {'op': 'add', 'path': '/parent_node', 'value': 'parent'}])
    assert resp.status_code == 200, resp.text
    assert _reserved(client, child['uuid']) == 1
    bm.patch('/v1/nodes/child', json=[{'op': 'remove', 'path': '/parent_node'}])
    assert _reserved(client, child['uuid']) == 0
