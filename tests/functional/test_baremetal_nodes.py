"""/v1/nodes: create, list, show, patch, delete, traits, maintenance, states."""

import uuid as uuidlib

import pytest

from tests.functional import baremetal_helpers as h


def test_create_defaults_to_enroll(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'n-1',
                                      'resource_class': 'gold',
                                      'properties': {'cpus': 4}, 'extra': {'a': 1}})
    assert resp.status_code == 201
    node = resp.json()
    assert resp.headers['location'].endswith('/v1/nodes/%s' % node['uuid'])
    assert node['provision_state'] == 'enroll'
    assert node['power_state'] is None
    assert node['properties'] == {'cpus': 4}
    assert node['allocation_uuid'] is None and node['traits'] == []


def test_create_below_1_11_is_available(bm):
    node = bm.post('/v1/nodes', json={'driver': 'fake-hardware'}, version='1.10').json()
    assert node['provision_state'] == 'available'


@pytest.mark.parametrize('body', [
    {}, {'driver': 'nope'}, {'driver': 'fake-hardware', 'bogus': 1},
    {'driver': 'fake-hardware', 'name': 'a:b'},
    {'driver': 'fake-hardware', 'name': '6d3c3bb2-53b5-4c1e-9a39-2d2bb0a6e0d1'},
    {'driver': 'fake-hardware', 'uuid': 'not-a-uuid'},
    {'driver': 'fake-hardware', 'resource_class': 'x' * 81},
])
def test_create_invalid_is_400(bm, body):
    resp = bm.post('/v1/nodes', json=body)
    assert resp.status_code == 400, resp.text
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_duplicate_name_and_uuid_are_409(bm):
    node = h.make_node(bm, 'dup', state='enroll')
    assert bm.post('/v1/nodes', json={'driver': 'fake-hardware',
                                      'name': 'dup'}).status_code == 409
    assert bm.post('/v1/nodes', json={'driver': 'fake-hardware',
                                      'uuid': node['uuid']}).status_code == 409


def test_get_by_uuid_or_name_and_fields(bm):
    node = h.make_node(bm, 'by-name', state='enroll')
    assert bm.get('/v1/nodes/by-name').json()['uuid'] == node['uuid']
    body = bm.get('/v1/nodes/%s?fields=name,resource_class' % node['uuid']).json()
    assert set(body) == {'uuid', 'name', 'resource_class', 'links'}
    assert bm.get('/v1/nodes/by-name?fields=bogus').status_code == 400


def test_list_filters_detail_and_pagination(bm):
    a = h.make_node(bm, 'a', resource_class='gold')
    b = h.make_node(bm, 'b', resource_class='silver', state='manageable')
    c = h.make_node(bm, 'c', resource_class='gold', owner='p1')
    bm.put('/v1/nodes/c/maintenance', json={'reason': 'disk'})
    nodes = bm.get('/v1/nodes').json()['nodes']
    assert [n['name'] for n in nodes] == ['a', 'b', 'c']
    assert set(nodes[0]) == {'uuid', 'name', 'instance_uuid', 'power_state',
                             'provision_state', 'maintenance', 'links'}
    assert 'properties' in bm.get('/v1/nodes/detail').json()['nodes'][0]

    def names(query):
        resp = bm.get('/v1/nodes' + query)
        assert resp.status_code == 200, resp.text
        return [n['name'] for n in resp.json()['nodes']]
    assert names('?resource_class=gold') == ['a', 'c']
    assert names('?provision_state=manageable') == ['b']
    assert names('?maintenance=true') == ['c']
    assert names('?owner=p1') == ['c']
    assert names('?associated=false') == ['a', 'b', 'c']
    assert names('?sort_key=name&sort_dir=desc') == ['c', 'b', 'a']
    page = bm.get('/v1/nodes?limit=2').json()
    assert [n['name'] for n in page['nodes']] == ['a', 'b']
    assert 'marker=%s' % b['uuid'] in page['next']
    assert names('?limit=2&marker=%s' % b['uuid']) == ['c']
    assert names('?sort_key=name&limit=1&marker=%s' % a['uuid']) == ['b']
    for bad in ('?limit=0', '?sort_dir=up', '?sort_key=properties',
                '?maintenance=maybe', '?marker=%s' % uuidlib.uuid4()):
        assert bm.get('/v1/nodes' + bad).status_code == 400, bad
    assert c['uuid']


def test_patch_allowed_fields(bm):
    h.make_node(bm, 'p', state='enroll')
    resp = bm.patch('/v1/nodes/p', json=[
        {'op': 'replace', 'path': '/name', 'value': 'p2'},
        {'op': 'add', 'path': '/extra/k', 'value': 'v'},
        {'op': 'replace', 'path': '/resource_class', 'value': 'bronze'},
        {'op': 'add', 'path': '/properties/cpus', 'value': 8},
        {'op': 'replace', 'path': '/owner', 'value': 'proj'}])
    assert resp.status_code == 200, resp.text
    node = resp.json()
    assert (node['name'], node['extra'], node['resource_class'], node['owner']) == (
        'p2', {'k': 'v'}, 'bronze', 'proj')
    assert node['properties'] == {'cpus': 8}


@pytest.mark.parametrize('patch', [
    [{'op': 'replace', 'path': '/allocation_uuid', 'value': None}],
    [{'op': 'replace', 'path': '/provision_state', 'value': 'active'}],
    [{'op': 'replace', 'path': '/name', 'value': 'a b'}],
    [{'op': 'remove', 'path': '/extra/missing'}],
    [{'op': 'move', 'path': '/name', 'from': '/owner'}],
    [{'op': 'replace', 'path': '/instance_uuid', 'value': 'nope'}],
    [{'op': 'replace', 'path': '/resource_class', 'value': 'x' * 81}],
    [], {'op': 'replace'},
])
def test_patch_invalid_is_400(bm, patch):
    h.make_node(bm, 'q', state='enroll')
    resp = bm.patch('/v1/nodes/q', json=patch)
    assert resp.status_code == 400, resp.text
    assert bm.get('/v1/nodes/q').json()['provision_state'] == 'enroll'


def test_patch_instance_uuid_rules(bm):
    h.make_node(bm, 'i')
    inst = str(uuidlib.uuid4())
    ok = bm.patch('/v1/nodes/i', json=[{'op': 'add', 'path': '/instance_uuid',
                                       'value': inst}])
    assert ok.json()['instance_uuid'] == inst
    again = bm.patch('/v1/nodes/i', json=[{'op': 'replace', 'path': '/instance_uuid',
                                          'value': str(uuidlib.uuid4())}])
    assert again.status_code == 409
    h.make_node(bm, 'j')
    clash = bm.patch('/v1/nodes/j', json=[{'op': 'add', 'path': '/instance_uuid',
                                          'value': inst}])
    assert clash.status_code == 409


def test_provision_state_machine(bm):
    node = h.make_node(bm, 's', state='enroll')
    url = '/v1/nodes/s/states/provision'
    assert bm.put(url, json={'target': 'provide'}).status_code == 400
    resp = bm.put(url, json={'target': 'manage'})
    assert resp.status_code == 202
    assert resp.headers['location'].endswith('/v1/nodes/%s/states' % node['uuid'])
    assert bm.get('/v1/nodes/s').json()['power_state'] == 'power off'
    assert bm.put(url, json={'target': 'provide'}).status_code == 202
    assert bm.get('/v1/nodes/s/states').json()['provision_state'] == 'available'
    assert bm.put(url, json={'target': 'active'}).status_code == 202
    assert bm.get('/v1/nodes/s').json()['provision_state'] == 'active'
    assert bm.put(url, json={'target': 'deleted'}).status_code == 202
    assert bm.get('/v1/nodes/s').json()['provision_state'] == 'available'
    assert bm.put(url, json={'target': 'inspect'}).status_code == 400
    assert bm.put(url, json={}).status_code == 400
    # (by uuid: below 1.5 a name finds no node, as in Ironic)
    assert bm.put('/v1/nodes/%s/states/provision' % node['uuid'],
                  json={'target': 'manage'}, version='1.3').status_code == 406


def test_power_and_maintenance(bm):
    h.make_node(bm, 'pw')
    assert bm.put('/v1/nodes/pw/states/power',
                  json={'target': 'power on'}).status_code == 202
    assert bm.get('/v1/nodes/pw').json()['power_state'] == 'power on'
    assert bm.put('/v1/nodes/pw/states/power',
                  json={'target': 'explode'}).status_code == 400
    assert bm.put('/v1/nodes/pw/maintenance', json={'reason': 'r'}).status_code == 202
    node = bm.get('/v1/nodes/pw?fields=maintenance,maintenance_reason').json()
    assert (node['maintenance'], node['maintenance_reason']) == (True, 'r')
    assert bm.delete('/v1/nodes/pw/maintenance').status_code == 202
    assert bm.get('/v1/nodes/pw').json()['maintenance'] is False


def test_traits(bm):
    h.make_node(bm, 't', state='enroll')
    assert bm.put('/v1/nodes/t/traits', json={'traits': ['CUSTOM_A', 'HW_CPU_X86_AVX2']}
                  ).status_code == 204
    assert bm.put('/v1/nodes/t/traits/CUSTOM_B').status_code == 204
    assert sorted(bm.get('/v1/nodes/t/traits').json()['traits']) == [
        'CUSTOM_A', 'CUSTOM_B', 'HW_CPU_X86_AVX2']
    assert bm.delete('/v1/nodes/t/traits/CUSTOM_A').status_code == 204
    assert bm.delete('/v1/nodes/t/traits/CUSTOM_A').status_code == 404
    assert bm.put('/v1/nodes/t/traits/FOO_BAR').status_code == 400
    assert bm.put('/v1/nodes/t/traits', json={'traits': ['bad']}).status_code == 400
    # Ironic's routing below 1.37: a node's fields=traits, 406
    assert bm.get('/v1/nodes/t/traits', version='1.36').status_code == 406
    assert bm.delete('/v1/nodes/t/traits').status_code == 204
    assert bm.get('/v1/nodes/t').json()['traits'] == []


def test_delete_rules(bm):
    h.make_node(bm, 'd1', state='enroll')
    assert bm.delete('/v1/nodes/d1').status_code == 204
    assert bm.get('/v1/nodes/d1').status_code == 404
    h.make_node(bm, 'd2', state='active')
    assert bm.delete('/v1/nodes/d2').status_code == 409
    bm.put('/v1/nodes/d2/maintenance')
    assert bm.delete('/v1/nodes/d2').status_code == 204
    assert bm.delete('/v1/nodes/nope').status_code == 404
