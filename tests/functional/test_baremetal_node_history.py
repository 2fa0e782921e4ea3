"""Node history (Ironic API 1.78): the events written, the listing, one event, the
version gate and the tenant rules of ``baremetal:node:history:get``."""

from tests.functional import baremetal_helpers as h
from tests.functional.test_baremetal_rbac import (  # noqa: F401  (fixtures)
    READER,
    _fault,
    as_project,
    nodes,
)

MISSING = '6c0a7d8e-0000-4000-8000-000000000000'


def _v(version):
    return {'X-OpenStack-Ironic-API-Version': version}


def test_provision_maintenance_and_power_changes_are_events(bm):
    node = h.make_node(bm, 'n1')            # manage, provide
    assert bm.put('/v1/nodes/n1/maintenance', json={'reason': 'disk'}).status_code == 202
    assert bm.delete('/v1/nodes/n1/maintenance').status_code == 202
    assert bm.put('/v1/nodes/n1/states/power',
                  json={'target': 'power on'}).status_code == 202
    body = bm.get('/v1/nodes/n1/history').json()
    events = [e['event'] for e in body['history']]
    assert events == ['Provision state changed from enroll to manageable (manage)',
                      'Provision state changed from manageable to available (provide)',
                      'Maintenance set: disk', 'Maintenance cleared',
                      'Power state set to power on (power on)']
    first = body['history'][0]
    assert set(first) == {'uuid', 'created_at', 'severity', 'event', 'links'}
    assert first['severity'] == 'INFO'
    assert first['links'][0]['href'].endswith(
        '/v1/nodes/%s/history/%s' % (node['uuid'], first['uuid']))
    # (1.113 and 1.115 add fields: test_baremetal_microversions_107_115.py)
    detail = bm.get('/v1/nodes/n1/history?detail=true', version='1.112').json()['history']
    assert [e['event_type'] for e in detail] == [
        'provisioning', 'provisioning', 'maintenance', 'maintenance', 'power']
    assert set(detail[0]) == {'uuid', 'created_at', 'severity', 'event', 'event_type',
                              'conductor', 'user', 'links'}
    one = bm.get('/v1/nodes/%s/history/%s' % (node['uuid'], first['uuid'])).json()
    assert one['event'] == first['event'] and one['event_type'] == 'provisioning'


def test_an_allocation_ended_by_a_conductor_is_an_event(bm):
    h.make_node(bm, 'n1')
    alloc = h.allocate(bm, resource_class='gold')
    assert alloc['state'] == 'active'
    assert bm.put('/v1/nodes/n1/states/provision',
                  json={'target': 'active'}).status_code == 202
    assert bm.put('/v1/nodes/n1/states/provision',
                  json={'target': 'deleted'}).status_code == 202      # the conductor's
    events = [e['event'] for e in bm.get('/v1/nodes/n1/history').json()['history']]
    assert events[-1] == 'Provision state changed from active to available (deleted)'


def test_paging_sorting_and_refusals(bm):
    h.make_node(bm, 'n1')
    bm.put('/v1/nodes/n1/maintenance', json={'reason': 'r'})
    page = bm.get('/v1/nodes/n1/history?limit=2').json()
    assert len(page['history']) == 2 and 'marker=%s' % page['history'][1]['uuid'] in (
        page['next'])
    rest = bm.get('/v1/nodes/n1/history?limit=2&marker=%s'
                  % page['history'][1]['uuid']).json()['history']
    assert [e['event'] for e in rest] == ['Maintenance set: r']
    newest = bm.get('/v1/nodes/n1/history?sort_dir=desc').json()['history']
    assert newest[0]['event'] == 'Maintenance set: r'
    for query in ('sort_key=event', 'sort_dir=up', 'limit=0', 'detail=maybe',
                  'bogus=1', 'marker=nope'):
        assert bm.get('/v1/nodes/n1/history?' + query).status_code == 400, query
    resp = bm.get('/v1/nodes/n1/history?marker=%s' % MISSING)
    assert resp.status_code == 404
    resp = bm.get('/v1/nodes/n1/history/%s' % MISSING)
    assert resp.status_code == 404
    assert h.fault(resp) == 'Node history record %s could not be found.' % MISSING
    assert bm.get('/v1/nodes/nosuch/history').status_code == 404


def test_history_needs_1_78_and_goes_with_its_node(bm):
    h.make_node(bm, 'n1', state='manageable')
    resp = bm.get('/v1/nodes/n1/history', headers=_v('1.77'))
    assert resp.status_code == 404
    assert 'not supported by berth' not in resp.text
    assert bm.get('/v1/nodes/n1/history', headers=_v('1.78')).status_code == 200
    assert bm.delete('/v1/nodes/n1').status_code == 204
    h.make_node(bm, 'n1', state='manageable')      # the name again: a new history
    assert len(bm.get('/v1/nodes/n1/history').json()['history']) == 1


def test_history_tenant_rules(bm, as_project, nodes):  # noqa: F811
    path = '/v1/nodes/%s/history'
    # the owner's member and reader read it; each event names who made it
    status, body = as_project('GET', path % 'mine', version='1.78')
    assert status == 200 and len(body['history']) == 2
    assert as_project('GET', path % 'mine', roles=READER, version='1.78')[0] == 200
    as_project('PUT', '/v1/nodes/mine/maintenance', body={'reason': 'p1 did it'})
    status, body = as_project('GET', (path % 'mine') + '?detail=true', version='1.78')
    assert body['history'][-1]['user'] == 'u-p1'
    # a lessee sees the node, not its history (Ironic's owner-only default)
    status, body = as_project('GET', path % 'leased', version='1.78')
    assert status == 403
    # another project's node is as if it did not exist
    status, body = as_project('GET', path % 'theirs', version='1.78')
    assert (status, _fault(body)) == (404, 'Node theirs could not be found.')
    event = bm.get(path % 'theirs').json()['history'][0]['uuid']
    status, _ = as_project('GET', '%s/%s' % (path % 'theirs', event), version='1.78')
    assert status == 404
    # a system reader reads every node's
    status, body = as_project('GET', path % 'theirs', project=None, roles=READER,
                              system=True, version='1.78')
    assert status == 200 and body['history']
