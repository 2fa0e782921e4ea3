"""Ironic API 1.107 to 1.115 on /v1: the request id headers (1.107),
``disable_ramdisk`` with ``service`` (1.108), ``health`` (1.109), ``abort``
(1.110) and the node history detail fields (1.113, 1.115).

doc/source/ironic-microversions.md lists every version with its decision.
"""

import pytest

from tests.functional import baremetal_helpers as h
from tests.functional.test_baremetal_microversions_88_104 import MAX, _provision, _v
from tests.functional.test_baremetal_rbac import (  # noqa: F401  (fixtures)
    _fault,
    as_project,
    nodes,
)

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
