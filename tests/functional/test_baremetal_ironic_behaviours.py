"""Ironic client behaviours, each at the microversion Ironic introduced it (issue 18)."""

import pytest

from tests.functional import baremetal_helpers as h


@pytest.mark.parametrize('path,version', [
    ('/v1/nodes?bogus=1', '1.1'), ('/v1/nodes/detail?bogus=1', '1.1'),
    ('/v1/nodes?frobnicate=x', 'latest'), ('/v1/allocations?bogus=1', '1.52'),
    ('/v1/allocations?node_uuid=x', 'latest')])
def test_unknown_query_parameters_are_400_not_ignored(bm, path, version):
    h.make_node(bm, 'listed')
    resp = bm.get(path, version=version)
    assert resp.status_code == 400, resp.text
    assert 'Unknown argument' in h.fault(resp)


def test_known_query_parameters_still_list(bm):
    h.make_node(bm, 'listed')
    assert len(bm.get('/v1/nodes?maintenance=false&limit=5').json()['nodes']) == 1
    assert bm.get('/v1/allocations?state=active&limit=5').status_code == 200


def test_conductor_group_settable_and_filterable_from_1_46(bm):
    made = bm.post('/v1/nodes', version='1.46', json={
        'driver': 'fake-hardware', 'name': 'g1', 'conductor_group': 'Rack-1.A'})
    assert made.status_code == 201, made.text
    assert made.json()['conductor_group'] == 'rack-1.a'      # lower case, as Ironic
    h.make_node(bm, 'g2')
    assert bm.get('/v1/nodes/g2', version='1.46').json()['conductor_group'] == ''
    resp = bm.patch('/v1/nodes/g2', version='1.46', json=[
        {'op': 'replace', 'path': '/conductor_group', 'value': 'rack-2'}])
    assert resp.status_code == 200 and resp.json()['conductor_group'] == 'rack-2'
    names = lambda q: sorted(n['name'] for n in bm.get(  # noqa: E731
        '/v1/nodes?conductor_group=%s' % q, version='1.46').json()['nodes'])
    assert names('RACK-1.A') == ['g1'] and names('rack-2') == ['g2']
    resp = bm.patch('/v1/nodes/g2', version='1.46', json=[
        {'op': 'remove', 'path': '/conductor_group'}])
    assert resp.status_code == 200 and resp.json()['conductor_group'] == ''
    assert names('') == ['g2']


def test_conductor_group_below_1_46_is_406_and_hidden(bm):
    resp = bm.post('/v1/nodes', version='1.45', json={
        'driver': 'fake-hardware', 'conductor_group': 'a'})
    assert resp.status_code == 406, resp.text
    h.make_node(bm, 'old')
    assert 'conductor_group' not in bm.get('/v1/nodes/old', version='1.45').json()
    assert bm.patch('/v1/nodes/old', version='1.45', json=[
        {'op': 'add', 'path': '/conductor_group', 'value': 'a'}]).status_code == 406
    assert bm.get('/v1/nodes?conductor_group=a', version='1.45').status_code == 406


@pytest.mark.parametrize('group', ['has space', 'a/b', 'x' * 256])
def test_invalid_conductor_group_is_400(bm, group):
    resp = bm.post('/v1/nodes', version='1.46', json={
        'driver': 'fake-hardware', 'conductor_group': group})
    assert resp.status_code == 400, resp.text


def test_allocation_uuid_that_is_a_nodes_instance_is_409_at_create(bm):
    node = h.make_node(bm, 'inst')
    instance = '5c1e6a5e-8f62-4a5c-9a0e-0d4b7c3d9f10'
    assert bm.patch('/v1/nodes/inst', json=[
        {'op': 'add', 'path': '/instance_uuid', 'value': instance}]).status_code == 200
    resp = bm.post('/v1/allocations', version='1.52',
                   json={'resource_class': 'gold', 'uuid': instance})
    assert resp.status_code == 409, resp.text
    assert instance in h.fault(resp) and node['uuid'] in h.fault(resp)
    assert bm.get('/v1/allocations').json()['allocations'] == []


def test_whole_extra_patch_on_an_allocation_at_1_57(bm):
    a = bm.post('/v1/allocations', json={'resource_class': 'g', 'extra': {'old': 1}}).json()
    resp = bm.patch('/v1/allocations/%s' % a['uuid'], version='1.57', json=[
        {'op': 'add', 'path': '/extra', 'value': {'k': 'v'}}])
    assert resp.status_code == 200, resp.text
    assert resp.json()['extra'] == {'k': 'v'}
    resp = bm.patch('/v1/allocations/%s' % a['uuid'], version='1.57', json=[
        {'op': 'remove', 'path': '/extra'}])
    assert resp.status_code == 200 and resp.json()['extra'] == {}
    bad = bm.patch('/v1/allocations/%s' % a['uuid'], version='1.57', json=[
        {'op': 'replace', 'path': '/extra', 'value': 'not-an-object'}])
    assert bad.status_code == 400, bad.text
    assert bm.get('/v1/allocations/%s' % a['uuid']).json()['extra'] == {}


def _set_states(ctx, node_uuid, state, target=None):
    import sqlalchemy as sa
    with ctx.db.engine.begin() as conn:
        conn.execute(sa.text('UPDATE nodes SET provision_state = :s, '
                             'target_provision_state = :t WHERE uuid = :u'),
                     {'s': state, 't': target, 'u': node_uuid})


@pytest.mark.parametrize('state,target,code', [
    ('error', None, 204),                 # refused before unless in maintenance
    ('deploy failed', 'active', 204),     # moving, but updates are allowed there
    ('available', 'active', 409),         # moving from a state without updates
    ('active', None, 409)])
def test_allocation_delete_in_ironics_update_allowed_states_at_1_52(bm, ctx, state,
                                                                    target, code):
    node = h.make_node(bm, 'st')
    a = h.allocate(bm, resource_class='gold')
    assert a['node_uuid'] == node['uuid']
    _set_states(ctx, node['uuid'], state, target)
    resp = bm.delete('/v1/allocations/%s' % a['uuid'], version='1.52')
    assert resp.status_code == code, resp.text
    gone = bm.get('/v1/allocations/%s' % a['uuid']).status_code == 404
    assert gone is (code == 204)
    assert (bm.get('/v1/nodes/st').json()['instance_uuid'] is None) is gone


def test_node_delete_in_maintenance_deletes_the_allocation_at_1_52(bm):
    h.make_node(bm, 'gone')
    a = h.allocate(bm, resource_class='gold')
    bm.put('/v1/nodes/gone/maintenance')
    assert bm.delete('/v1/nodes/gone', version='1.52').status_code == 204
    assert bm.get('/v1/allocations/%s' % a['uuid']).status_code == 404
    assert bm.get('/v1/allocations').json()['allocations'] == []
