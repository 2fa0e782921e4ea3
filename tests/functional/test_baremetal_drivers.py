"""/v1/drivers: the fake-hardware hardware type as Ironic lists and shows it, its
gates, and the system-scoped rules of /v1/drivers and /v1/chassis."""

import pytest

from api.baremetal.schemas import driver as driver_schema
from tests.functional import baremetal_helpers as h
from tests.functional.test_baremetal_rbac import ADMIN, READER, as_project  # noqa: F401

KINDS = sorted(driver_schema.FAKE_HARDWARE)


def test_list_shows_fake_hardware_on_the_live_conductors(bm, berth):
    hosts = sorted(berth.conductor_api.ring.members())
    assert hosts
    [driver] = bm.get('/v1/drivers').json()['drivers']
    assert driver['name'] == 'fake-hardware' and driver['hosts'] == hosts
    assert driver['type'] == 'dynamic'
    assert driver['links'][0]['href'].endswith('/v1/drivers/fake-hardware')
    assert driver['properties'][0]['href'].endswith('/v1/drivers/fake-hardware/properties')
    assert not any(k.startswith('default_') for k in driver)


def test_detail_and_show_have_every_interface(bm):
    [listed] = bm.get('/v1/drivers?detail=true').json()['drivers']
    shown = bm.get('/v1/drivers/fake-hardware').json()
    assert listed == shown
    for kind in ('boot', 'deploy', 'management', 'power'):
        assert shown['default_%s_interface' % kind] == 'fake'
        assert 'fake' in shown['enabled_%s_interfaces' % kind]
    for kind in KINDS:
        enabled, default = driver_schema.FAKE_HARDWARE[kind]
        assert shown['enabled_%s_interfaces' % kind] == list(enabled)
        assert shown['default_%s_interface' % kind] == default
    assert shown['default_network_interface'] == 'noop'
    assert shown['default_storage_interface'] == 'noop'


@pytest.mark.parametrize('version,absent,present', [
    ('1.1', {'type', 'properties', 'default_boot_interface'}, set()),
    ('1.14', {'type', 'default_boot_interface'}, {'properties'}),
    ('1.30', {'default_storage_interface', 'default_rescue_interface',
              'default_bios_interface'}, {'type', 'default_boot_interface'}),
    ('1.33', {'default_rescue_interface'}, {'default_storage_interface'}),
    ('1.40', set(), {'default_bios_interface', 'enabled_rescue_interfaces'}),
])
def test_fields_follow_the_version(bm, version, absent, present):
    shown = bm.get('/v1/drivers/fake-hardware', version=version).json()
    assert not absent & set(shown) and present <= set(shown)


@pytest.mark.parametrize('path,version,status,text', [
    ('/v1/drivers?detail=true', '1.29', 406, None),
    ('/v1/drivers?type=dynamic', '1.29', 406, None),
    ('/v1/drivers?type=bogus', 'latest', 400,
     '"type" filter must be one of "classic" or "dynamic", if specified.'),
    ('/v1/drivers?detail=true&fields=name', 'latest', 400,
     'Can not specify ?detail=True and fields in the same request.'),
    ('/v1/drivers?fields=name', '1.76', 406, None),
    ('/v1/drivers/fake-hardware?fields=name', '1.76', 406, None),
    # the list without detail has no interfaces to select
    ('/v1/drivers?fields=name,default_boot_interface', 'latest', 400,
     'Field(s) "default_boot_interface" are not valid'),
    ('/v1/drivers/fake-hardware?fields=bogus', 'latest', 400,
     'Field(s) "bogus" are not valid'),
    ('/v1/drivers?detail=maybe', 'latest', 400, None),
    ('/v1/drivers?bogus=1', 'latest', 400, None),
    ('/v1/drivers/ipmi', 'latest', 404,
     'Could not find the following driver(s) or hardware type(s): ipmi.'),
])
def test_refusals(bm, path, version, status, text):
    resp = bm.get(path, version=version)
    assert resp.status_code == status, resp.text
    if text:
        assert h.fault(resp) == text


def test_classic_filter_is_empty_and_dynamic_lists(bm):
    assert bm.get('/v1/drivers?type=classic').json() == {'drivers': []}
    names = [d['name'] for d in bm.get('/v1/drivers?type=dynamic').json()['drivers']]
    assert names == ['fake-hardware']


def test_driver_subresources_are_not_served(bm):
    resp = bm.get('/v1/drivers/fake-hardware/properties')
    assert resp.status_code == 404
    assert 'not supported by berth' in h.fault(resp)


def test_only_offered_drivers_are_accepted_for_nodes(bm):
    for name in ('ipmi', 'redfish', 'manual-management'):
        resp = bm.post('/v1/nodes', json={'driver': name})
        assert resp.status_code == 400, resp.text
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_project_scoped_callers_cannot_read_drivers_or_touch_chassis(as_project):  # noqa: F811
    assert as_project('GET', '/v1/drivers', roles=ADMIN)[0] == 403
    assert as_project('GET', '/v1/chassis', roles=ADMIN)[0] == 403
    assert as_project('POST', '/v1/chassis', roles=ADMIN, body={})[0] == 403
    assert as_project('GET', '/v1/drivers', project=None, roles=READER,
                      system=True)[0] == 200
    # a system reader may not create; a system admin may
    assert as_project('POST', '/v1/chassis', project=None, roles=READER, system=True,
                      body={})[0] == 403
    status, body = as_project('POST', '/v1/chassis', project=None, roles=ADMIN,
                              system=True, body={'description': 'r'})
    assert status == 201
    status, listed = as_project('GET', '/v1/chassis', project=None, roles=READER,
                                system=True)
    assert status == 200 and listed['chassis'][0]['uuid'] == body['uuid']
    # update is a system member's, delete a system admin's
    path = '/v1/chassis/%s' % body['uuid']
    patch = [{'op': 'add', 'path': '/extra/a', 'value': 1}]
    assert as_project('PATCH', path, project=None, roles=READER, system=True,
                      body=patch)[0] == 403
    assert as_project('PATCH', path, project=None, roles='member,reader', system=True,
                      body=patch)[0] == 200
    assert as_project('DELETE', path, project=None, roles='member,reader',
                      system=True)[0] == 403
    assert as_project('DELETE', path, project=None, roles=ADMIN, system=True)[0] == 204
