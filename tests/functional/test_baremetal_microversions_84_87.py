"""Ironic API 1.84 onwards on /v1: the inspection callback (1.84, out of scope),
the ``unhold`` verb (1.85), ``firmware_interface`` (1.86), the ``service`` verb and
``service_step`` (1.87).

doc/source/ironic-microversions.md lists every version with its decision.
"""

import json

import pytest
import webob

from api.baremetal import app as baremetal_app
from tests.functional import baremetal_helpers as h
from tests.functional.test_baremetal_rbac import (  # noqa: F401  (fixtures)
    ADMIN,
    MEMBER,
    READER,
    _fault,
    as_project,
    nodes,
)

UNSUPPORTED = 'not supported by berth: %s (see doc/source/api/baremetal.md)'


def _v(version):
    return {'X-OpenStack-Ironic-API-Version': version}


# 1.84 /v1/continue_inspection: the ramdisk's inspection callback, not served

def test_continue_inspection_is_not_served_nor_linked_at_1_84(bm):
    # Ironic's /v1 links it from 1.84; berth serves no inspection: no link
    assert 'continue_inspection' not in bm.get('/v1', headers=_v('1.84')).json()
    for version in ('1.1', '1.83', '1.84'):
        resp = bm.post('/v1/continue_inspection', headers=_v(version),
                       json={'inventory': {}})
        assert (resp.status_code, h.fault(resp)) == (
            404, UNSUPPORTED % '/v1/continue_inspection')
    resp = bm.post('/v1/continue_inspection', headers=_v('1.84'), data='not json')
    assert resp.status_code == 404


# 1.85 unhold: Ironic's verb out of ``clean hold``/``deploy hold``; berth's nodes
# never hold, and Ironic checks the state before the verb's version

def _not_in(verb, node, state):
    return ('The requested action "%s" can not be performed on node "%s" while it is '
            'in state "%s".' % (verb, node['uuid'], state))


def _provision(bm, node, version, **body):
    return bm.put('/v1/nodes/%s/states/provision' % node['uuid'], headers=_v(version),
                  json=body)


@pytest.mark.parametrize('state', ['enroll', 'manageable', 'available', 'active'])
def test_unhold_is_ironics_invalid_state_at_every_version(bm, state):
    node = h.make_node(bm, 'n-' + state, state=state)
    history = bm.get('/v1/nodes/%s/history' % node['uuid']).json()['history']
    for version in ('1.85', '1.84', '1.1'):
        resp = _provision(bm, node, version, target='unhold')
        assert (resp.status_code, h.fault(resp)) == (
            400, _not_in('unhold', node, state))
    after = bm.get('/v1/nodes/%s' % node['uuid']).json()
    assert after['provision_state'] == state
    assert bm.get('/v1/nodes/%s/history' % node['uuid']).json()['history'] == history


def test_unhold_bad_input_is_a_4xx(bm):
    node = h.make_node(bm, 'bad')
    for body in ({'target': 123}, {'target': None}, {}, {'target': ['unhold']}):
        resp = bm.put('/v1/nodes/bad/states/provision', json=body)
        assert resp.status_code == 400, (body, resp.text)
    resp = bm.put('/v1/nodes/bad/states/provision', data='{"target": ')
    assert resp.status_code == 400
    resp = _provision(bm, node, '1.85', target='unhold', disable_ramdisk=True)
    assert (resp.status_code, h.fault(resp)) == (
        400, 'disable_ramdisk is supported only with manual cleaning or servicing')
    resp = _provision(bm, node, '1.85', target='unhold',
                      deploy_steps=[{'interface': 'deploy', 'step': 's', 'args': {},
                                     'priority': 1}])
    assert resp.status_code == 400
    assert '"deploy_steps" is only valid' in h.fault(resp)
    resp = bm.put('/v1/nodes/missing/states/provision', json={'target': 'unhold'})
    assert (resp.status_code, h.fault(resp)) == (404, 'Node missing could not be found.')


def test_unhold_tenant_rules(as_project, nodes):  # noqa: F811
    path = '/v1/nodes/%s/states/provision'
    # the owner's member passes the rule: the answer is the node's state
    status, body = as_project('PUT', path % 'mine', version='1.85',
                              body={'target': 'unhold'})
    assert (status, _fault(body)) == (400, _not_in('unhold', nodes['mine'], 'available'))
    status, body = as_project('PUT', path % 'mine', roles=READER, version='1.85',
                              body={'target': 'unhold'})
    assert (status, _fault(body)) == (
        403, 'baremetal:node:set_provision_state is disallowed by policy')
    status, body = as_project('PUT', path % 'theirs', roles=MEMBER, version='1.85',
                              body={'target': 'unhold'})
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')


# 1.86 firmware_interface: berth serves no firmware, so fake-hardware has only
# Ironic's do-nothing ``no-firmware`` (Ironic's default enabled list)

_NO_FIRMWARE = ("Could not find the following interface in the "
                "'ironic.hardware.interfaces.firmware' entrypoint: fake. Valid interfaces "
                "are ['no-firmware'].")


def test_firmware_interface_is_shown_from_1_86(bm):
    node = h.make_node(bm, 'fw')
    assert node['firmware_interface'] == 'no-firmware'
    assert 'firmware_interface' not in bm.get('/v1/nodes/fw', headers=_v('1.85')).json()
    resp = bm.get('/v1/nodes/fw?fields=firmware_interface', headers=_v('1.86'))
    assert resp.json()['firmware_interface'] == 'no-firmware'
    resp = bm.get('/v1/nodes/fw?fields=firmware_interface', headers=_v('1.85'))
    assert resp.status_code == 406
    listed = bm.get('/v1/nodes/detail', headers=_v('1.86')).json()['nodes']
    assert {n['firmware_interface'] for n in listed} == {'no-firmware'}
    driver = bm.get('/v1/drivers/fake-hardware', headers=_v('1.86')).json()
    assert (driver['default_firmware_interface'],
            driver['enabled_firmware_interfaces']) == ('no-firmware', ['no-firmware'])
    driver = bm.get('/v1/drivers/fake-hardware', headers=_v('1.85')).json()
    assert 'default_firmware_interface' not in driver
    assert 'enabled_firmware_interfaces' not in driver


def test_firmware_interface_on_create_and_patch(bm):
    resp = bm.post('/v1/nodes', headers=_v('1.86'), json={
        'driver': 'fake-hardware', 'name': 'fw1', 'firmware_interface': 'no-firmware'})
    assert (resp.status_code, resp.json()['firmware_interface']) == (201, 'no-firmware')
    for value, status in (('fake', 400), (12, 400), (['no-firmware'], 400)):
        resp = bm.post('/v1/nodes', headers=_v('1.86'), json={
            'driver': 'fake-hardware', 'firmware_interface': value})
        assert resp.status_code == status, (value, resp.text)
    resp = bm.post('/v1/nodes', headers=_v('1.86'), json={
        'driver': 'fake-hardware', 'firmware_interface': 'fake'})
    assert h.fault(resp) == _NO_FIRMWARE
    resp = bm.post('/v1/nodes', headers=_v('1.85'), json={
        'driver': 'fake-hardware', 'firmware_interface': 'no-firmware'})
    assert resp.status_code == 406
    path = '/v1/nodes/fw1'
    op = [{'op': 'replace', 'path': '/firmware_interface', 'value': 'fake'}]
    resp = bm.patch(path, headers=_v('1.86'), json=op)
    assert (resp.status_code, h.fault(resp)) == (400, _NO_FIRMWARE)
    op[0]['value'] = 'no-firmware'
    assert bm.patch(path, headers=_v('1.85'), json=op).status_code == 406
    assert bm.patch(path, headers=_v('1.86'), json=op).status_code == 200
    resp = bm.patch(path, headers=_v('1.86'),
                    json=[{'op': 'remove', 'path': '/firmware_interface'}])
    assert (resp.status_code, resp.json()['firmware_interface']) == (200, 'no-firmware')
    # the one value is no change, so an active node takes it (Ironic's delta rule)
    active = h.make_node(bm, 'fw-active', state='active')
    resp = bm.patch('/v1/nodes/%s' % active['uuid'], headers=_v('1.86'), json=op)
    assert resp.status_code == 200


def test_firmware_interface_tenant_rules(as_project, nodes):  # noqa: F811
    op = [{'op': 'replace', 'path': '/firmware_interface', 'value': 'no-firmware'}]
    # Ironic's rule of every driver interface: system member or the owner's admin
    status, body = as_project('PATCH', '/v1/nodes/mine', roles=ADMIN, version='1.86',
                              body=op)
    assert (status, body.get('firmware_interface')) == (200, 'no-firmware'), body
    for roles in (MEMBER, READER):
        status, body = as_project('PATCH', '/v1/nodes/mine', roles=roles,
                                  version='1.86', body=op)
        assert status == 403
    status, body = as_project('PATCH', '/v1/nodes/mine', version='1.86', body=op)
    assert _fault(body) == 'baremetal:node:update:driver_interfaces is disallowed by policy'
    status, body = as_project('PATCH', '/v1/nodes/theirs', version='1.86', body=op)
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')


# 1.87 the service verb and service_step: Ironic services an active node with
# the steps given; berth runs no steps, so it is back in active at once

_STEP = {'interface': 'vendor', 'step': 'log_passthrough', 'args': {}, 'order': 1}


def test_service_serves_an_active_node_at_1_87(bm):
    node = h.make_node(bm, 'svc', state='active')
    assert node['service_step'] == {}
    assert 'service_step' not in bm.get('/v1/nodes/svc', headers=_v('1.86')).json()
    assert bm.get('/v1/nodes/svc?fields=service_step',
                  headers=_v('1.86')).status_code == 406
    resp = _provision(bm, node, '1.87', target='service', service_steps=[_STEP])
    assert resp.status_code == 202, resp.text
    after = bm.get('/v1/nodes/svc').json()
    assert (after['provision_state'], after['target_provision_state'],
            after['service_step'], after['instance_uuid']) == (
        'active', None, {}, node['instance_uuid'])
    events = bm.get('/v1/nodes/svc/history').json()['history']
    assert events[-1]['event'] == 'Provision state changed from active to active (service)'
    # the step shape Ironic takes: interface and step, args and order optional
    resp = _provision(bm, node, '1.87', target='service',
                      service_steps=[{'interface': 'bios', 'step': 'apply'}])
    assert resp.status_code == 202


@pytest.mark.parametrize('state', ['enroll', 'manageable', 'available'])
def test_service_is_ironics_invalid_state_elsewhere(bm, state):
    node = h.make_node(bm, 'svc-' + state, state=state)
    # Ironic checks the state before the verb's version and its parameters
    for version, body in (('1.87', {'service_steps': [_STEP]}), ('1.86', {}),
                          ('1.87', {'disable_ramdisk': True})):
        resp = _provision(bm, node, version, target='service', **body)
        assert (resp.status_code, h.fault(resp)) == (
            400, _not_in('service', node, state))


def test_service_gates_and_bad_input(bm):
    node = h.make_node(bm, 'svc-bad', state='active')
    resp = _provision(bm, node, '1.86', target='service', service_steps=[_STEP])
    assert (resp.status_code, h.fault(resp)) == (406, 'Request not acceptable.')
    resp = _provision(bm, node, '1.87', target='service')
    assert (resp.status_code, h.fault(resp)) == (
        400, '"service_steps" is required when setting target provision state to service')
    resp = _provision(bm, node, '1.87', target='service', service_steps=[])
    assert resp.status_code == 400
    resp = _provision(bm, node, '1.87', target='rebuild', service_steps=[_STEP])
    assert (resp.status_code, h.fault(resp)) == (
        400, '"service_steps" is only valid when setting target provision state to '
             'service')
    resp = _provision(bm, node, '1.87', target='service', service_steps=[_STEP],
                      disable_ramdisk=True)
    assert (resp.status_code, h.fault(resp)) == (
        406, 'disable_ramdisk is not acceptable in this API version')
    for steps in ([{'interface': 'power'}], [{'interface': 'boot', 'step': 's'}],
                  [{'interface': 'power', 'step': ''}],
                  [{'interface': 'power', 'step': 's', 'priority': 1}],
                  [{'interface': 'power', 'step': 's', 'order': -1}],
                  [{'interface': 'power', 'step': 's', 'args': []}], ['x'],
                  [{'interface': 'power', 'step': 'x' * 10000, 'args': {'a': 'b' * 5000},
                    'junk': 'y' * 5000}]):
        resp = _provision(bm, node, '1.87', target='service', service_steps=steps)
        assert resp.status_code == 400, (steps, resp.text)
        assert h.fault(resp).startswith('Invalid service_steps: '), h.fault(resp)
        assert len(h.fault(resp)) < 2000
    for steps in ('x', {'interface': 'power'}, 3):
        resp = _provision(bm, node, '1.87', target='service', service_steps=steps)
        assert resp.status_code == 400, (steps, resp.text)
    assert bm.get('/v1/nodes/svc-bad').json()['provision_state'] == 'active'
    resp = bm.patch('/v1/nodes/svc-bad', headers=_v('1.87'),
                    json=[{'op': 'replace', 'path': '/service_step', 'value': {}}])
    assert resp.status_code == 400


def test_service_tenant_rules(bm, as_project, nodes):  # noqa: F811
    path = '/v1/nodes/%s/states/provision'
    mine = h.make_node(bm, 'mine-active', owner='p1', state='active')
    body = {'target': 'service', 'service_steps': [_STEP]}
    status, _ = as_project('PUT', path % 'mine-active', version='1.87', body=body)
    assert status == 202
    status, resp = as_project('PUT', path % 'mine-active', roles=READER, version='1.87',
                              body=body)
    assert (status, _fault(resp)) == (
        403, 'baremetal:node:set_provision_state is disallowed by policy')
    status, resp = as_project('PUT', path % 'theirs', version='1.87', body=body)
    assert (status, _fault(resp)) == (404, 'Node theirs could not be found.')
    # a lessee member may change the provision state only as its admin (Ironic)
    status, resp = as_project('PUT', path % 'leased', version='1.87', body=body)
    assert status == 403
    assert bm.get('/v1/nodes/%s' % mine['uuid']).json()['provision_state'] == 'active'


def test_service_steps_have_their_own_rule(bm, berth, tmp_path):
    """With ``…:service_steps`` denied, a caller passing the provision rule gets 403."""
    node = h.make_node(bm, 'svc-rule', owner='p1', state='active')
    path = tmp_path / 'policy.yaml'
    path.write_text('"baremetal:node:set_provision_state:service_steps": "!"\n')
    berth.conf.set_override('policy_file', str(path), group='oslo_policy')
    berth.conf.set_override('auth_strategy', 'keystone', group='api')
    try:
        app = baremetal_app.BaremetalApp(berth.conf, berth.db, berth.conductor_api)
    finally:
        berth.conf.clear_override('auth_strategy', group='api')
        berth.conf.clear_override('policy_file', group='oslo_policy')
    req = webob.Request.blank(
        '/v1/nodes/%s/states/provision' % node['uuid'], method='PUT',
        headers={'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u', 'X-Roles': MEMBER,
                 'X-Project-Id': 'p1', 'X-Project-Name': 'p1',
                 'X-OpenStack-Ironic-API-Version': '1.87'})
    req.body = json.dumps({'target': 'service', 'service_steps': [_STEP]}).encode()
    req.content_type = 'application/json'
    resp = req.get_response(app)
    assert (resp.status_int, _fault(resp.json)) == (
        403, 'baremetal:node:set_provision_state:service_steps is disallowed by policy')
    assert bm.get('/v1/nodes/svc-rule').json()['provision_state'] == 'active'
