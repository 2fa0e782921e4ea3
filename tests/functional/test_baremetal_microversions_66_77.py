"""Ironic API 1.66-1.77 on /v1: network_data, deploy_steps and disable_ramdisk,
the deploy/undeploy verbs, boot_mode and secure_boot, the drivers ``fields``.

doc/source/ironic-microversions.md lists every version with its decision.
"""

import pytest

from tests.functional import baremetal_helpers as h

NETWORK_DATA = {
    'links': [{'id': 'port-1', 'type': 'phy', 'ethernet_mac_address': '52:54:00:4f:ef:b7'}],
    'networks': [{'id': 'net-1', 'link': 'port-1', 'network_id': 'n1',
                  'type': 'ipv4', 'ip_address': '10.0.0.5', 'netmask': '255.255.255.0'}],
    'services': [{'type': 'dns', 'address': '10.0.0.1'}],
}


def _v(version):
    return {'X-OpenStack-Ironic-API-Version': version}


def _provision(bm, node, version='latest', **body):
    return bm.put('/v1/nodes/%s/states/provision' % node, json=body,
                  headers=_v(version))


# 1.66 network_data

def test_network_data_is_stored_shown_from_1_66_and_patched(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'nd',
                                      'network_data': NETWORK_DATA})
    assert resp.status_code == 201, resp.text
    assert resp.json()['network_data'] == NETWORK_DATA
    assert bm.get('/v1/nodes/nd', headers=_v('1.66')).json()['network_data'] == (
        NETWORK_DATA)
    assert 'network_data' not in bm.get('/v1/nodes/nd', headers=_v('1.65')).json()
    assert bm.get('/v1/nodes/nd?fields=network_data', headers=_v('1.65')).status_code == 406
    shown = bm.get('/v1/nodes/nd?fields=network_data').json()
    assert shown['network_data'] == NETWORK_DATA
    resp = bm.patch('/v1/nodes/nd', json=[{'op': 'remove', 'path': '/network_data'}])
    assert resp.status_code == 200 and resp.json()['network_data'] == {}
    resp = bm.patch('/v1/nodes/nd', json=[{'op': 'add', 'path': '/network_data',
                                           'value': NETWORK_DATA}])
    assert resp.status_code == 200 and resp.json()['network_data'] == NETWORK_DATA
    # a node created without it has {} (Ironic's default)
    assert h.make_node(bm, 'plain')['network_data'] == {}


@pytest.mark.parametrize('value', [
    {'links': []},                                          # networks, services missing
    {'links': [{'id': 'x'}], 'networks': [], 'services': []},   # a link without type
    {'links': [], 'networks': [{'id': 'n'}], 'services': []},
    {'links': [], 'networks': [], 'services': [{'type': 'dns'}]},
    {'links': 'eth0', 'networks': [], 'services': []},
])
def test_a_network_data_that_is_no_document_is_400(bm, value):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'network_data': value})
    assert resp.status_code == 400, resp.text
    assert h.fault(resp).startswith('Invalid network_data: ')
    h.make_node(bm, 'n1')
    resp = bm.patch('/v1/nodes/n1', json=[{'op': 'add', 'path': '/network_data',
                                           'value': value}])
    assert resp.status_code == 400 and h.fault(resp).startswith('Invalid network_data: ')
    assert bm.get('/v1/nodes/n1').json()['network_data'] == {}


def test_network_data_below_1_66_is_406_and_not_an_object_is_400(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware',
                                      'network_data': NETWORK_DATA}, headers=_v('1.65'))
    assert resp.status_code == 406
    h.make_node(bm, 'n1')
    patch = [{'op': 'add', 'path': '/network_data', 'value': NETWORK_DATA}]
    assert bm.patch('/v1/nodes/n1', json=patch, headers=_v('1.65')).status_code == 406
    resp = bm.patch('/v1/nodes/n1', json=[{'op': 'add', 'path': '/network_data',
                                           'value': 'eth0'}])
    assert resp.status_code == 400
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'network_data': [1]})
    assert resp.status_code == 400


def test_network_data_is_capped_like_the_other_json_fields(berth, bm):
    berth.conf.set_override('max_json_bytes', 200, group='node')
    try:
        big = dict(NETWORK_DATA, links=NETWORK_DATA['links'] * 10)
        resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'network_data': big})
        assert resp.status_code == 400
        assert h.fault(resp) == 'network_data is larger than 200 bytes'
    finally:
        berth.conf.clear_override('max_json_bytes', group='node')


# 1.69 deploy_steps, 1.70 disable_ramdisk, 1.73 deploy/undeploy

STEP = {'interface': 'deploy', 'step': 'deploy', 'args': {}, 'priority': 100}


def test_deploy_steps_are_accepted_with_active_and_rebuild_from_1_69(bm):
    h.make_node(bm, 'n1')
    assert _provision(bm, 'n1', '1.69', target='active',
                      deploy_steps=[STEP]).status_code == 202
    assert bm.get('/v1/nodes/n1').json()['provision_state'] == 'active'
    assert _provision(bm, 'n1', target='rebuild',
                      deploy_steps=[dict(STEP, priority='5')]).status_code == 202
    # null or empty: none given
    assert _provision(bm, 'n1', '1.68', target='rebuild', deploy_steps=None).status_code == 202
    assert _provision(bm, 'n1', '1.68', target='rebuild', deploy_steps=[]).status_code == 202


def test_deploy_steps_refusals(bm):
    h.make_node(bm, 'n1')
    resp = _provision(bm, 'n1', '1.68', target='active', deploy_steps=[STEP])
    assert resp.status_code == 406
    assert h.fault(resp) == ('Request not acceptable. The minimal required API version '
                             'should be 1.69')
    resp = _provision(bm, 'n1', target='deploy', deploy_steps=[STEP])
    assert resp.status_code == 400
    assert h.fault(resp) == ('"deploy_steps" is only valid when setting target '
                             'provision state to active or rebuild')
    for bad in ([dict(STEP, interface='network')], [dict(STEP, priority=-1)],
                [{'interface': 'deploy', 'step': 'x'}], [dict(STEP, extra=1)],
                [dict(STEP, step='')], ['deploy']):
        resp = _provision(bm, 'n1', target='active', deploy_steps=bad)
        assert resp.status_code == 400, bad
        assert h.fault(resp).startswith('Schema error for deploy_steps: ')
    resp = _provision(bm, 'n1', target='active', deploy_steps={'a': 1})
    assert resp.status_code == 400
    assert bm.get('/v1/nodes/n1').json()['provision_state'] == 'available'


@pytest.mark.parametrize('version', ['1.69', '1.70', 'latest'])
def test_disable_ramdisk_is_only_for_cleaning_which_berth_does_not_serve(bm, version):
    h.make_node(bm, 'n1')
    resp = _provision(bm, 'n1', version, target='active', disable_ramdisk=True)
    assert resp.status_code == 400
    assert h.fault(resp) == ('disable_ramdisk is supported only with manual cleaning '
                             'or servicing')
    resp = _provision(bm, 'n1', version, target='active', disable_ramdisk='maybe')
    assert resp.status_code == 400
    assert bm.get('/v1/nodes/n1').json()['provision_state'] == 'available'
    # null: not given
    assert _provision(bm, 'n1', version, target='active',
                      disable_ramdisk=None).status_code == 202


def test_deploy_and_undeploy_verbs_need_1_73(bm):
    h.make_node(bm, 'n1')
    for version in ('1.72', '1.65'):
        resp = _provision(bm, 'n1', version, target='deploy')
        assert resp.status_code == 406 and h.fault(resp) == 'Request not acceptable.'
    assert _provision(bm, 'n1', '1.73', target='deploy').status_code == 202
    assert bm.get('/v1/nodes/n1').json()['provision_state'] == 'active'
    assert _provision(bm, 'n1', '1.72', target='undeploy').status_code == 406
    assert _provision(bm, 'n1', '1.73', target='undeploy').status_code == 202
    assert bm.get('/v1/nodes/n1').json()['provision_state'] == 'available'
    # the old names stay
    assert _provision(bm, 'n1', '1.72', target='active').status_code == 202


# 1.75 boot_mode/secure_boot, 1.76 changing them

def test_boot_fields_are_shown_from_1_75_in_the_node_and_its_states(bm):
    h.make_node(bm, 'n1')
    node = bm.get('/v1/nodes/n1', headers=_v('1.75')).json()
    assert (node['boot_mode'], node['secure_boot']) == (None, None)
    old = bm.get('/v1/nodes/n1', headers=_v('1.74')).json()
    assert 'boot_mode' not in old and 'secure_boot' not in old
    states = bm.get('/v1/nodes/n1/states', headers=_v('1.75')).json()
    assert states['boot_mode'] is None and states['secure_boot'] is None
    assert 'boot_mode' not in bm.get('/v1/nodes/n1/states', headers=_v('1.74')).json()
    assert bm.get('/v1/nodes?fields=boot_mode', headers=_v('1.74')).status_code == 406
    assert bm.get('/v1/nodes?fields=secure_boot').status_code == 200
    # read-only: neither created nor patched
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'boot_mode': 'uefi'})
    assert resp.status_code == 400
    resp = bm.patch('/v1/nodes/n1', json=[{'op': 'add', 'path': '/boot_mode',
                                           'value': 'uefi'}])
    assert resp.status_code == 400


def test_boot_mode_and_secure_boot_are_set_from_1_76(bm):
    h.make_node(bm, 'n1')
    resp = bm.put('/v1/nodes/n1/states/boot_mode', json={'target': 'uefi'})
    assert resp.status_code == 202, resp.text
    assert resp.headers['location'].endswith('/v1/nodes/%s/states'
                                             % bm.get('/v1/nodes/n1').json()['uuid'])
    resp = bm.put('/v1/nodes/n1/states/secure_boot', json={'target': True})
    assert resp.status_code == 202
    states = bm.get('/v1/nodes/n1/states').json()
    assert (states['boot_mode'], states['secure_boot']) == ('uefi', True)
    assert bm.put('/v1/nodes/n1/states/secure_boot',
                  json={'target': 'false'}).status_code == 202
    assert bm.put('/v1/nodes/n1/states/boot_mode', json={'target': 'bios'}).status_code == 202
    node = bm.get('/v1/nodes/n1').json()
    assert (node['boot_mode'], node['secure_boot']) == ('bios', False)


def test_boot_mode_refusals(bm):
    h.make_node(bm, 'n1')
    for path, body in (('boot_mode', {'target': 'uefi'}), ('secure_boot', {'target': True})):
        resp = bm.put('/v1/nodes/n1/states/%s' % path, json=body, headers=_v('1.75'))
        assert resp.status_code == 404
        assert h.fault(resp) == ('This endpoint is supported starting with the API '
                                 'version 1.76')
        assert bm.put('/v1/nodes/nosuch/states/%s' % path, json=body).status_code == 404
        assert bm.put('/v1/nodes/n1/states/%s' % path, json={}).status_code == 400
    resp = bm.put('/v1/nodes/n1/states/boot_mode', json={'target': 'legacy'})
    assert resp.status_code == 400
    assert h.fault(resp) == ('Invalid boot mode legacy requested for node. Allowed boot '
                             'modes are: bios, uefi')
    for bad in ('maybe', None):
        resp = bm.put('/v1/nodes/n1/states/secure_boot', json={'target': bad})
        assert resp.status_code == 400, bad
        assert h.fault(resp).startswith('Invalid secure_boot %s requested' % (bad,))
    assert bm.put('/v1/nodes/n1/states/secure_boot', json={'target': 3}).status_code == 400
    assert bm.put('/v1/nodes/n1/states/boot_mode', json={'target': 3}).status_code == 400
    node = bm.get('/v1/nodes/n1').json()
    assert (node['boot_mode'], node['secure_boot']) == (None, None)


# 1.77 drivers fields

def test_driver_fields_select_from_1_77(bm):
    resp = bm.get('/v1/drivers?fields=name', headers=_v('1.77'))
    assert resp.status_code == 200
    assert [set(d) for d in resp.json()['drivers']] == [{'name', 'links'}]
    one = bm.get('/v1/drivers/fake-hardware?fields=name,default_boot_interface').json()
    assert set(one) == {'name', 'default_boot_interface', 'links'}
    assert bm.get('/v1/drivers/fake-hardware?fields=name',
                  headers=_v('1.76')).status_code == 406

