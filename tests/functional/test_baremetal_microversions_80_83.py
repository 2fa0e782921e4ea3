"""Ironic API 1.80 onwards on /v1: self-service nodes (1.80), node inventory (1.81),
shards (1.82), child nodes (1.83).

doc/source/ironic-microversions.md lists every version with its decision.
"""

import pytest

from tests.functional import baremetal_helpers as h
from tests.functional.test_baremetal_rbac import (  # noqa: F401  (fixtures)
    ADMIN,
    MEMBER,
    READER,
    _fault,
    as_project,
    nodes,
)


def _v(version):
    return {'X-OpenStack-Ironic-API-Version': version}


def test_the_root_document_links_shards_from_1_82(bm):
    # the maximum is pinned in test_baremetal_microversions_84_87.py
    resp = bm.get('/v1')
    assert resp.json()['shards'][0]['href'].endswith('/v1/shards/')
    assert 'shards' not in bm.get('/v1', headers=_v('1.81')).json()
    assert bm.get('/v1/nodes', headers=_v('1.83')).status_code == 200


# 1.80 self-service nodes: a signifier; Ironic's rules apply at every version

def test_a_project_admin_manages_its_own_nodes_at_1_80(bm, as_project,  # noqa: F811
                                                       nodes):  # noqa: F811
    status, node = as_project('POST', '/v1/nodes', roles=ADMIN, version='1.80',
                              body={'driver': 'fake-hardware', 'name': 'own'})
    assert (status, node['owner']) == (201, 'p1')
    status, body = as_project('POST', '/v1/nodes', roles=ADMIN, version='1.80',
                              body={'driver': 'fake-hardware', 'owner': 'p2'})
    assert (status, _fault(body)) == (
        400, 'Cannot create a node as a project scoped admin with an owner other '
             'than your own project.')
    # members and readers of the project are not its admins (Ironic's defaults)
    for roles in (MEMBER, READER):
        status, body = as_project('POST', '/v1/nodes', roles=roles, version='1.80',
                                  body={'driver': 'fake-hardware'})
        assert (status, _fault(body)) == (
            403, 'baremetal:node:create is disallowed by policy')
        assert as_project('DELETE', '/v1/nodes/own', roles=roles,
                          version='1.80')[0] == 403
    # another project's admin does not see p1's node
    status, body = as_project('DELETE', '/v1/nodes/own', project='p2', roles=ADMIN,
                              version='1.80')
    assert (status, _fault(body)) == (404, 'Node own could not be found.')
    assert as_project('DELETE', '/v1/nodes/own', roles=ADMIN, version='1.80')[0] == 204
    assert bm.get('/v1/nodes/own').status_code == 404


def test_a_project_scoped_service_user_creates_nodes_its_project_owns(
        bm, as_project):  # noqa: F811
    status, node = as_project('POST', '/v1/nodes', roles='service', version='1.80',
                              body={'driver': 'fake-hardware', 'name': 'svc'})
    assert (status, node['owner']) == (201, 'p1')
    # deleting is the project admin's alone
    assert as_project('DELETE', '/v1/nodes/svc', roles='service',
                      version='1.80')[0] == 403


# 1.81 node inventory: berth inspects nothing, so every node has none

def test_a_nodes_inventory_is_not_found_from_1_81(bm):
    node = h.make_node(bm, 'inv')
    resp = bm.get('/v1/nodes/inv/inventory', headers=_v('1.81'))
    assert (resp.status_code, h.fault(resp)) == (
        404, 'Node inventory record for node %s could not be found.' % node['uuid'])
    assert bm.get('/v1/nodes/%s/inventory' % node['uuid']).status_code == 404
    # below 1.81 the endpoint does not exist (Ironic's generic 404)
    resp = bm.get('/v1/nodes/inv/inventory', headers=_v('1.80'))
    assert resp.status_code == 404
    assert 'inventory record' not in resp.text
    assert 'not supported by berth' not in resp.text
    resp = bm.get('/v1/nodes/missing/inventory')
    assert (resp.status_code, h.fault(resp)) == (404, 'Node missing could not be found.')
    assert bm.put('/v1/nodes/inv/inventory', json={}).status_code == 405
    assert 'inventory record' in h.fault(bm.get('/v1/nodes/inv/inventory/'))
    resp = bm.get('/v1/nodes/a%20b/inventory')
    assert (resp.status_code, h.fault(resp)) == (
        400, 'Expected a logical name or UUID but received a b.')


def test_inventory_tenant_rules(as_project, nodes):  # noqa: F811
    path = '/v1/nodes/%s/inventory'
    mine = nodes['mine']['uuid']
    # the owner's reader passes the rule: the answer is the missing inventory
    for roles in (MEMBER, READER):
        status, body = as_project('GET', path % 'mine', roles=roles, version='1.81')
        assert (status, _fault(body)) == (
            404, 'Node inventory record for node %s could not be found.' % mine)
    # a lessee sees the node, not its inventory (Ironic's owner-only default)
    status, body = as_project('GET', path % 'leased', version='1.81')
    assert (status, _fault(body)) == (
        403, 'baremetal:node:inventory:get is disallowed by policy')
    # another project's node is as if it did not exist
    status, body = as_project('GET', path % 'theirs', version='1.81')
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')
    # a system reader passes for every node
    status, body = as_project('GET', path % 'theirs', project=None, roles=READER,
                              system=True, version='1.81')
    assert status == 404 and 'inventory record' in _fault(body)


# 1.82 shards

def _names(resp):
    assert resp.status_code == 200, resp.text
    return sorted(n['name'] for n in resp.json()['nodes'])


def test_shard_is_set_shown_filtered_and_counted_from_1_82(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'a1',
                                      'shard': 'sa'})
    assert (resp.status_code, resp.json()['shard']) == (201, 'sa')
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'a2', 'shard': 'sa'})
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'b1'})
    resp = bm.patch('/v1/nodes/b1', json=[{'op': 'add', 'path': '/shard', 'value': 'sb'}])
    assert (resp.status_code, resp.json()['shard']) == (200, 'sb')
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'none'})
    assert bm.get('/v1/nodes/none').json()['shard'] is None
    assert _names(bm.get('/v1/nodes?shard=sa')) == ['a1', 'a2']
    # Ironic's string list: comma separated, stripped, lower-cased
    assert _names(bm.get('/v1/nodes?shard=SA,%20sb')) == ['a1', 'a2', 'b1']
    assert _names(bm.get('/v1/nodes?shard=')) == []
    assert _names(bm.get('/v1/nodes/detail?sharded=true')) == ['a1', 'a2', 'b1']
    assert _names(bm.get('/v1/nodes?sharded=false')) == ['none']
    assert _names(bm.get('/v1/nodes?shard=sa&sharded=false')) == []
    assert bm.get('/v1/nodes?fields=shard,name').json()['nodes'][0].keys() == {
        'uuid', 'shard', 'name', 'links'}
    resp = bm.get('/v1/shards')
    assert resp.status_code == 200
    # Ironic's list: the largest first, the nodes without a shard as "None"
    assert resp.json() == {'shards': [{'name': 'sa', 'count': 2},
                                      {'name': 'None', 'count': 1},
                                      {'name': 'sb', 'count': 1}]}
    # removing it: no shard again
    resp = bm.patch('/v1/nodes/b1', json=[{'op': 'remove', 'path': '/shard'}])
    assert (resp.status_code, resp.json()['shard']) == (200, None)
    assert bm.get('/v1/shards').json()['shards'][0] == {'name': 'None', 'count': 2}


def test_shard_below_1_82_gets_ironics_answers(bm):
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'n', 'shard': 's1'})
    old = _v('1.81')
    assert 'shard' not in bm.get('/v1/nodes/n', headers=old).json()
    resp = bm.post('/v1/nodes', headers=old,
                   json={'driver': 'fake-hardware', 'shard': 's1'})
    assert resp.status_code == 406
    resp = bm.patch('/v1/nodes/n', headers=old,
                    json=[{'op': 'replace', 'path': '/shard', 'value': 's2'}])
    assert resp.status_code == 406
    assert bm.get('/v1/nodes/n?fields=shard', headers=old).status_code == 406
    for query in ('shard=s1', 'sharded=true'):
        resp = bm.get('/v1/nodes?' + query, headers=old)
        assert (resp.status_code, h.fault(resp)) == (
            406, 'Request not acceptable. The minimal required API version should be 1.82')
    resp = bm.get('/v1/shards', headers=old)
    assert (resp.status_code, h.fault(resp)) == (404, 'The API version does not allow shards')
    assert bm.get('/v1/shards/s1').status_code == 404
    assert bm.get('/v1/nodes/n').json()['shard'] == 's1'


@pytest.mark.parametrize('value, patched', [
    (5, 'shard must be a string'), (['a'], 'shard must be a string'),
    ('x' * 256, 'shard is longer than 255 characters')])
def test_a_bad_shard_is_a_400(bm, value, patched):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'shard': value})
    assert resp.status_code == 400
    assert h.fault(resp).startswith('Invalid input for field/attribute shard.')
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'n'})
    resp = bm.patch('/v1/nodes/n', json=[{'op': 'add', 'path': '/shard', 'value': value}])
    assert (resp.status_code, h.fault(resp)) == (400, patched)
    assert bm.get('/v1/nodes/n').json()['shard'] is None
    resp = bm.get('/v1/nodes?sharded=maybe')
    assert (resp.status_code, h.fault(resp)) == (
        400, 'Invalid value maybe for sharded: expected a boolean')


def test_shard_tenant_rules(bm, as_project, nodes):  # noqa: F811
    assert bm.patch('/v1/nodes/mine', json=[
        {'op': 'add', 'path': '/shard', 'value': 's1'}]).status_code == 200
    # an owner's admin, member and reader may not set a shard (system admin only)
    for roles in (ADMIN, MEMBER, READER):
        status, body = as_project('PATCH', '/v1/nodes/mine', roles=roles, version='1.82',
                                  body=[{'op': 'replace', 'path': '/shard', 'value': 's2'}])
        assert status == 403, (roles, body)
    # another project's node: not found
    status, body = as_project('PATCH', '/v1/nodes/theirs', roles=ADMIN, version='1.82',
                              body=[{'op': 'add', 'path': '/shard', 'value': 's2'}])
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')
    # the project's reader sees the field on its node, and filters its own nodes
    status, body = as_project('GET', '/v1/nodes/mine', roles=READER, version='1.82')
    assert (status, body['shard']) == (200, 's1')
    status, body = as_project('GET', '/v1/nodes?sharded=false', version='1.82')
    assert sorted(n['name'] for n in body['nodes']) == ['leased']
    # the shard list is the system's: projects get 403
    status, body = as_project('GET', '/v1/shards', roles=ADMIN, version='1.82')
    assert (status, _fault(body)) == (403, 'baremetal:shards:get is disallowed by policy')
    status, body = as_project('GET', '/v1/shards', project=None, roles=READER,
                              system=True, version='1.82')
    assert status == 200 and {'name': 's1', 'count': 1} in body['shards']
    status, _ = as_project('PATCH', '/v1/nodes/theirs', project=None, roles=ADMIN,
                           system=True, version='1.82',
                           body=[{'op': 'add', 'path': '/shard', 'value': 's1'}])
    assert status == 200
    assert bm.get('/v1/shards').json()['shards'][0] == {'name': 's1', 'count': 2}


# 1.83 child nodes

def _children(bm, node, version='latest'):
    return bm.get('/v1/nodes/%s/children' % node, headers=_v(version))


def test_child_nodes_are_set_listed_and_hidden_from_1_83(bm):
    parent = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'p'}).json()
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'c1',
                                      'parent_node': 'p'})
    assert (resp.status_code, resp.json()['parent_node']) == (201, parent['uuid'])
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'c2'})
    resp = bm.patch('/v1/nodes/c2', json=[
        {'op': 'add', 'path': '/parent_node', 'value': parent['uuid']}])
    assert (resp.status_code, resp.json()['parent_node']) == (200, parent['uuid'])
    # Ironic's listings leave the children out, at every version
    assert _names(bm.get('/v1/nodes')) == ['p']
    assert _names(bm.get('/v1/nodes', headers=_v('1.82'))) == ['p']
    assert _names(bm.get('/v1/nodes/detail?include_children=true')) == ['c1', 'c2', 'p']
    assert _names(bm.get('/v1/nodes?parent_node=%s' % parent['uuid'])) == ['c1', 'c2']
    assert _names(bm.get('/v1/nodes?parent_node=p')) == []      # a UUID, not a name
    resp = _children(bm, 'p')
    assert resp.status_code == 200
    body = resp.json()
    assert sorted(body['children']) == sorted(
        bm.get('/v1/nodes/%s' % n).json()['uuid'] for n in ('c1', 'c2'))
    assert body['links']['rel'] == 'children'
    assert body['links']['href'].endswith('/v1/nodes?parent_node=%s' % parent['uuid'])
    assert _children(bm, 'c1').json()['children'] == []
    # removing it: a node of its own again
    resp = bm.patch('/v1/nodes/c2', json=[{'op': 'remove', 'path': '/parent_node'}])
    assert (resp.status_code, resp.json()['parent_node']) == (200, None)
    assert _names(bm.get('/v1/nodes')) == ['c2', 'p']
    resp = bm.patch('/v1/nodes/c1', json=[{'op': 'replace', 'path': '/parent_node',
                                           'value': ''}])
    assert (resp.status_code, resp.json()['parent_node']) == (200, None)
    assert _names(bm.get('/v1/nodes')) == ['c1', 'c2', 'p']


def test_a_child_node_is_never_allocated(bm):
    h.make_node(bm, 'parent', resource_class='kid')
    h.make_node(bm, 'child', resource_class='kid', parent_node='parent')
    first = h.allocate(bm, resource_class='kid')
    assert (first['state'], first['node_uuid']) == (
        'active', bm.get('/v1/nodes/parent').json()['uuid'])
    second = h.allocate(bm, resource_class='kid')
    assert second['state'] == 'error'


def test_child_nodes_below_1_83_get_ironics_answers(bm):
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'p'})
    old = _v('1.82')
    assert 'parent_node' not in bm.get('/v1/nodes/p', headers=old).json()
    resp = bm.post('/v1/nodes', headers=old,
                   json={'driver': 'fake-hardware', 'parent_node': 'p'})
    assert resp.status_code == 406
    resp = bm.patch('/v1/nodes/p', headers=old,
                    json=[{'op': 'add', 'path': '/parent_node', 'value': 'p'}])
    assert resp.status_code == 406
    for query in ('include_children=true', 'parent_node=p'):
        resp = bm.get('/v1/nodes?' + query, headers=old)
        assert (resp.status_code, h.fault(resp)) == (
            406, 'Request not acceptable. The minimal required API version should be 1.83')
    resp = _children(bm, 'p', '1.82')
    assert resp.status_code == 404 and 'not supported' not in resp.text
    assert bm.get('/v1/nodes/p/children/p').status_code == 404


@pytest.mark.parametrize('value', ['missing', 'x' * 37, 'a b'])
def test_a_bad_parent_node_is_a_400(bm, value):
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'n'})
    text = ("Unable to apply the requested parent_node '%s'. Requested value was "
            "invalid." % value)
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'parent_node': value})
    assert resp.status_code == 400
    if len(value) <= 36:
        assert h.fault(resp) == text
    resp = bm.patch('/v1/nodes/n', json=[
        {'op': 'add', 'path': '/parent_node', 'value': value}])
    assert (resp.status_code, h.fault(resp)) == (400, text)
    resp = bm.patch('/v1/nodes/n', json=[{'op': 'add', 'path': '/parent_node', 'value': 5}])
    assert (resp.status_code, h.fault(resp)) == (400, 'parent_node must be a string')
    assert bm.get('/v1/nodes?include_children=maybe').status_code == 400


def test_child_node_tenant_rules(bm, as_project, nodes):  # noqa: F811
    mine, theirs = nodes['mine']['uuid'], nodes['theirs']['uuid']
    bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'kid', 'owner': 'p1'})
    # the project's members may not set it (system member only)
    for roles in (ADMIN, MEMBER, READER):
        status, _ = as_project('PATCH', '/v1/nodes/kid', roles=roles, version='1.83',
                               body=[{'op': 'add', 'path': '/parent_node', 'value': mine}])
        assert status == 403, roles
    # a system member: another owner's node is the same 400 as a missing one
    status, body = as_project('PATCH', '/v1/nodes/kid', project=None, roles=MEMBER,
                              system=True, version='1.83',
                              body=[{'op': 'add', 'path': '/parent_node', 'value': theirs}])
    assert (status, _fault(body)) == (
        400, "Unable to apply the requested parent_node '%s'. Requested value was "
             "invalid." % theirs)
    status, body = as_project('PATCH', '/v1/nodes/kid', project=None, roles=MEMBER,
                              system=True, version='1.83',
                              body=[{'op': 'add', 'path': '/parent_node', 'value': mine}])
    assert (status, body['parent_node']) == (200, mine)
    # a project admin creating its own child of its own node
    status, body = as_project('POST', '/v1/nodes', roles=ADMIN, version='1.83',
                              body={'driver': 'fake-hardware', 'name': 'kid2',
                                    'parent_node': 'mine'})
    assert (status, body['parent_node'], body['owner']) == (201, mine, 'p1')
    # ... not of another project's node: the node it cannot see is "invalid"
    status, body = as_project('POST', '/v1/nodes', roles=ADMIN, version='1.83',
                              body={'driver': 'fake-hardware', 'parent_node': theirs})
    assert status == 400
    # children: listed for the owner, 404 for another project
    status, body = as_project('GET', '/v1/nodes/mine/children', roles=READER,
                              version='1.83')
    assert status == 200 and len(body['children']) == 2
    status, body = as_project('GET', '/v1/nodes/mine/children', project='p2',
                              version='1.83')
    assert (status, _fault(body)) == (404, 'Node mine could not be found.')
    status, body = as_project('GET', '/v1/nodes?include_children=true', version='1.83')
    assert sorted(n['name'] for n in body['nodes']) == ['kid', 'kid2', 'leased', 'mine']
