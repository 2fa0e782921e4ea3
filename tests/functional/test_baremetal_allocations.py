"""/v1/allocations: validation, state machine, candidate choice, backfill, PATCH, delete."""

import pytest

from tests.functional import baremetal_helpers as h


def test_create_returns_allocating_then_active(bm):
    node = h.make_node(bm, 'n1', traits=['CUSTOM_GPU'])
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold',
                                            'traits': ['CUSTOM_GPU']})
    assert resp.status_code == 201
    body = resp.json()
    assert resp.headers['location'].endswith('/v1/allocations/%s' % body['uuid'])
    assert body['state'] in ('allocating', 'active')
    assert body['extra'] == {} and body['candidate_nodes'] == []
    assert 'node' not in body and 'id' not in body and 'conductor_affinity' not in body
    done = h.wait_allocation(bm, body['uuid'])
    assert done['state'] == 'active' and done['node_uuid'] == node['uuid']
    node = bm.get('/v1/nodes/n1').json()
    assert node['instance_uuid'] == body['uuid'] == node['allocation_uuid']
    assert node['instance_info']['traits'] == ['CUSTOM_GPU']
    assert node['provision_state'] == 'available'
    assert bm.get('/v1/nodes/n1/allocation').json()['uuid'] == body['uuid']


def test_no_match_is_error_with_ironic_messages(bm):
    a = h.allocate(bm, resource_class='gold')
    assert a['state'] == 'error' and a['node_uuid'] is None
    assert a['last_error'] == ('Failed to process allocation %s: no available nodes '
                               'match the resource class gold.' % a['uuid'])
    h.make_node(bm, 'x1')
    b = h.allocate(bm, resource_class='gold', traits=['CUSTOM_MISSING'])
    assert 'no suitable nodes have the requested traits CUSTOM_MISSING' in b['last_error']
    other = h.make_node(bm, 'x2', resource_class='silver')
    c = h.allocate(bm, resource_class='gold', candidate_nodes=[other['uuid']])
    assert ('none of the requested nodes are available and match the resource '
            'class gold') in c['last_error']


def test_unusable_nodes_are_never_chosen(bm):
    h.make_node(bm, 'maint')
    bm.put('/v1/nodes/maint/maintenance')
    h.make_node(bm, 'managed', state='manageable')
    h.make_node(bm, 'busy', state='active')
    # available with an unknown power state (resource_class needs 1.21: set after)
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware'}, version='1.10')
    assert resp.json()['power_state'] is None
    assert bm.patch('/v1/nodes/%s' % resp.json()['uuid'], json=[
        {'op': 'add', 'path': '/resource_class', 'value': 'gold'}]).status_code == 200
    assert h.allocate(bm, resource_class='gold')['state'] == 'error'


def test_candidates_by_name_keep_order_and_name_match_first(bm):
    n1 = h.make_node(bm, 'c1')
    n2 = h.make_node(bm, 'c2')
    h.make_node(bm, 'c3')
    a = h.allocate(bm, resource_class='gold', candidate_nodes=['c2', n1['uuid']])
    assert a['candidate_nodes'] == [n2['uuid'], n1['uuid']]
    assert a['node_uuid'] in (n1['uuid'], n2['uuid'])
    b = h.allocate(bm, resource_class='gold', name='c3')
    assert b['node_uuid'] == bm.get('/v1/nodes/c3').json()['uuid']


@pytest.mark.parametrize('body,version', [
    ({}, None),
    ({'resource_class': 'x' * 81}, None),
    ({'resource_class': 'g', 'node_uuid': '0b0b7c0e-2f43-4a43-9f0d-1f6f0b1d9c11'}, None),
    ({'resource_class': 'g', 'traits': ['FOO_BAR']}, None),
    ({'resource_class': 'g', 'traits': ['']}, None),
    ({'resource_class': 'g', 'name': 'aa:bb_cc'}, None),
    ({'resource_class': 'g', 'name': '5a4e3f5c-7a3b-4b8e-8a38-3f1a8e2d4c22'}, None),
    ({'resource_class': 'g', 'uuid': 'nope'}, None),
    ({'resource_class': 'g', 'candidate_nodes': ['no such node']}, None),
    ({'resource_class': 'g', 'candidate_nodes': ['missing']}, None),
    ({'resource_class': 'g', 'candidate_nodes': ['9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e33']}, None),
    ({'resource_class': 'g', 'extra': 'x'}, None),
    ({'node': 'missing'}, None),
    ({'resource_class': 'g', 'node': 'whatever'}, '1.57'),
])
def test_create_invalid_is_400_and_stores_nothing(bm, body, version):
    resp = bm.post('/v1/allocations', json=body, version=version)
    assert resp.status_code == 400, resp.text
    assert h.fault(resp)
    assert bm.get('/v1/allocations').json()['allocations'] == []


def test_owner_needs_1_60(bm):
    resp = bm.post('/v1/allocations', json={'resource_class': 'g', 'owner': 'p'},
                   version='1.59')
    assert resp.status_code == 406
    assert bm.get('/v1/allocations?owner=p', version='1.59').status_code == 406
    # Ironic's _check_allowed_allocation_fields: a 406, not an unknown field
    assert bm.get('/v1/allocations?fields=owner', version='1.59').status_code == 406
    h.make_node(bm, 'o1', owner='p')
    h.make_node(bm, 'o2', owner='q')
    a = h.allocate(bm, resource_class='gold', owner='p')
    assert a['owner'] == 'p' and a['node_uuid'] == bm.get('/v1/nodes/o1').json()['uuid']
    assert 'owner' not in bm.get('/v1/allocations/%s' % a['uuid'], version='1.59').json()
    assert len(bm.get('/v1/allocations?owner=p').json()['allocations']) == 1


def test_duplicates_are_409(bm):
    a = bm.post('/v1/allocations', json={'resource_class': 'g', 'name': 'same'}).json()
    assert bm.post('/v1/allocations', json={'resource_class': 'g',
                                            'name': 'same'}).status_code == 409
    assert bm.post('/v1/allocations', json={'resource_class': 'g',
                                            'uuid': a['uuid']}).status_code == 409


def test_version_gates(bm):
    assert bm.get('/v1/allocations', version='1.51').status_code == 404
    assert bm.get('/v1/allocations/bad:name', version='1.51').status_code == 404
    assert bm.post('/v1/allocations', json={'resource_class': 'g'},
                   version='1.51').status_code == 405
    assert bm.delete('/v1/allocations/x', version='1.51').status_code == 405
    assert bm.patch('/v1/allocations/x', json=[], version='1.56').status_code == 405
    h.make_node(bm, 'g1')
    assert bm.get('/v1/nodes/g1/allocation', version='1.51').status_code == 404
    assert bm.post('/v1/nodes/g1/allocation', json={}).status_code == 405
    assert bm.get('/v1/nodes/g1/allocation/x').status_code == 405
    assert bm.get('/v1/nodes/g1/allocation').status_code == 404
    assert bm.delete('/v1/nodes/g1/allocation').status_code == 404


def test_the_allocation_of_an_unknown_node_is_ironics_400(bm):
    # tempest's TestNodeAllocationMicroversions.test_show_allocation_by_node:
    # GET reads the node as a filter (400, the 404's text); DELETE stays 404
    for ident in ('nosuch', '6c0a7d8e-0000-4000-8000-000000000000'):
        resp = bm.get('/v1/nodes/%s/allocation' % ident, version='1.52')
        assert resp.status_code == 400, resp.text
        assert h.fault(resp) == 'Node %s could not be found.' % ident
        assert bm.delete('/v1/nodes/%s/allocation' % ident).status_code == 404


def test_list_filters_fields_pagination(bm):
    n = h.make_node(bm, 'l1')
    a = h.allocate(bm, resource_class='gold', name='first')
    b = h.allocate(bm, resource_class='silver', name='second')
    assert (a['state'], b['state']) == ('active', 'error')

    def names(query):
        resp = bm.get('/v1/allocations' + query)
        assert resp.status_code == 200, resp.text
        return [x['name'] for x in resp.json()['allocations']]
    assert names('') == ['first', 'second']
    assert names('?state=error') == ['second']
    assert names('?resource_class=gold') == ['first']
    assert names('?node=l1') == ['first'] == names('?node=%s' % n['uuid'])
    assert names('?sort_key=name&sort_dir=desc') == ['second', 'first']
    page = bm.get('/v1/allocations?limit=1').json()
    assert names('?limit=1') == ['first'] and 'marker=%s' % a['uuid'] in page['next']
    assert names('?limit=1&marker=%s' % a['uuid']) == ['second']
    one = bm.get('/v1/allocations?fields=name,state').json()['allocations'][0]
    assert set(one) == {'uuid', 'name', 'state', 'links'}
    for bad in ('?node=missing', '?limit=0', '?limit=x', '?sort_dir=sideways',
                '?sort_key=extra', '?sort_key=traits', '?sort_key=candidate_nodes',
                '?fields=bogus', '?state=done'):
        assert bm.get('/v1/allocations' + bad).status_code == 400, bad
    assert bm.get('/v1/allocations/first?fields=state').json() == {
        'uuid': a['uuid'], 'state': 'active',
        'links': bm.get('/v1/allocations/first').json()['links']}


def test_patch_name_and_extra(bm):
    a = bm.post('/v1/allocations', json={'resource_class': 'g', 'name': 'p1'}).json()
    bm.post('/v1/allocations', json={'resource_class': 'g', 'name': 'taken'})
    resp = bm.patch('/v1/allocations/p1', json=[
        {'op': 'replace', 'path': '/name', 'value': 'p2'},
        {'op': 'add', 'path': '/extra/k', 'value': 'v'}])
    assert resp.status_code == 200 and resp.json()['name'] == 'p2'
    assert resp.json()['extra'] == {'k': 'v'}
    resp = bm.patch('/v1/allocations/%s' % a['uuid'], json=[
        {'op': 'remove', 'path': '/name'}, {'op': 'remove', 'path': '/extra/k'}])
    assert resp.json()['name'] is None and resp.json()['extra'] == {}
    for patch, code in (([{'op': 'replace', 'path': '/resource_class', 'value': 'x'}], 400),
                        ([{'op': 'replace', 'path': '/uuid', 'value': 'x'}], 400),
                        ([{'op': 'replace', 'path': '/owner', 'value': 'x'}], 400),
                        ([{'op': 'replace', 'path': '/node_uuid', 'value': 'x'}], 400),
                        ([{'op': 'remove', 'path': '/extra/none'}], 400),
                        ([{'op': 'add', 'path': '/name', 'value': 'a:b'}], 400),
                        ([{'op': 'add', 'path': '/name', 'value': 'taken'}], 409)):
        resp = bm.patch('/v1/allocations/%s' % a['uuid'], json=patch)
        assert resp.status_code == code, (patch, resp.text)
    assert bm.get('/v1/allocations/%s' % a['uuid']).json()['name'] is None


def test_delete_rules(bm):
    h.make_node(bm, 'd1')
    a = h.allocate(bm, resource_class='gold')
    assert a['state'] == 'active'
    assert bm.delete('/v1/allocations/%s' % a['uuid']).status_code == 204
    node = bm.get('/v1/nodes/d1').json()
    assert node['instance_uuid'] is None and node['allocation_uuid'] is None
    assert bm.delete('/v1/allocations/%s' % a['uuid']).status_code == 404
    err = h.allocate(bm, resource_class='none')
    assert bm.delete('/v1/allocations/%s' % err['uuid']).status_code == 204
    # an active (deployed) node keeps its allocation unless in maintenance
    b = h.allocate(bm, resource_class='gold')
    bm.put('/v1/nodes/d1/states/provision', json={'target': 'active'})
    resp = bm.delete('/v1/allocations/%s' % b['uuid'])
    assert resp.status_code == 409, resp.text
    assert bm.delete('/v1/nodes/d1/allocation').status_code == 409
    bm.put('/v1/nodes/d1/maintenance')
    assert bm.delete('/v1/nodes/d1/allocation').status_code == 204
    assert bm.get('/v1/nodes/d1').json()['instance_uuid'] is None


def test_undeploy_and_patch_clear_delete_the_allocation(bm):
    h.make_node(bm, 'u1')
    a = h.allocate(bm, resource_class='gold')
    bm.put('/v1/nodes/u1/states/provision', json={'target': 'active'})
    assert bm.put('/v1/nodes/u1/states/provision',
                  json={'target': 'deleted'}).status_code == 202
    assert bm.get('/v1/allocations/%s' % a['uuid']).status_code == 404
    b = h.allocate(bm, resource_class='gold')
    resp = bm.patch('/v1/nodes/u1', json=[{'op': 'remove', 'path': '/instance_uuid'}])
    assert resp.status_code == 200 and resp.json()['allocation_uuid'] is None
    assert bm.get('/v1/allocations/%s' % b['uuid']).status_code == 404


def test_one_patch_removes_the_instance_and_leaves_maintenance(bm):
    # leaving maintenance clears its reason and fault (as Ironic); with the
    # instance removed in the same PATCH the conductor writes all of it
    h.make_node(bm, 'm1')
    a = h.allocate(bm, resource_class='gold')
    assert bm.put('/v1/nodes/m1/maintenance',
                  json={'reason': 'disk swap'}).status_code == 202
    resp = bm.patch('/v1/nodes/m1', json=[{'op': 'remove', 'path': '/instance_uuid'},
                                          {'op': 'replace', 'path': '/maintenance',
                                           'value': False}])
    assert resp.status_code == 200, resp.text
    node = resp.json()
    assert node['allocation_uuid'] is None and node['instance_uuid'] is None
    assert node['maintenance'] is False and node['maintenance_reason'] is None
    assert bm.get('/v1/allocations/%s' % a['uuid']).status_code == 404


def test_node_delete_in_maintenance_deletes_its_allocation(bm):
    h.make_node(bm, 'o1')
    a = h.allocate(bm, resource_class='gold')
    assert bm.delete('/v1/nodes/o1').status_code == 409
    assert bm.get('/v1/allocations/%s' % a['uuid']).json()['state'] == 'active'
    bm.put('/v1/nodes/o1/maintenance')
    assert bm.delete('/v1/nodes/o1').status_code == 204
    assert bm.get('/v1/allocations/%s' % a['uuid']).status_code == 404


def test_backfill(bm):
    node = h.make_node(bm, 'bf', state='active', traits=['CUSTOM_T'])
    resp = bm.post('/v1/allocations', json={'node': 'bf', 'traits': ['CUSTOM_T']})
    assert resp.status_code == 201, resp.text
    a = resp.json()
    assert (a['state'], a['node_uuid'], a['resource_class']) == (
        'active', node['uuid'], 'gold')
    assert bm.get('/v1/nodes/bf').json()['instance_uuid'] == a['uuid']
    # the node is held: its instance uuid is taken as the uuid -> 409
    again = bm.post('/v1/allocations', json={'node': 'bf'})
    assert again.status_code == 409
    h.make_node(bm, 'bf2')
    wrong = bm.post('/v1/allocations', json={'node': 'bf2', 'name': 'failed'})
    assert wrong.status_code == 400
    assert 'must be in the "active" state' in h.fault(wrong)
    left = bm.get('/v1/allocations/failed').json()
    assert left['state'] == 'error' and left['node_uuid'] is None
    other = h.make_node(bm, 'bf3', state='active')
    mismatch = bm.post('/v1/allocations', json={'node': 'bf3', 'resource_class': 'x'})
    assert mismatch.status_code == 400 and 'does not match' in h.fault(mismatch)
    assert other['uuid']


def test_locked_node_refuses_changes_with_409(bm, ctx):
    import sqlalchemy as sa
    node = h.make_node(bm, 'locked')
    a = h.allocate(bm, resource_class='gold')
    with ctx.db.engine.begin() as conn:
        conn.execute(sa.text("UPDATE nodes SET reservation = 'other-host' "
                             "WHERE uuid = :u"), {'u': node['uuid']})
    resp = bm.delete('/v1/allocations/%s' % a['uuid'])
    assert resp.status_code == 409 and 'locked by host other-host' in h.fault(resp)
    assert bm.put('/v1/nodes/locked/states/provision',
                  json={'target': 'active'}).status_code == 409
    assert bm.patch('/v1/nodes/locked', json=[
        {'op': 'add', 'path': '/extra/x', 'value': 1}]).status_code == 409
    assert bm.get('/v1/allocations/%s' % a['uuid']).json()['state'] == 'active'


def test_deleting_an_allocating_row_races_the_worker_safely(bm, ctx):
    from conductor.manager import node_allocations
    from objects.baremetal import allocation as node_alloc_obj
    h.make_node(bm, 'raced')
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': 'w'})
    assert bm.delete('/v1/allocations/%s' % row.uuid).status_code == 204
    node_allocations.NodeAllocator('w').allocate(ctx, row.id)  # finds nothing to do
    assert bm.get('/v1/nodes/raced').json()['instance_uuid'] is None
