"""Node history (1.78) and self-service nodes (1.80), with tokens of a real Keystone.

The tenant matrix of tests/integration/test_baremetal_tenants.py for the
calls of issue 50: ``GET /v1/nodes/{node}/history[/{event}]`` (the owner's
readers and members, system readers; a lessee 403; another project 404) and
a project admin creating and deleting its own project's nodes (``[api]
project_admin_can_manage_own_nodes``), also where the delete is a
conductor's write over RPC (the node holds an allocation).  An answer about
another project's node is the answer about a node that does not exist: its
uuid and name are in no refusal.  The fast twins with keystone headers are
tests/functional/test_baremetal_node_history.py and test_baremetal_rbac.py.
"""

import uuid

import pytest

from tests import keystone_berth as ks_berth
from tests.integration.conftest import MARKS
from tests.integration.test_baremetal_tenants import MISSING, Caller, _allocate, _fault, _node, _ok

pytestmark = MARKS

NAMES = ('a-member', 'a-reader', 'b-member', 'b-reader', 'domain-member',
         'project-admin', 'system-reader', 'system-admin', 'service')
SELF_OWNER_ONLY = ('Cannot create a node as a project scoped admin with an owner other '
                   'than your own project.')
# principal -> (history of A's node leased to B, history of B's node);
# list and one event answer alike
HISTORY = {
    'a-member': 200, 'a-reader': 200,
    'b-member': 403, 'b-reader': 403,          # the lessee: sees the node, not its history
    'domain-member': 403,                      # neither system nor project scope
    'project-admin': 404,                      # another project's admin
    'system-reader': 200, 'system-admin': 200,
    'service': 404,                            # no elevated access (the default)
}


def _events(admin, node):
    return _ok(admin.v1('GET', '/v1/nodes/%s/history' % node['uuid']), 200)['history']


def _hidden(resp, ident, *secrets):
    """``resp`` is the 404 of a node that does not exist, naming none of ``secrets``
    (but ``ident``, the caller's own words)."""
    assert (resp.status_code, _fault(resp)) == (404, 'Node %s could not be found.' % ident)
    for secret in set(secrets) - {ident}:
        assert secret not in resp.text, (secret, resp.text)


@pytest.fixture
def who(keystone_berth, tenants):
    return {name: Caller(keystone_berth, tenants, name) for name in NAMES}


def test_node_history_tenant_matrix(who, tenants):
    admin = who['system-admin']
    a, b = tenants.projects['A'], tenants.projects['B']
    leased = _node(admin, 'h-a-leased', a, 'h-a')
    _ok(admin.v1('PATCH', '/v1/nodes/%s' % leased['uuid'], [
        {'op': 'add', 'path': '/lessee', 'value': b}]), 200)
    theirs = _node(admin, 'h-b', b, 'h-b')
    event_a = _events(admin, leased)[0]['uuid']
    event_b = _events(admin, theirs)[0]['uuid']
    assert len(_events(admin, leased)) == 2            # manage, provide

    table = {}
    for name in NAMES:
        c = who[name]
        listed = c.v1('GET', '/v1/nodes/%s/history' % leased['uuid'])
        one = c.v1('GET', '/v1/nodes/%s/history/%s' % (leased['uuid'], event_a))
        table[name] = (listed.status_code, one.status_code)
        if listed.status_code == 200:
            assert [e['uuid'] for e in listed.json()['history']][0] == event_a
            assert one.json()['uuid'] == event_a
        for resp in (listed, one):
            assert theirs['uuid'] not in resp.text and 'h-b' not in resp.text
    print('\n(history list, one event) of A\'s node leased to B:', table)
    assert table == {name: (code, code) for name, code in HISTORY.items()}

    # B's node, for everyone who may not see it: by uuid, by name and its
    # event, the answers about a node that does not exist
    for name in ('a-member', 'a-reader', 'project-admin', 'service'):
        c = who[name]
        for ident in (theirs['uuid'], 'h-b', MISSING, 'no-such-node'):
            _hidden(c.v1('GET', '/v1/nodes/%s/history' % ident), ident, theirs['uuid'],
                    'h-b')
            _hidden(c.v1('GET', '/v1/nodes/%s/history/%s' % (ident, event_b)), ident,
                    theirs['uuid'], 'h-b')
    # B's event asked of A's node: no such event of that node (nothing of B's node)
    a_member = who['a-member']
    resp = a_member.v1('GET', '/v1/nodes/%s/history/%s' % (leased['uuid'], event_b))
    assert resp.status_code == 404, resp.text
    assert theirs['uuid'] not in resp.text and 'h-b' not in resp.text
    missing_event = a_member.v1('GET', '/v1/nodes/%s/history/%s' % (
        leased['uuid'], uuid.uuid4()))
    assert missing_event.status_code == 404
    assert _fault(resp).replace(event_b, 'X') == _fault(missing_event).replace(
        missing_event.url.rsplit('/', 1)[1], 'X')
    # the lessee's 403 names the rule, not the owner's node
    lessee = who['b-member'].v1('GET', '/v1/nodes/%s/history' % leased['uuid'])
    assert 'baremetal:node:history:get' in _fault(lessee)
    # a marker of B's node's event is answered as one that does not exist

    def with_marker(marker):
        resp = a_member.v1('GET', '/v1/nodes/%s/history?marker=%s' % (leased['uuid'],
                                                                      marker))
        assert theirs['uuid'] not in resp.text and 'h-b' not in resp.text
        return resp.status_code, resp.text.replace(marker, 'X')
    status, text = with_marker(event_b)
    assert status == 404, text             # as Ironic: the marker record is not found
    assert (status, text) == with_marker(str(uuid.uuid4()))


def test_self_service_nodes_tenant_matrix(who, tenants):
    admin, padmin = who['system-admin'], who['project-admin']
    a, b, own = tenants.projects['A'], tenants.projects['B'], tenants.projects['admin']
    node_a = _node(admin, 's-a', a, 's-a')
    node_b = _node(admin, 's-b', b, 's-b')
    # A's node leased to the project admin's project
    leased = _node(admin, 's-leased', a, 's-a')
    _ok(admin.v1('PATCH', '/v1/nodes/%s' % leased['uuid'], [
        {'op': 'add', 'path': '/lessee', 'value': own}]), 200)

    # create: the project admin's node is its project's; another owner is Ironic's 400
    mine = _ok(padmin.v1('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                               'name': 's-own'}), 201)
    assert mine['owner'] == own
    explicit = _ok(padmin.v1('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                                   'name': 's-explicit', 'owner': own}), 201)
    assert explicit['owner'] == own
    for owner in (a, b):
        resp = padmin.v1('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                               'name': 's-for-other', 'owner': owner})
        assert (resp.status_code, _fault(resp)) == (400, SELF_OWNER_ONLY)
    # the owner's history is its own reader's
    assert len(_events(padmin, mine)) == 0
    refused = {}
    for name in ('a-member', 'a-reader', 'b-member', 'b-reader', 'domain-member',
                 'system-reader'):
        refused[name] = who[name].v1('POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 's-by-%s' % name}).status_code
    assert refused == dict.fromkeys(refused, 403), refused

    # delete: its own node; another project's is a node that does not exist; a
    # leased one is seen, not deletable; members and readers of the owner 403
    resp = padmin.v1('DELETE', '/v1/nodes/%s' % node_b['uuid'])
    _hidden(resp, node_b['uuid'], node_b['uuid'], 's-b')
    _hidden(padmin.v1('DELETE', '/v1/nodes/s-b'), 's-b', node_b['uuid'], 's-b')
    _hidden(padmin.v1('DELETE', '/v1/nodes/%s' % MISSING), MISSING)
    resp = padmin.v1('DELETE', '/v1/nodes/%s' % leased['uuid'])
    assert resp.status_code == 403, resp.text
    for name in ('a-member', 'a-reader'):
        assert who[name].v1('DELETE', '/v1/nodes/%s' % node_a['uuid']).status_code == 403
    for name in ('b-member', 'b-reader'):
        _hidden(who[name].v1('DELETE', '/v1/nodes/%s' % node_a['uuid']), node_a['uuid'],
                node_a['uuid'], 's-a')
    assert padmin.v1('DELETE', '/v1/nodes/%s' % mine['uuid']).status_code == 204

    # its own node holding an allocation: the delete is the conductor's write
    # (destroy_node over RPC), which must take the same self-owned rule
    held = _ok(admin.v1('PATCH', '/v1/nodes/%s' % explicit['uuid'], [
        {'op': 'add', 'path': '/resource_class', 'value': 's-own'}]), 200)
    for verb in ('manage', 'provide'):
        _ok(admin.v1('PUT', '/v1/nodes/%s/states/provision' % held['uuid'],
                     {'target': verb}), 202)
    alloc = _allocate(padmin, 's-own')
    assert alloc['node_uuid'] == held['uuid'], alloc
    _ok(admin.v1('PUT', '/v1/nodes/%s/maintenance' % held['uuid'], {'reason': 'x'}), 202)
    resp = padmin.v1('DELETE', '/v1/nodes/%s' % held['uuid'])
    assert resp.status_code == 204, resp.text
    assert admin.v1('GET', '/v1/allocations/%s' % alloc['uuid']).status_code == 404

    names = sorted(n['name'] for n in _ok(admin.v1('GET', '/v1/nodes'), 200)['nodes'])
    assert names == ['s-a', 's-b', 's-leased']


@pytest.fixture
def no_self_service(keystone, tenants, tmp_path_factory, tmp_path):
    stack = ks_berth.start_berth(tmp_path_factory.getbasetemp(), tmp_path / 'state',
                                 keystone, tenants,
                                 **{'api.project_admin_can_manage_own_nodes': False})
    yield stack
    stack.stop()


def test_with_the_option_off_only_system_admins_create_and_delete(no_self_service,
                                                                   tenants):
    who = {name: Caller(no_self_service, tenants, name)
           for name in ('system-admin', 'project-admin', 'a-member')}
    admin, padmin = who['system-admin'], who['project-admin']
    own = tenants.projects['admin']
    node = _node(admin, 'off-own', own, 'off')
    resp = padmin.v1('POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': 'off-new'})
    assert resp.status_code == 403, resp.text
    assert padmin.v1('DELETE', '/v1/nodes/%s' % node['uuid']).status_code == 403
    # the owner's reader still reads its history
    assert len(_events(padmin, node)) == 2
    created = _ok(admin.v1('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                                 'name': 'off-sys', 'owner': own}), 201)
    assert created['owner'] == own
    names = sorted(n['name'] for n in _ok(admin.v1('GET', '/v1/nodes'), 200)['nodes'])
    assert names == ['off-own', 'off-sys']
