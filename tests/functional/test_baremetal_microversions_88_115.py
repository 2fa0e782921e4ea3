"""Ironic API 1.88 onwards on /v1: the ``.json`` suffix (1.91), ``runbook`` (1.92),
``disable_power_off`` (1.95), RFC 6901 escapes in JSON patches (1.98),
``instance_name`` (1.104), the request id headers (1.107), ``disable_ramdisk``
with ``service`` (1.108), ``health`` (1.109), ``abort`` (1.110) and the node history
detail fields (1.113, 1.115); the versions about ports, portgroups, virtual media,
runbooks' own endpoints, inspection rules and firmware are bumped only.

doc/source/ironic-microversions.md lists every version with its decision.
"""

import pytest

from tests.functional import baremetal_helpers as h
from tests.functional.test_baremetal_rbac import (  # noqa: F401  (fixtures)
    ADMIN,
    MEMBER,
    _fault,
    as_project,
    nodes,
)

MAX = '1.115'
UNSUPPORTED = 'not supported by berth: %s (see doc/source/api/baremetal.md)'


def _v(version):
    return {'X-OpenStack-Ironic-API-Version': version}


def _provision(bm, node, version, body):
    return bm.put('/v1/nodes/%s/states/provision' % node['uuid'], headers=_v(version),
                  json=body)


def test_the_maximum_version(bm):
    resp = bm.get('/v1')
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == MAX
    assert resp.json()['version']['version'] == MAX
    assert bm.get('/v1/nodes', headers=_v('latest')).headers[
        'X-OpenStack-Ironic-API-Version'] == MAX
    assert bm.get('/v1/nodes', headers=_v(MAX)).status_code == 200
    nxt = '1.%d' % (int(MAX.split('.')[1]) + 1)
    resp = bm.get('/v1/nodes', headers=_v(nxt))
    assert resp.status_code == 406
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == MAX


@pytest.mark.parametrize('method,path', [
    ('GET', '/v1/ports'), ('GET', '/v1/portgroups'), ('GET', '/v1/runbooks'),
    ('GET', '/v1/inspection_rules'), ('GET', '/v1/nodes/n/vmedia'),
    ('GET', '/v1/nodes/n/firmware')])
def test_out_of_scope_endpoints_stay_unsupported_at_the_maximum(bm, method, path):
    h.make_node(bm, 'n')
    resp = bm.request(method, path, headers=_v(MAX))
    assert (resp.status_code, h.fault(resp)) == (404, UNSUPPORTED % path)


# 1.91: Ironic stops stripping a ``.json`` suffix; berth's routing never did, so a
# node named ``x.json`` is that node at every version

@pytest.mark.parametrize('version', ['1.5', '1.90', '1.91', MAX])
def test_a_json_suffix_is_part_of_the_name(bm, version):
    h.make_node(bm, 'plain')
    dotted = h.make_node(bm, 'dotted.json')
    resp = bm.get('/v1/nodes/dotted.json', headers=_v(version))
    assert (resp.status_code, resp.json()['uuid']) == (200, dotted['uuid'])
    resp = bm.get('/v1/nodes/plain.json', headers=_v(version))
    assert (resp.status_code, h.fault(resp)) == (404, 'Node plain.json could not be found.')


# 1.92 runbooks: out of scope, but the provision endpoint takes a ``runbook``;
# berth keeps none, so one named is Ironic's RunbookNotFound

def test_a_runbook_is_never_found(bm):
    node = h.make_node(bm, 'rb', state='active')
    path = '/v1/nodes/%s/states/provision' % node['uuid']
    body = {'target': 'service', 'runbook': 'CUSTOM_RB'}
    resp = bm.put(path, headers=_v('1.92'), json=body)
    assert (resp.status_code, h.fault(resp)) == (404, 'Runbook CUSTOM_RB could not be found.')
    assert bm.put(path, headers=_v('1.91'), json=body).status_code == 406
    for bad in (12, ['x'], {'a': 1}):
        resp = bm.put(path, headers=_v('1.92'), json=dict(body, runbook=bad))
        assert resp.status_code == 400, (bad, resp.text)
    resp = bm.put(path, headers=_v('1.92'), json=dict(body, runbook='a b'))
    assert (resp.status_code, h.fault(resp)) == (
        400, 'Expected a logical name or UUID but received a b.')
    # null is not given: the service verb's own answer (steps required)
    resp = bm.put(path, headers=_v('1.92'), json=dict(body, runbook=None))
    assert resp.status_code == 400 and '"service_steps" is required' in h.fault(resp)
    assert bm.get('/v1/nodes/rb').json()['provision_state'] == 'active'


# 1.95 disable_power_off

def _power(bm, node, target, version=MAX):
    return bm.put('/v1/nodes/%s/states/power' % node, headers=_v(version),
                  json={'target': target})


def test_disable_power_off_is_shown_from_1_95(bm):
    node = h.make_node(bm, 'dpo')
    assert node['disable_power_off'] is False
    assert 'disable_power_off' not in bm.get('/v1/nodes/dpo', headers=_v('1.94')).json()
    resp = bm.get('/v1/nodes?fields=disable_power_off', headers=_v('1.94'))
    assert resp.status_code == 406
    resp = bm.get('/v1/nodes?fields=uuid,disable_power_off', headers=_v('1.95'))
    assert resp.json()['nodes'] == [{'uuid': node['uuid'], 'disable_power_off': False,
                                     'links': resp.json()['nodes'][0]['links']}]


def test_disable_power_off_on_create_and_patch(bm):
    resp = bm.post('/v1/nodes', headers=_v('1.95'), json={
        'driver': 'fake-hardware', 'name': 'dpo1', 'disable_power_off': 'true'})
    assert (resp.status_code, resp.json()['disable_power_off']) == (201, True)
    resp = bm.post('/v1/nodes', headers=_v('1.94'), json={
        'driver': 'fake-hardware', 'disable_power_off': True})
    assert resp.status_code == 406
    for value in ('maybe', 3, ['true'], {}):
        resp = bm.post('/v1/nodes', headers=_v('1.95'), json={
            'driver': 'fake-hardware', 'disable_power_off': value})
        assert resp.status_code == 400, (value, resp.text)
    path = '/v1/nodes/dpo1'
    op = [{'op': 'replace', 'path': '/disable_power_off', 'value': False}]
    assert bm.patch(path, headers=_v('1.94'), json=op).status_code == 406
    resp = bm.patch(path, headers=_v('1.95'), json=op)
    assert (resp.status_code, resp.json()['disable_power_off']) == (200, False)
    op[0]['value'] = 'nope'
    resp = bm.patch(path, headers=_v('1.95'), json=op)
    assert (resp.status_code, h.fault(resp)) == (
        400, 'Invalid boolean value for disable_power_off: nope')
    op[0]['value'] = 'on'
    assert bm.patch(path, headers=_v('1.95'), json=op).json()['disable_power_off'] is True
    # removing it is allowed at any version (Ironic's gate is on setting it): false
    resp = bm.patch(path, headers=_v('1.94'),
                    json=[{'op': 'remove', 'path': '/disable_power_off'}])
    assert resp.status_code == 200
    assert bm.get(path, headers=_v(MAX)).json()['disable_power_off'] is False


def test_disable_power_off_refuses_powering_off_at_every_version(bm):
    node = h.make_node(bm, 'dpo2', state='active')
    bm.patch('/v1/nodes/dpo2', headers=_v('1.95'),
             json=[{'op': 'add', 'path': '/disable_power_off', 'value': True}])
    for version, target in (('1.1', 'power off'), ('1.95', 'power off'),
                            (MAX, 'soft power off')):
        resp = _power(bm, node['uuid'], target, version)
        assert (resp.status_code, h.fault(resp)) == (
            409, 'Failed to set node power state to %s.' % target), version
    assert bm.get('/v1/nodes/dpo2').json()['power_state'] == 'power on'
    for target in ('rebooting', 'soft rebooting', 'power on'):
        assert _power(bm, node['uuid'], target).status_code == 202, target
    bm.patch('/v1/nodes/dpo2', headers=_v('1.95'),
             json=[{'op': 'replace', 'path': '/disable_power_off', 'value': False}])
    assert _power(bm, 'dpo2', 'power off').status_code == 202
    assert bm.get('/v1/nodes/dpo2').json()['power_state'] == 'power off'


def test_disable_power_off_rule_is_system_admin(as_project, nodes):  # noqa: F811
    op = [{'op': 'replace', 'path': '/disable_power_off', 'value': True}]
    for roles in (ADMIN, MEMBER):
        status, body = as_project('PATCH', '/v1/nodes/mine', roles=roles,
                                  version='1.95', body=op)
        assert (status, _fault(body)) == (
            403, 'baremetal:node:update:disable_power_off is disallowed by policy')
    status, body = as_project('PATCH', '/v1/nodes/mine', version='1.95', body=op,
                              system=True, roles=ADMIN)
    assert (status, body['disable_power_off']) == (200, True)
    status, body = as_project('PATCH', '/v1/nodes/theirs', version='1.95', body=op)
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')


# 1.98: keys holding ``~`` or ``/`` are written with RFC 6901's escapes

@pytest.mark.parametrize('version', ['1.97', '1.98'])
def test_patch_keys_with_tilde_and_slash(bm, version):
    h.make_node(bm, 'esc')
    ops = [{'op': 'add', 'path': '/extra/a~1b', 'value': 1},
           {'op': 'add', 'path': '/extra/c~0d', 'value': 2},
           {'op': 'add', 'path': '/properties/x~01', 'value': 3},
           {'op': 'add', 'path': '/instance_info/display~1name', 'value': 'vm'}]
    resp = bm.patch('/v1/nodes/esc', headers=_v(version), json=ops)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body['extra'] == {'a/b': 1, 'c~d': 2}
    assert body['properties']['x~1'] == 3
    assert body['instance_info']['display/name'] == 'vm'
    resp = bm.patch('/v1/nodes/esc', headers=_v(version),
                    json=[{'op': 'remove', 'path': '/extra/a~1b'}])
    assert resp.json()['extra'] == {'c~d': 2}
    # a top-level member decoded (1.98) or not is no field: Ironic's 400
    for path in ('/ex~0tra', '/extra~1a', '/na~1me'):
        resp = bm.patch('/v1/nodes/esc', headers=_v(version),
                        json=[{'op': 'add', 'path': path, 'value': 'x'}])
        assert resp.status_code == 400, (path, resp.text)
    # a bad escape (``~2``) is the patch's 400, not a 500
    resp = bm.patch('/v1/nodes/esc', headers=_v(version),
                    json=[{'op': 'add', 'path': '/extra/a~2', 'value': 1}])
    assert resp.status_code == 400


def test_allocation_patch_keys_with_tilde_and_slash(bm):
    h.make_node(bm, 'alloc-esc')
    alloc = h.allocate(bm, resource_class='gold')
    resp = bm.patch('/v1/allocations/%s' % alloc['uuid'], headers=_v('1.98'),
                    json=[{'op': 'add', 'path': '/extra/a~1b~0c', 'value': 'v'}])
    assert (resp.status_code, resp.json()['extra']) == (200, {'a/b~c': 'v'})


# 1.104 instance_name, kept from instance_info's display_name as Ironic does

def test_instance_name_is_shown_from_1_104(bm):
    node = h.make_node(bm, 'iname')
    assert node['instance_name'] is None
    assert 'instance_name' not in bm.get('/v1/nodes/iname', headers=_v('1.103')).json()
    assert bm.get('/v1/nodes?fields=instance_name', headers=_v('1.103')).status_code == 406
    resp = bm.post('/v1/nodes', headers=_v('1.103'), json={
        'driver': 'fake-hardware', 'instance_name': 'vm'})
    assert resp.status_code == 406
    op = [{'op': 'add', 'path': '/instance_name', 'value': 'vm'}]
    assert bm.patch('/v1/nodes/iname', headers=_v('1.103'), json=op).status_code == 406


def test_instance_name_on_create_and_patch(bm):
    resp = bm.post('/v1/nodes', headers=_v('1.104'), json={
        'driver': 'fake-hardware', 'name': 'in1', 'instance_name': 'web-1'})
    assert (resp.status_code, resp.json()['instance_name']) == (201, 'web-1')
    for value in ('', 'x' * 256, 5, ['a']):
        resp = bm.post('/v1/nodes', headers=_v('1.104'), json={
            'driver': 'fake-hardware', 'instance_name': value})
        assert resp.status_code == 400, (value, resp.text)
        resp = bm.patch('/v1/nodes/in1', headers=_v('1.104'), json=[
            {'op': 'replace', 'path': '/instance_name', 'value': value}])
        assert resp.status_code == 400, (value, resp.text)
    resp = bm.patch('/v1/nodes/in1', headers=_v('1.104'), json=[
        {'op': 'replace', 'path': '/instance_name', 'value': 'web-2'}])
    assert (resp.status_code, resp.json()['instance_name']) == (200, 'web-2')
    resp = bm.patch('/v1/nodes/in1', headers=_v('1.104'), json=[
        {'op': 'remove', 'path': '/instance_name'}])
    assert (resp.status_code, resp.json()['instance_name']) == (200, None)


def test_instance_name_follows_display_name(bm):
    h.make_node(bm, 'sync', state='active')
    info = [{'op': 'add', 'path': '/instance_info/display_name', 'value': 'from-nova'}]
    # a client of any version setting instance_info names the node (Ironic's sync)
    resp = bm.patch('/v1/nodes/sync', headers=_v('1.50'), json=info)
    assert resp.status_code == 200
    assert bm.get('/v1/nodes/sync', headers=_v('1.104')).json()['instance_name'] == 'from-nova'
    # an instance_name already set is kept
    info[0]['value'] = 'renamed'
    resp = bm.patch('/v1/nodes/sync', headers=_v('1.104'), json=info)
    assert resp.json()['instance_name'] == 'from-nova'
    # given in the same patch, the patch's own value wins; a non-string is not copied
    resp = bm.patch('/v1/nodes/sync', headers=_v('1.104'), json=[
        {'op': 'remove', 'path': '/instance_name'},
        {'op': 'replace', 'path': '/instance_info', 'value': {'display_name': 7}}])
    assert resp.json()['instance_name'] is None
    resp = bm.patch('/v1/nodes/sync', headers=_v('1.104'), json=[
        {'op': 'add', 'path': '/instance_name', 'value': 'mine'},
        {'op': 'add', 'path': '/instance_info/display_name', 'value': 'other'}])
    assert resp.json()['instance_name'] == 'mine'
    # undeploying clears it with instance_info, as Ironic's tear down
    resp = bm.put('/v1/nodes/sync/states/provision', headers=_v('1.104'),
                  json={'target': 'deleted'})
    assert resp.status_code == 202
    after = bm.get('/v1/nodes/sync', headers=_v('1.104')).json()
    assert (after['instance_name'], after['instance_info']) == (None, {})


def test_instance_name_filter(bm):
    h.make_node(bm, 'f1')
    h.make_node(bm, 'f2')
    bm.patch('/v1/nodes/f1', headers=_v('1.104'),
             json=[{'op': 'add', 'path': '/instance_name', 'value': 'vm-a'}])
    resp = bm.get('/v1/nodes?instance_name=vm-a', headers=_v('1.104'))
    assert [n['name'] for n in resp.json()['nodes']] == ['f1']
    assert bm.get('/v1/nodes?instance_name=none', headers=_v('1.104')).json()['nodes'] == []
    resp = bm.get('/v1/nodes?instance_name=vm-a', headers=_v('1.103'))
    assert (resp.status_code, h.fault(resp)) == (
        406, 'instance_name is not acceptable in this API version')


def test_instance_name_has_instance_infos_rule(as_project, nodes):  # noqa: F811
    op = [{'op': 'add', 'path': '/instance_name', 'value': 'vm'}]
    status, body = as_project('PATCH', '/v1/nodes/mine', version='1.104', body=op)
    assert (status, body.get('instance_name')) == (200, 'vm'), body
    status, body = as_project('PATCH', '/v1/nodes/mine', roles='reader',
                              version='1.104', body=op)
    assert (status, _fault(body)) == (
        403, 'baremetal:node:update_instance_info is disallowed by policy')
    status, body = as_project('PATCH', '/v1/nodes/theirs', version='1.104', body=op)
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')


# 1.107: x-openstack-request-id beside openstack-request-id, which berth has
# always sent on every answer

@pytest.mark.parametrize('version', ['1.1', '1.106', '1.107', MAX])
def test_both_request_id_headers_at_every_version(bm, version):
    for resp in (bm.get('/v1/nodes', headers=_v(version)),
                 bm.get('/v1/nodes/missing', headers=_v(version))):
        rid = resp.headers['x-openstack-request-id']
        assert rid.startswith('req-') and resp.headers['openstack-request-id'] == rid


# 1.108 disable_ramdisk with the service verb (validated, then dropped)

def test_service_takes_disable_ramdisk_from_1_108(bm):
    node = h.make_node(bm, 'svc-dr', state='active')
    body = {'target': 'service', 'disable_ramdisk': True,
            'service_steps': [{'interface': 'vendor', 'step': 'x'}]}
    resp = _provision(bm, node, '1.107', body)
    assert (resp.status_code, h.fault(resp)) == (
        406, 'disable_ramdisk is not acceptable in this API version')
    resp = _provision(bm, node, '1.108', body)
    assert resp.status_code == 202, resp.text
    assert bm.get('/v1/nodes/svc-dr').json()['provision_state'] == 'active'
    resp = _provision(bm, node, '1.108', dict(body, disable_ramdisk='yes'))
    assert resp.status_code == 202
    resp = _provision(bm, node, '1.108', dict(body, disable_ramdisk='maybe'))
    assert (resp.status_code, h.fault(resp)) == (
        400, 'Invalid boolean value for disable_ramdisk: maybe')
    # still Ironic's servicing checks after it: steps required
    resp = _provision(bm, node, '1.108', {'target': 'service', 'disable_ramdisk': True})
    assert resp.status_code == 400 and '"service_steps" is required' in h.fault(resp)
    # and still only with manual cleaning or servicing
    resp = _provision(bm, node, '1.108', {'target': 'rebuild', 'disable_ramdisk': True})
    assert (resp.status_code, h.fault(resp)) == (
        400, 'disable_ramdisk is supported only with manual cleaning or servicing')


# 1.109 health: reported by Ironic's BMC polling; berth has no BMC, so null

def test_health_is_null_and_shown_from_1_109(bm):
    node = h.make_node(bm, 'hl')
    assert node['health'] is None
    assert 'health' not in bm.get('/v1/nodes/hl', headers=_v('1.108')).json()
    assert bm.get('/v1/nodes?fields=health', headers=_v('1.108')).status_code == 406
    resp = bm.get('/v1/nodes?fields=uuid,health', headers=_v('1.109'))
    assert resp.json()['nodes'][0]['health'] is None
    # read-only: not in a create body nor in a patch
    resp = bm.post('/v1/nodes', headers=_v('1.109'),
                   json={'driver': 'fake-hardware', 'health': 'OK'})
    assert resp.status_code == 400
    resp = bm.patch('/v1/nodes/hl', headers=_v('1.109'),
                    json=[{'op': 'add', 'path': '/health', 'value': 'OK'}])
    assert resp.status_code == 400


# 1.110 abort in ``wait call-back``: berth's nodes never wait, so abort is
# Ironic's state check from every state (the 1.110 gate is never reached)

def _not_in(verb, node, state):
    return ('The requested action "%s" can not be performed on node "%s" while it is '
            'in state "%s".' % (verb, node['uuid'], state))


@pytest.mark.parametrize('state', ['enroll', 'manageable', 'available', 'active'])
def test_abort_is_ironics_invalid_state_at_every_version(bm, state):
    node = h.make_node(bm, 'ab-' + state, state=state)
    history = bm.get('/v1/nodes/%s/history' % node['uuid']).json()['history']
    for version in ('1.13', '1.109', '1.110', MAX):
        resp = _provision(bm, node, version, {'target': 'abort'})
        assert (resp.status_code, h.fault(resp)) == (
            400, _not_in('abort', node, state)), version
    # the state comes first, as in Ironic: before the body's other members
    resp = _provision(bm, node, MAX, {'target': 'abort', 'disable_ramdisk': 'x'})
    assert (resp.status_code, h.fault(resp)) == (400, _not_in('abort', node, state))
    # below 1.13 the verb itself is Ironic's 406
    resp = _provision(bm, node, '1.12', {'target': 'abort'})
    assert (resp.status_code, h.fault(resp)) == (406, 'Request not acceptable.')
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()['provision_state'] == state
    assert bm.get('/v1/nodes/%s/history' % node['uuid']).json()['history'] == history


def test_abort_tenant_rules(as_project, nodes):  # noqa: F811
    path = '/v1/nodes/%s/states/provision'
    status, body = as_project('PUT', path % 'mine', version='1.110',
                              body={'target': 'abort'})
    assert (status, _fault(body)) == (400, _not_in('abort', nodes['mine'], 'available'))
    status, body = as_project('PUT', path % 'mine', roles='reader', version='1.110',
                              body={'target': 'abort'})
    assert (status, _fault(body)) == (
        403, 'baremetal:node:set_provision_state is disallowed by policy')
    status, body = as_project('PUT', path % 'theirs', version='1.110',
                              body={'target': 'abort'})
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')


# 1.113 history ``project``, 1.115 ``state``, ``target_provision_state`` and
# ``duration_seconds``: stored since 1.78, shown in detail from these versions

_BASE = {'uuid', 'created_at', 'severity', 'event', 'event_type', 'conductor', 'user',
         'links'}
_LATER = {'state', 'target_provision_state', 'duration_seconds'}


def test_history_detail_fields_by_version(bm, as_project, nodes):  # noqa: F811
    as_project('PUT', '/v1/nodes/mine/maintenance', body={'reason': 'p1 did it'})
    path = '/v1/nodes/%s/history' % nodes['mine']['uuid']
    for version, keys in (('1.112', _BASE), ('1.113', _BASE | {'project'}),
                          ('1.114', _BASE | {'project'}),
                          ('1.115', _BASE | {'project'} | _LATER)):
        events = bm.get(path + '?detail=true', headers=_v(version)).json()['history']
        assert all(set(e) == keys for e in events), version
        one = bm.get('%s/%s' % (path, events[0]['uuid']), headers=_v(version)).json()
        assert set(one) == keys, version
        listed = bm.get(path, headers=_v(version)).json()['history']
        assert set(listed[0]) == {'uuid', 'created_at', 'severity', 'event', 'links'}
    events = bm.get(path + '?detail=true', headers=_v('1.115')).json()['history']
    first, last = events[0], events[-1]
    assert (first['state'], first['target_provision_state']) == ('manageable', None)
    assert first['event'].endswith('(manage)')
    assert events[1]['state'] == 'available'
    assert isinstance(events[1]['duration_seconds'], int)
    assert events[1]['duration_seconds'] >= 0
    assert (last['event'], last['project'], last['user']) == (
        'Maintenance set: p1 did it', 'p1', 'u-p1')
    assert last['state'] == 'available'
    # the owner's reader sees them too (the history rule, unchanged)
    status, body = as_project('GET', path + '?detail=true', roles='reader',
                              version='1.115')
    assert status == 200 and body['history'][-1]['project'] == 'p1'
