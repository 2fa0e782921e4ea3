"""Backfill and the node writes that end an allocation run on a conductor.

With every conductor stopped they answer 503 like create and destroy, and
change nothing (DESIGN.md, routing: the API never does a conductor's write).
"""

from common import context as berth_context
from db import models
from objects.baremetal import allocation as node_alloc_obj
from tests.functional import baremetal_helpers as h


def _stop_conductors(berth):
    for conductor in berth.conductors:
        conductor.stop(grace=0)
    berth.conductor_api.ring.refresh()   # what its next poll would do


def _unavailable(resp):
    assert resp.status_code == 503, resp.text
    assert 'no conductor is alive' in h.fault(resp)


def test_backfill_is_owned_by_the_ring_owner_of_its_uuid(berth, bm):
    h.make_node(bm, 'bf-own', state='active')
    a = bm.post('/v1/allocations', json={'node': 'bf-own'}).json()
    row = node_alloc_obj.get(berth_context.admin_context(berth.db), a['uuid'])
    assert row.conductor_affinity == berth.conductor_api.allocation_owner(a['uuid'])
    assert a['state'] == 'active'


def test_backfill_without_conductors_is_503_and_stores_nothing(berth, bm):
    node = h.make_node(bm, 'bf-down', state='active')
    _stop_conductors(berth)
    _unavailable(bm.post('/v1/allocations', json={'node': 'bf-down', 'name': 'bfd'}))
    assert bm.get('/v1/allocations').json()['allocations'] == []
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()['instance_uuid'] is None


def test_deallocating_node_writes_without_conductors_are_503_and_change_nothing(
        berth, bm):
    node = h.make_node(bm, 'held')
    a = h.allocate(bm, resource_class='gold')
    assert a['state'] == 'active'
    bm.put('/v1/nodes/held/states/provision', json={'target': 'active'})
    bm.put('/v1/nodes/held/maintenance')
    _stop_conductors(berth)
    _unavailable(bm.patch('/v1/nodes/held',
                          json=[{'op': 'remove', 'path': '/instance_uuid'}]))
    _unavailable(bm.put('/v1/nodes/held/states/provision', json={'target': 'deleted'}))
    _unavailable(bm.put('/v1/nodes/held/states/provision', json={'target': 'undeploy'}))
    _unavailable(bm.delete('/v1/nodes/held'))
    after = bm.get('/v1/nodes/%s' % node['uuid']).json()
    assert (after['instance_uuid'], after['allocation_uuid'],
            after['provision_state']) == (a['uuid'], a['uuid'], 'active')
    assert bm.get('/v1/allocations/%s' % a['uuid']).json()['state'] == 'active'
    # writes that end no allocation stay in the API and still work
    assert bm.patch('/v1/nodes/held', json=[
        {'op': 'add', 'path': '/extra/k', 'value': 1}]).status_code == 200


def test_deallocation_goes_to_a_live_conductor_when_the_affinity_host_is_gone(
        berth, bm):
    h.make_node(bm, 'moved')
    a = h.allocate(bm, resource_class='gold')
    with berth.db.engine.begin() as conn:      # not a REST write: the column itself
        conn.execute(models.NodeAllocation.__table__.update().where(
            models.NodeAllocation.uuid == a['uuid']).values(conductor_affinity='gone-host'))
    resp = bm.patch('/v1/nodes/moved', json=[{'op': 'remove', 'path': '/instance_uuid'}])
    assert resp.status_code == 200, resp.text
    assert resp.json()['instance_uuid'] is None
    assert bm.get('/v1/allocations/%s' % a['uuid']).status_code == 404
