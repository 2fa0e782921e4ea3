"""Ironic API 1.88 onwards on /v1: the ``.json`` suffix (1.91), ``runbook`` (1.92),
``disable_power_off`` (1.95), RFC 6901 escapes in JSON patches (1.98) and
``instance_name`` (1.104); the versions about ports, portgroups, virtual media,
runbooks' own endpoints, inspection rules and firmware are bumped only.
1.107-1.115: test_baremetal_microversions_107_115.py.

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


# 1.91: below it (with a version header) Ironic serves a path ending in ``.json``
# without the suffix, and looks a node or allocation up again with it; from 1.91
# the suffix is part of the name

def test_a_json_suffix_is_stripped_below_1_91(bm):
    node = h.make_node(bm, 'plain')
    path = '/v1/nodes/%s.json' % node['uuid']
    resp = bm.get(path, headers=_v('1.90'))
    assert (resp.status_code, resp.json()['uuid']) == (200, node['uuid'])
    assert bm.get('/v1/nodes/plain.json', headers=_v('1.90')).json()['uuid'] == node['uuid']
    assert bm.get('/v1/nodes.json', headers=_v('1.90')).json()['nodes'][0]['name'] == 'plain'
    assert bm.get('/v1/nodes/plain/states.json', headers=_v('1.90')).status_code == 200
    op = [{'op': 'add', 'path': '/extra/k', 'value': 'v'}]
    resp = bm.patch(path, headers=_v('1.90'), json=op)
    assert (resp.status_code, resp.json()['extra']) == (200, {'k': 'v'})
    # a name that ends in .json: the stripped one first, then the name as given
    dotted = h.make_node(bm, 'dotted.json')
    assert bm.get('/v1/nodes/dotted.json', headers=_v('1.90')).json()['uuid'] == dotted['uuid']
    resp = bm.get('/v1/nodes/missing.json', headers=_v('1.90'))
    assert (resp.status_code, h.fault(resp)) == (404, 'Node missing.json could not be found.')
    assert bm.delete(path, headers=_v('1.90')).status_code == 204
    assert bm.get('/v1/nodes/%s' % node['uuid']).status_code == 404


@pytest.mark.parametrize('version', ['1.91', MAX])
def test_a_json_suffix_is_part_of_the_name_from_1_91(bm, version):
    node = h.make_node(bm, 'plain')
    dotted = h.make_node(bm, 'dotted.json')
    resp = bm.get('/v1/nodes/dotted.json', headers=_v(version))
    assert (resp.status_code, resp.json()['uuid']) == (200, dotted['uuid'])
    for method in ('GET', 'DELETE'):
        resp = bm.request(method, '/v1/nodes/%s.json' % node['uuid'], headers=_v(version))
        assert (resp.status_code, h.fault(resp)) == (
            404, 'Node %s.json could not be found.' % node['uuid'])
    resp = bm.patch('/v1/nodes/plain.json', headers=_v(version),
                    json=[{'op': 'add', 'path': '/extra/k', 'value': 'v'}])
    assert resp.status_code == 404
    assert bm.get('/v1/nodes.json', headers=_v(version)).status_code == 404
    assert bm.get('/v1/nodes/plain').json()['extra'] == {}


def test_allocations_and_the_json_suffix(bm):
    h.make_node(bm, 'an')
    alloc = h.allocate(bm, resource_class='gold')
    path = '/v1/allocations/%s.json' % alloc['uuid']
    resp = bm.get(path, headers=_v('1.91'))
    assert (resp.status_code, h.fault(resp)) == (
        404, 'Allocation %s.json could not be found.' % alloc['uuid'])
    assert bm.delete(path, headers=_v('1.91')).status_code == 404
    resp = bm.get(path, headers=_v('1.90'))
    assert (resp.status_code, resp.json()['uuid']) == (200, alloc['uuid'])
    assert bm.delete(path, headers=_v('1.90')).status_code == 204
    assert bm.get(path, headers=_v('1.90')).status_code == 404


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
