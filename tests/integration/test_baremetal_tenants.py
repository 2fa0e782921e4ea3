"""The tenant matrix of issue 17 on both APIs, with tokens of a real Keystone.

Projects A and B each own nodes; B also has a deployed node without an
allocation (the one A used to be able to backfill) and an allocation.  Every
principal of the matrix (tests/keystone_identity.py) then tries the same
calls; the answers are compared with one table, printed for the record.
The fast twin with keystone headers is tests/functional/test_baremetal_rbac.py.
"""

import json
import uuid

import requests

from tests.integration.conftest import MARKS

pytestmark = MARKS

IRONIC = {'X-OpenStack-Ironic-API-Version': 'latest'}
PLACEMENT = {'OpenStack-API-Version': 'placement latest'}
MISSING = str(uuid.UUID(int=17))


class Caller:
    def __init__(self, stack, tenants, name):
        self.stack, self.name = stack, name
        self.token = tenants.token(name)

    def v1(self, method, path, body=None):
        headers = dict(IRONIC, **{'X-Auth-Token': self.token})
        return requests.request(method, self.stack.baremetal_url + path, json=body,
                                headers=headers, timeout=60)

    def placement(self, path):
        headers = dict(PLACEMENT, **{'X-Auth-Token': self.token})
        return requests.get(self.stack.placement_url + path, headers=headers, timeout=60)


def _fault(resp):
    return json.loads(resp.json()['error_message'])['faultstring']


def _ok(resp, status):
    assert resp.status_code == status, resp.text
    return resp.json() if resp.content else None


def _node(admin, name, owner, rc, active=False):
    node = _ok(admin.v1('POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': name,
                                              'owner': owner, 'resource_class': rc}), 201)
    for verb in ('manage', 'provide') + (('active',) if active else ()):
        _ok(admin.v1('PUT', '/v1/nodes/%s/states/provision' % node['uuid'],
                     {'target': verb}), 202)
    return node


def _allocate(caller, rc):
    alloc = _ok(caller.v1('POST', '/v1/allocations', {'resource_class': rc}), 201)
    for _ in range(300):            # a liveness bound, not a timing
        alloc = _ok(caller.v1('GET', '/v1/allocations/%s' % alloc['uuid']), 200)
        if alloc['state'] != 'allocating':
            break
    assert alloc['state'] == 'active', alloc
    return alloc


# principal -> expected answers, in the order of ROWS
ROWS = ('usages A', 'usages B', 'list allocs', 'node A', 'node B', 'alloc A',
        'alloc B', 'backfill B node', 'candidate B node', 'owner=other',
        'PATCH alloc A', 'DELETE alloc A', 'create node', 'create for B',
        'delete own node', 'delete A node', 'placement RPs')
# the node rows: Ironic's self_owned_node rules ([api]
# project_admin_can_manage_own_nodes, default true): a project-scoped admin (or
# service) creates nodes owned by its own project, another owner is a 400; an
# admin of the owning project deletes them; another project's node is a 404.
# Placement (usages, 'placement RPs'): upstream's rules all have scope_types
# ['project'], so a system-scoped token, even an admin's, gets 403 there; the
# operator's Placement token is a project-scoped admin (or the service role)
EXPECTED = {
    'a-member':      (200, 403, '200:2', 200, 404, 200, 404, 400, 400, 403, 200, None,
                      403, 403, None, 403, 403),
    'a-reader':      (200, 403, '200:2', 200, 404, 200, 404, 403, 403, 403, 403, 403,
                      403, 403, None, 403, 403),
    'b-member':      (403, 200, '200:1', 404, 200, 404, 200, None, None, 403, 404, 404,
                      403, 403, None, 404, 403),
    'b-reader':      (403, 200, '200:1', 404, 200, 404, 200, 403, 403, 403, 404, 404,
                      403, 403, None, 404, 403),
    'domain-member': (403, 403, 403, 403, 403, 403, 403, 403, 403, 403, 403, 403,
                      403, 403, None, 403, 403),
    'project-admin': (200, 200, '200:0', 404, 404, 404, 404, 400, 400, 403, 404, 404,
                      201, 400, 204, 404, 200),
    'system-reader': (403, 403, '200:3', 200, 200, 200, 200, 403, 403, 403, 403, 403,
                      403, 403, None, 403, 403),
    'system-admin':  (403, 403, '200:3', 200, 200, 200, 200, None, None, None, 200, None,
                      201, 201, 204, None, 403),
    # the service role in the service project: another project's rows only with
    # [DEFAULT] rbac_service_role_elevated_access (Ironic's option, default off;
    # tests/integration/test_baremetal_service_role.py turns it on)
    'service':       (200, 200, '200:0', 404, 404, 404, 404, None, None, None, 404, None,
                      201, 400, 403, None, 200),
}


def test_tenant_matrix_on_both_apis(keystone_berth, tenants):
    stack = keystone_berth
    who = {name: Caller(stack, tenants, name) for name in EXPECTED}
    admin = who['system-admin']
    a, b = tenants.projects['A'], tenants.projects['B']
    node_a1 = _node(admin, 'a-1', a, 'a-class')
    node_a2 = _node(admin, 'a-2', a, 'a-class')
    node_b = _node(admin, 'b-deployed', b, 'b-class', active=True)
    _node(admin, 'b-pool', b, 'b-pool')
    alloc_a = _allocate(who['a-member'], 'a-class')
    alloc_a2 = _allocate(who['a-member'], 'a-class')
    alloc_b = _allocate(who['b-member'], 'b-pool')
    other = {'a-member': b, 'a-reader': b, 'b-member': a, 'b-reader': a}

    def answers(name):
        c = who[name]
        listed = c.v1('GET', '/v1/allocations')
        got = {
            'usages A': c.placement('/usages?project_id=%s' % a).status_code,
            'usages B': c.placement('/usages?project_id=%s' % b).status_code,
            'list allocs': (listed.status_code if listed.status_code != 200 else
                            '200:%d' % len(listed.json()['allocations'])),
            'node A': c.v1('GET', '/v1/nodes/%s' % node_a1['uuid']).status_code,
            'node B': c.v1('GET', '/v1/nodes/%s' % node_b['uuid']).status_code,
            'alloc A': c.v1('GET', '/v1/allocations/%s' % alloc_a['uuid']).status_code,
            'alloc B': c.v1('GET', '/v1/allocations/%s' % alloc_b['uuid']).status_code,
            'placement RPs': c.placement('/resource_providers').status_code,
        }
        expected = dict(zip(ROWS, EXPECTED[name]))
        if expected['backfill B node'] is not None:
            got['backfill B node'] = c.v1('POST', '/v1/allocations',
                                          {'node': node_b['uuid']}).status_code
            got['candidate B node'] = c.v1('POST', '/v1/allocations', {
                'resource_class': 'b-class',
                'candidate_nodes': [node_b['uuid']]}).status_code
        if expected['owner=other'] is not None:
            got['owner=other'] = c.v1('POST', '/v1/allocations', {
                'resource_class': 'a-class', 'owner': other.get(name, b)}).status_code
        got['PATCH alloc A'] = c.v1('PATCH', '/v1/allocations/%s' % alloc_a['uuid'], [
            {'op': 'add', 'path': '/extra/by', 'value': name}]).status_code
        if expected['DELETE alloc A'] is not None:
            got['DELETE alloc A'] = c.v1(
                'DELETE', '/v1/allocations/%s' % alloc_a['uuid']).status_code
        got.update(node_writes(c, expected))
        return got

    def node_writes(c, expected):
        got = {}
        created = c.v1('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                             'name': 'own-%s' % c.name})
        got['create node'] = created.status_code
        if created.status_code == 201:
            owner = created.json()['owner']
            # a project-scoped creator's node is its project's, a system one's no one's
            assert owner == tenants.principals[c.name].project_id, (c.name, owner)
        for_b = c.v1('POST', '/v1/nodes', {'driver': 'fake-hardware', 'owner': b,
                                           'name': 'for-b-%s' % c.name})
        got['create for B'] = for_b.status_code
        if for_b.status_code == 201:
            assert for_b.json()['owner'] == b
            _ok(admin.v1('DELETE', '/v1/nodes/%s' % for_b.json()['uuid']), 204)
        if expected['delete own node'] is not None:
            got['delete own node'] = c.v1(
                'DELETE', '/v1/nodes/%s' % created.json()['uuid']).status_code
        if expected['delete A node'] is not None:
            got['delete A node'] = c.v1(
                'DELETE', '/v1/nodes/%s' % node_a2['uuid']).status_code
        return got

    table = {name: answers(name) for name in EXPECTED}
    print('\n%-14s ' % '' + ' | '.join(ROWS))
    for name, got in table.items():
        print('%-14s ' % name + ' | '.join(str(got.get(r, '-')) for r in ROWS))
    for name, got in table.items():
        assert all(v != 500 for v in got.values()), (name, got)
        for row, want in zip(ROWS, EXPECTED[name]):
            if want is not None:
                assert got[row] == want, (name, row, got)

    # nothing the refused callers tried was written
    seen = _ok(admin.v1('GET', '/v1/allocations'), 200)['allocations']
    assert sorted(x['uuid'] for x in seen) == sorted(
        [alloc_a['uuid'], alloc_a2['uuid'], alloc_b['uuid']])
    assert _ok(admin.v1('GET', '/v1/nodes/%s' % node_b['uuid']), 200)[
        'allocation_uuid'] is None
    nodes = _ok(admin.v1('GET', '/v1/nodes'), 200)['nodes']
    assert sorted(n['name'] for n in nodes) == [
        'a-1', 'a-2', 'b-deployed', 'b-pool', 'own-service']
    extra = _ok(admin.v1('GET', '/v1/allocations/%s' % alloc_a['uuid']), 200)['extra']
    assert extra['by'] in ('a-member', 'system-admin')

    # the answers about B's node are those about a node that does not exist
    a_member = who['a-member']
    for ident in (node_b['uuid'], MISSING):
        resp = a_member.v1('POST', '/v1/allocations', {'node': ident})
        assert (resp.status_code, _fault(resp)) == (
            400, 'Node %s could not be found.' % ident)
        resp = a_member.v1('GET', '/v1/nodes/%s' % ident)
        assert (resp.status_code, _fault(resp)) == (
            404, 'Node %s could not be found.' % ident)
        resp = a_member.v1('GET', '/v1/allocations?node=%s' % ident)
        assert (resp.status_code, _fault(resp)) == (
            400, 'Node %s could not be found.' % ident)
    listed = _ok(a_member.v1('GET', '/v1/nodes'), 200)['nodes']
    assert sorted(n['name'] for n in listed) == ['a-1', 'a-2']

    # writes: the member deletes its own, the admin anyone's
    _ok(a_member.v1('DELETE', '/v1/allocations/%s' % alloc_a['uuid']), 204)
    _ok(admin.v1('DELETE', '/v1/allocations/%s' % alloc_b['uuid']), 204)
    _ok(who['a-member'].v1('GET', '/v1/allocations/%s' % alloc_a2['uuid']), 200)
