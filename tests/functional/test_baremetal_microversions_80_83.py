"""Ironic API 1.80 onwards on /v1: self-service nodes (1.80), node inventory (1.81).

doc/source/ironic-microversions.md lists every version with its decision.
"""

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


def test_the_root_document_and_headers_say_1_81(bm):
    resp = bm.get('/v1')
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == '1.81'
    assert bm.get('/v1/nodes', headers=_v('1.81')).status_code == 200
    assert bm.get('/v1/nodes', headers=_v('1.82')).status_code == 406


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
