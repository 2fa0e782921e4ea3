"""Tenancy on /v1 with keystone identity headers (fast twin of the real-Keystone matrix).

The callers are the ones tests/integration/test_baremetal_tenants.py gets from
a real Keystone: project members and readers (with the implied roles a token
carries), a domain-scoped member, an unscoped token, system admins/readers.
"""

import json

import pytest
import webob

from api.baremetal import app as baremetal_app
from tests.functional import baremetal_helpers as h

MEMBER = 'member,reader'
READER = 'reader'
ADMIN = 'admin,member,reader'
MISSING = '6a0c2d8e-63a4-4bb4-9f3a-8c7d7bb0f0aa'


@pytest.fixture
def as_project(berth):
    """Call the /v1 app in process as ``roles`` of ``project`` (keystone headers).

    ``project=None`` with ``domain`` is a domain-scoped token, with
    ``system=True`` a system-scoped one, with neither an unscoped one.
    """
    berth.conf.set_override('auth_strategy', 'keystone', group='api')
    app = baremetal_app.BaremetalApp(berth.conf, berth.db, berth.conductor_api)
    berth.conf.clear_override('auth_strategy', group='api')

    def call(method, path, project='p1', roles=MEMBER, body=None, domain=None,
             system=False, version='1.65'):
        headers = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u-%s' % project,
                   'X-Roles': roles, 'X-OpenStack-Ironic-API-Version': version}
        if project:
            headers['X-Project-Id'] = project
            headers['X-Project-Name'] = project
        if domain:
            headers['X-Domain-Id'] = domain
        if system:
            headers['OpenStack-System-Scope'] = 'all'
        req = webob.Request.blank(path, method=method, headers=headers)
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        resp = req.get_response(app)
        return resp.status_int, (resp.json if resp.body else None)
    return call


def _fault(body):
    return json.loads(body['error_message'])['faultstring']


@pytest.fixture
def nodes(bm):
    """p1's node, p2's node (active, allocated to p2) and a node p1 leases."""
    return {'mine': h.make_node(bm, 'mine', owner='p1'),
            'theirs': h.make_node(bm, 'theirs', owner='p2', resource_class='silver'),
            'leased': h.make_node(bm, 'leased', owner='ops', lessee='p1',
                                  resource_class='bronze',
                                  driver_info={'ipmi_address': '10.0.0.9'})}


def test_member_allocations_are_owned_by_its_project(bm, as_project, nodes):
    status, body = as_project('POST', '/v1/allocations', body={'resource_class': 'gold'})
    assert status == 201 and body['owner'] == 'p1'
    done = h.wait_allocation(bm, body['uuid'])
    assert done['node_uuid'] == nodes['mine']['uuid']
    status, _ = as_project('POST', '/v1/allocations',
                           body={'resource_class': 'gold', 'owner': 'p2'})
    assert status == 403
    other = h.allocate(bm, resource_class='silver', owner='p2')
    status, listed = as_project('GET', '/v1/allocations')
    assert [a['uuid'] for a in listed['allocations']] == [body['uuid']]
    assert as_project('GET', '/v1/allocations?owner=p2')[0] == 403
    for method in ('GET', 'DELETE'):
        hidden = as_project(method, '/v1/allocations/%s' % other['uuid'])
        assert hidden[0] == 404
        assert _fault(hidden[1]) == 'Allocation %s could not be found.' % other['uuid']
    hidden = as_project('PATCH', '/v1/allocations/%s' % other['uuid'],
                        body=[{'op': 'add', 'path': '/extra/x', 'value': 1}])
    assert hidden[0] == 404
    assert as_project('GET', '/v1/allocations/%s' % body['uuid'])[0] == 200
    assert as_project('DELETE', '/v1/allocations/%s' % body['uuid'])[0] == 204
    assert bm.get('/v1/allocations/%s' % other['uuid']).json()['state'] == 'active'


def test_a_lessee_member_is_allocated_the_node_it_leases(bm, as_project, nodes):
    status, body = as_project('POST', '/v1/allocations',
                              body={'resource_class': 'bronze'})
    assert status == 201
    assert h.wait_allocation(bm, body['uuid'])['node_uuid'] == nodes['leased']['uuid']


@pytest.mark.parametrize('ident', ['theirs', MISSING])
def test_another_projects_node_is_named_as_if_it_did_not_exist(bm, as_project, nodes,
                                                               ident):
    """Backfill, candidate_nodes and the node filter: 400 'not found', no trace."""
    expected = 'Node %s could not be found.' % ident
    status, body = as_project('POST', '/v1/allocations', body={'node': ident})
    assert (status, _fault(body)) == (400, expected)
    status, body = as_project('POST', '/v1/allocations', body={
        'resource_class': 'silver', 'candidate_nodes': [ident]})
    assert status == 400 and _fault(body).endswith(expected)
    assert 'p2' not in _fault(body) and nodes['theirs']['uuid'] not in _fault(body)
    status, body = as_project('GET', '/v1/allocations?node=%s' % ident)
    assert (status, _fault(body)) == (400, expected)
    for path in ('/v1/nodes/%s', '/v1/nodes/%s/states', '/v1/nodes/%s/traits'):
        status, body = as_project('GET', path % ident)
        assert (status, _fault(body)) == (404, expected), path
    # the node's allocation reads its node as a filter does: 400, as in Ironic
    status, body = as_project('GET', '/v1/nodes/%s/allocation' % ident)
    assert (status, _fault(body)) == (400, expected)
    status, body = as_project('PUT', '/v1/nodes/%s/states/provision' % ident,
                              body={'target': 'deleted'})
    assert (status, _fault(body)) == (404, expected)
    status, body = as_project('DELETE', '/v1/nodes/%s/allocation' % ident)
    assert status == 404
    assert bm.get('/v1/nodes/theirs').json()['allocation_uuid'] is None
    assert bm.get('/v1/allocations').json()['allocations'] == []


def test_members_read_their_own_and_leased_nodes_with_fields_restricted(
        bm, as_project, nodes):
    status, listed = as_project('GET', '/v1/nodes')
    assert status == 200
    assert sorted(n['name'] for n in listed['nodes']) == ['leased', 'mine']
    status, listed = as_project('GET', '/v1/nodes/detail?project=p2')
    assert (status, listed['nodes']) == (200, [])
    status, listed = as_project('GET', '/v1/nodes?lessee=p1', roles=READER)
    assert [n['name'] for n in listed['nodes']] == ['leased']
    status, own = as_project('GET', '/v1/nodes/mine', roles=READER)
    assert status == 200 and own['owner'] == 'p1' and own['last_error'] is None
    assert own['driver_info'] == {}
    status, leased = as_project('GET', '/v1/nodes/leased')
    assert status == 200 and leased['lessee'] == 'p1'
    assert leased['driver_info'] == {'content': '** Redacted - requires baremetal:node:'
                                                'get:driver_info permission. **'}
    assert leased['last_error'].startswith('** Value Redacted')
    assert '10.0.0.9' not in json.dumps(leased)
    # the operator (system scope) sees everything as stored
    status, seen = as_project('GET', '/v1/nodes/leased', project=None, roles=READER,
                              system=True)
    assert seen['driver_info'] == {'ipmi_address': '10.0.0.9'}


def test_node_writes_follow_ironics_owner_and_lessee_rules(bm, as_project, nodes):
    patch = [{'op': 'add', 'path': '/lessee', 'value': 'p3'}]
    assert as_project('PATCH', '/v1/nodes/mine', body=patch)[0] == 200
    assert bm.get('/v1/nodes/mine').json()['lessee'] == 'p3'
    owner = [{'op': 'replace', 'path': '/owner', 'value': 'p3'}]
    assert as_project('PATCH', '/v1/nodes/mine', body=owner)[0] == 403
    assert as_project('PATCH', '/v1/nodes/mine', roles=READER, body=patch)[0] == 403
    assert as_project('PATCH', '/v1/nodes/leased', body=patch)[0] == 403
    assert as_project('PATCH', '/v1/nodes/theirs', body=patch)[0] == 404
    assert as_project('DELETE', '/v1/nodes/mine')[0] == 403
    assert as_project('POST', '/v1/nodes', body={'driver': 'fake-hardware'})[0] == 403
    assert bm.get('/v1/nodes/mine').json()['owner'] == 'p1'


@pytest.mark.parametrize('order', [('lessee', 'owner'), ('owner', 'lessee')])
def test_every_field_of_a_several_field_patch_is_checked(bm, as_project, nodes, order):
    """The member may change ``lessee`` alone, never ``owner``: together, 403.

    Mutation this catches (issue 39): the per-field rule loop checking only the
    first changed field -- with ``lessee`` first the member got 200 and a new
    owner.  Nothing of the refused patch is written.
    """
    values = {'lessee': 'p3', 'owner': 'p3'}
    patch = [{'op': 'add', 'path': '/%s' % field, 'value': values[field]}
             for field in order]
    status, body = as_project('PATCH', '/v1/nodes/mine', body=patch)
    assert status == 403, body
    shown = bm.get('/v1/nodes/mine').json()
    assert (shown['owner'], shown['lessee']) == ('p1', None)


def test_lessee_needs_api_1_65(bm, as_project, nodes):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'lessee': 'x'},
                   headers={'X-OpenStack-Ironic-API-Version': '1.64'})
    assert resp.status_code == 406      # Ironic's reject_fields_in_newer_versions
    resp = bm.patch('/v1/nodes/mine', json=[{'op': 'add', 'path': '/lessee',
                                               'value': 'p9'}],
                    headers={'X-OpenStack-Ironic-API-Version': '1.64'})
    assert resp.status_code == 406
    old = bm.get('/v1/nodes/leased', headers={'X-OpenStack-Ironic-API-Version': '1.64'})
    assert 'lessee' not in old.json() and old.json()['retired'] is False
    older = bm.get('/v1/nodes/leased', headers={'X-OpenStack-Ironic-API-Version': '1.60'})
    assert 'retired' not in older.json() and 'retired_reason' not in older.json()
    assert bm.get('/v1/nodes/leased').json()['lessee'] == 'p1'
    assert bm.get('/v1/nodes?project=p1').json()['nodes'] != []


@pytest.mark.parametrize('scope', [{'project': None, 'domain': 'd1'},
                                   {'project': None}])
def test_domain_scoped_and_unscoped_tokens_are_refused_everything(bm, as_project,
                                                                   nodes, scope):
    alloc = h.allocate(bm, resource_class='gold', owner='p1')
    calls = [('GET', '/v1/allocations', None), ('GET', '/v1/nodes', None),
             ('GET', '/v1/nodes/mine', None), ('GET', '/v1/nodes/%s' % MISSING, None),
             ('GET', '/v1/allocations/%s' % alloc['uuid'], None),
             ('PATCH', '/v1/allocations/%s' % alloc['uuid'],
              [{'op': 'add', 'path': '/name', 'value': 'x'}]),
             ('DELETE', '/v1/allocations/%s' % alloc['uuid'], None),
             ('POST', '/v1/allocations', {'resource_class': 'gold', 'owner': 'p2'})]
    for roles in (MEMBER, ADMIN):
        for method, path, body in calls:
            status, answer = as_project(method, path, roles=roles, body=body, **scope)
            assert status == 403, (method, path, roles)
            assert 'mine' not in _fault(answer) and 'p1' not in _fault(answer)
    assert bm.get('/v1/allocations/%s' % alloc['uuid']).json()['name'] is None


def test_readers_cannot_write(bm, as_project, nodes):
    alloc = h.allocate(bm, resource_class='gold', owner='p1')
    assert as_project('GET', '/v1/allocations', roles=READER)[0] == 200
    assert as_project('GET', '/v1/allocations/%s' % alloc['uuid'], roles=READER)[0] == 200
    assert as_project('POST', '/v1/allocations', roles=READER,
                      body={'resource_class': 'gold'})[0] == 403
    assert as_project('PATCH', '/v1/allocations/%s' % alloc['uuid'], roles=READER,
                      body=[{'op': 'add', 'path': '/name', 'value': 'x'}])[0] == 403
    assert as_project('DELETE', '/v1/allocations/%s' % alloc['uuid'],
                      roles=READER)[0] == 403
    assert as_project('DELETE', '/v1/allocations/%s' % alloc['uuid'], project=None,
                      roles=READER, system=True)[0] == 403
    assert as_project('GET', '/v1/allocations', roles='')[0] == 403
    assert bm.get('/v1/allocations/%s' % alloc['uuid']).json()['state'] == 'active'


def test_system_admin_sees_and_writes_everything(bm, as_project, nodes):
    theirs = h.allocate(bm, resource_class='silver', owner='p2')
    sysadmin = {'project': None, 'roles': ADMIN, 'system': True}
    status, listed = as_project('GET', '/v1/allocations', **sysadmin)
    assert [a['uuid'] for a in listed['allocations']] == [theirs['uuid']]
    status, body = as_project('POST', '/v1/allocations', body={
        'resource_class': 'gold', 'owner': 'p1'}, **sysadmin)
    assert status == 201 and body['owner'] == 'p1'
    assert len(as_project('GET', '/v1/nodes', **sysadmin)[1]['nodes']) == 3
    assert as_project('PATCH', '/v1/allocations/%s' % theirs['uuid'], body=[
        {'op': 'add', 'path': '/name', 'value': 'named'}], **sysadmin)[0] == 200
    assert as_project('DELETE', '/v1/allocations/%s' % theirs['uuid'],
                      **sysadmin)[0] == 204
    # a project-scoped admin is a member of its own project, not the operator
    status, listed = as_project('GET', '/v1/allocations', project='p9', roles=ADMIN)
    assert (status, listed['allocations']) == (200, [])
    assert as_project('GET', '/v1/nodes/theirs', project='p9', roles=ADMIN)[0] == 404


def test_a_hidden_marker_is_answered_as_a_missing_one(bm, as_project, nodes):
    theirs = h.allocate(bm, resource_class='silver', owner='p2')
    for path, hidden in (('/v1/nodes', nodes['theirs']['uuid']),
                         ('/v1/allocations', theirs['uuid'])):
        answers = []
        for marker in (hidden, MISSING):
            status, body = as_project('GET', '%s?marker=%s' % (path, marker))
            answers.append((status, _fault(body).replace(marker, '<m>')))
        assert answers[0] == answers[1], path
        assert answers[0] == (400, 'Invalid input: Marker <m> could not be found.'), path
    status, body = as_project('GET', '/v1/nodes?marker=%s' % nodes['mine']['uuid'])
    assert status == 200


def test_the_owners_allocation_on_a_leased_node_is_hidden_from_the_lessee(
        bm, as_project, nodes):
    leased, mine = nodes['leased'], nodes['mine']
    h.allocate(bm, resource_class='bronze', owner='ops')
    path = '/v1/nodes/%s/allocation'
    status, body = as_project('GET', path % leased['uuid'])
    assert status == 404
    assert _fault(body) == 'Allocation for node %s could not be found.' % leased['uuid']
    status, body = as_project('GET', path % mine['uuid'])       # no allocation at all
    assert (status, _fault(body)) == (
        404, 'Allocation for node %s could not be found.' % mine['uuid'])
    assert as_project('DELETE', path % leased['uuid'])[0] == 404
    assert bm.get(path % leased['uuid']).status_code == 200


def test_a_project_admin_creates_and_deletes_its_own_projects_nodes(bm, as_project,
                                                                     nodes):
    """Ironic's self_owned_node rules ([api] project_admin_can_manage_own_nodes on,
    its default): the node is owned by the admin's project, whatever it asked."""
    status, node = as_project('POST', '/v1/nodes', roles=ADMIN,
                              body={'driver': 'fake-hardware', 'name': 'own'})
    assert (status, node['owner']) == (201, 'p1')
    status, answer = as_project('POST', '/v1/nodes', roles=ADMIN, body={
        'driver': 'fake-hardware', 'name': 'for-p2', 'owner': 'p2'})
    assert status == 400
    assert 'owner other than your own project' in _fault(answer)
    assert as_project('POST', '/v1/nodes', roles=ADMIN, body={
        'driver': 'fake-hardware', 'name': 'explicit', 'owner': 'p1'})[0] == 201
    # a member of the project is not its admin
    assert as_project('POST', '/v1/nodes', roles=MEMBER,
                      body={'driver': 'fake-hardware', 'name': 'm'})[0] == 403
    assert as_project('DELETE', '/v1/nodes/own', roles=MEMBER)[0] == 403
    # another project's node: not even seen; a leased one: seen, not deletable
    assert as_project('DELETE', '/v1/nodes/theirs', roles=ADMIN)[0] == 404
    assert as_project('DELETE', '/v1/nodes/leased', roles=ADMIN)[0] == 403
    assert as_project('DELETE', '/v1/nodes/own', roles=ADMIN)[0] == 204
    assert as_project('DELETE', '/v1/nodes/mine', roles=ADMIN)[0] == 204
    names = sorted(n['name'] for n in bm.get('/v1/nodes').json()['nodes'])
    assert names == ['explicit', 'leased', 'theirs']
    # a domain-scoped admin is refused, as for every rule
    assert as_project('POST', '/v1/nodes', project=None, domain='d1', roles=ADMIN,
                      body={'driver': 'fake-hardware', 'name': 'dom'})[0] == 403
    # a system admin is not bound to a project: owner as given
    status, node = as_project('POST', '/v1/nodes', project=None, system=True,
                              roles=ADMIN, body={'driver': 'fake-hardware',
                                                 'name': 'sys', 'owner': 'p2'})
    assert (status, node['owner']) == (201, 'p2')


def test_without_project_admin_nodes_only_system_admins_create_and_delete(
        berth, bm, as_project, nodes):
    berth.conf.set_override('project_admin_can_manage_own_nodes', False, group='api')
    try:
        assert as_project('POST', '/v1/nodes', roles=ADMIN,
                          body={'driver': 'fake-hardware', 'name': 'own'})[0] == 403
        assert as_project('DELETE', '/v1/nodes/mine', roles=ADMIN)[0] == 403
    finally:
        berth.conf.clear_override('project_admin_can_manage_own_nodes', group='api')
    assert sorted(n['name'] for n in bm.get('/v1/nodes').json()['nodes']) == [
        'leased', 'mine', 'theirs']


def test_a_reader_setting_boot_mode_before_1_76_is_refused_by_policy_first(
        bm, as_project, nodes):
    # ironic-tempest-plugin's rbac TestNodeSystemReader.test_reader_cannot_set_boot_mode
    # (and secure_boot) at 1.70: Ironic checks the policy (403) before the 1.76 gate
    for path, target in (('boot_mode', 'uefi'), ('secure_boot', True)):
        url = '/v1/nodes/mine/states/%s' % path
        status, body = as_project('PUT', url, project=None, roles=READER, system=True,
                                  body={'target': target}, version='1.70')
        assert status == 403, body
        # a project reader cannot see another's node: 404 as for no node
        assert as_project('PUT', '/v1/nodes/%s/states/%s' % (nodes['mine']['uuid'], path),
                          project='p2', roles=READER, body={'target': target},
                          version='1.70')[0] == 404
        # an admin passes the policy and meets the gate
        status, body = as_project('PUT', url, project=None, roles=ADMIN, system=True,
                                  body={'target': target}, version='1.75')
        assert status == 404 and 'starting with the API version 1.76' in _fault(body)
