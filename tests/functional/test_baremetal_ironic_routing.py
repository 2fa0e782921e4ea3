"""/v1 as Ironic routes and gates it: paths without /v1, microversion gates, inspection fields."""

import pytest

from tests.functional import baremetal_helpers as h

WAIT = {'Berth-Allocation-Wait': '60'}
NOT_ACCEPTABLE = 'Request not acceptable.'


def _allocated(bm):
    node = h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'name': 'a1'},
                   headers=WAIT)
    assert resp.status_code == 201 and resp.json()['state'] == 'active', resp.text
    return node, resp.json()


def test_paths_without_v1_are_routed_as_their_v1_twins(bm):
    node, alloc = _allocated(bm)
    for path in ('/nodes/n1', '/nodes/%s' % node['uuid'], '/nodes/n1/allocation',
                 '/allocations', '/allocations/a1', '/nodes',
                 '/nodes/detail?instance_uuid=%s' % alloc['uuid'], '/nodes/n1/states'):
        resp, twin = bm.get(path), bm.get('/v1' + path)
        assert resp.status_code == 200, (path, resp.text)
        assert resp.json() == twin.json(), path
    listed = bm.get('/nodes/detail?instance_uuid=%s' % alloc['uuid']).json()['nodes']
    assert [n['uuid'] for n in listed] == [node['uuid']]
    assert bm.get('/nodes/n1/allocation').json()['uuid'] == alloc['uuid']
    # writes too
    resp = bm.patch('/nodes/n1', json=[{'op': 'add', 'path': '/extra/k', 'value': 'v'}])
    assert resp.status_code == 200, resp.text
    assert bm.get('/v1/nodes/n1').json()['extra'] == {'k': 'v'}
    assert bm.delete('/allocations/a1').status_code == 204
    assert bm.get('/v1/allocations/a1').status_code == 404
    resp = bm.post('/allocations', json={'resource_class': 'gold'}, headers=WAIT)
    assert resp.status_code == 201 and resp.json()['node_uuid'] == node['uuid'], resp.text


def test_every_link_of_an_answer_resolves(bm):
    node, alloc = _allocated(bm)
    for body, kind in ((bm.get('/v1/nodes/n1').json(), 'node'),
                       (bm.get('/v1/allocations/a1').json(), 'allocation')):
        rels = {link['rel'] for link in body['links']}
        assert rels == {'self', 'bookmark'}, kind
        for link in body['links']:
            resp = bm.session.get(link['href'], headers={bm.HEADER: 'latest'})
            assert resp.status_code == 200, (kind, link)
            assert resp.json()['uuid'] == body['uuid'], (kind, link)
    v1 = bm.get('/v1').json()
    for link in v1['nodes'] + v1['allocations']:
        resp = bm.session.get(link['href'], headers={bm.HEADER: 'latest'})
        assert resp.status_code == 200, link
        assert 'nodes' in resp.json() or 'allocations' in resp.json(), link


def test_the_root_stays_the_root_and_unknown_paths_stay_404(bm):
    assert bm.get('/', version='').json()['name'] == 'OpenStack Ironic API'
    resp = bm.get('/ports')
    assert resp.status_code == 404
    assert h.fault(resp) == 'not supported by berth: /ports (see doc/source/api/baremetal.md)'
    resp = bm.get('/nothing-here')
    assert resp.status_code == 404
    assert h.fault(resp) == 'The resource could not be found.'


def test_resource_class_needs_1_21_on_create_patch_and_filter(bm):
    node = h.make_node(bm, 'n1', resource_class='gold')
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'resource_class': 'x'},
                   version='1.1')
    assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE
    assert [n['uuid'] for n in bm.get('/v1/nodes').json()['nodes']] == [node['uuid']]
    patch = [{'op': 'replace', 'path': '/resource_class', 'value': 'silver'}]
    resp = bm.patch('/v1/nodes/%s' % node['uuid'], json=patch, version='1.1')
    assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE
    assert bm.get('/v1/nodes/n1').json()['resource_class'] == 'gold'
    resp = bm.get('/v1/nodes?resource_class=gold', version='1.20')
    assert resp.status_code == 406
    assert h.fault(resp) == ('Request not acceptable. The minimal required API '
                             'version should be 1.21')
    assert bm.get('/v1/nodes?resource_class=gold', version='1.21').status_code == 200
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'resource_class': 'x'},
                   version='1.21')
    assert resp.status_code == 201, resp.text


@pytest.mark.parametrize('param, since, named', [
    ('provision_state=available', '1.9', False), ('driver=fake-hardware', '1.16', True),
    ('conductor_group=g', '1.46', True), ('owner=p', '1.50', True),
    ('lessee=p', '1.65', True)])
def test_node_filters_are_406_below_their_version(bm, param, since, named):
    minor = int(since.split('.')[1])
    resp = bm.get('/v1/nodes?' + param, version='1.%d' % (minor - 1))
    assert resp.status_code == 406, resp.text
    assert h.fault(resp) == (
        'Request not acceptable. The minimal required API version should be %s'
        % since if named else NOT_ACCEPTABLE)
    assert bm.get('/v1/nodes?' + param, version=since).status_code == 200


@pytest.mark.parametrize('field, value, since', [
    ('name', 'n9', '1.5'), ('conductor_group', 'g', '1.46'), ('owner', 'p', '1.50'),
    ('description', 'd', '1.51'), ('lessee', 'p', '1.65')])
def test_a_field_newer_than_the_version_is_406_on_create_and_patch(bm, field, value,
                                                                   since):
    older = '1.%d' % (int(since.split('.')[1]) - 1)
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', field: value},
                   version=older)
    assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE, resp.text
    assert bm.get('/v1/nodes').json()['nodes'] == []
    node = h.make_node(bm)
    patch = [{'op': 'add', 'path': '/' + field, 'value': value}]
    resp = bm.patch('/v1/nodes/%s' % node['uuid'], json=patch, version=older)
    assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE, resp.text
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()[field] in (None, '')
    resp = bm.patch('/v1/nodes/%s' % node['uuid'], json=patch, version=since)
    assert resp.status_code == 200, resp.text
    # removing it is not setting it: allowed at any version, as in Ironic
    resp = bm.patch('/v1/nodes/%s' % node['uuid'], version=older,
                    json=[{'op': 'remove', 'path': '/' + field}])
    assert resp.status_code == 200, resp.text
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()[field] in (None, '')


def test_fields_sort_key_and_detail_follow_ironics_gates(bm):
    node = h.make_node(bm, 'n1', traits=['CUSTOM_A'])
    one = '/v1/nodes/%s' % node['uuid']
    for path in (one + '?fields=uuid', '/v1/nodes?fields=uuid'):
        assert bm.get(path, version='1.7').status_code == 406, path
        assert bm.get(path, version='1.8').status_code == 200, path
    for path in (one + '?fields=uuid,traits', '/v1/nodes?fields=traits'):
        resp = bm.get(path, version='1.36')
        assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE, path
    assert bm.get(one + '?fields=traits', version='1.37').json()['traits'] == ['CUSTOM_A']
    assert bm.get('/v1/nodes?sort_key=resource_class', version='1.20').status_code == 406
    assert bm.get('/v1/nodes?sort_key=resource_class', version='1.21').status_code == 200
    resp = bm.get('/v1/nodes?detail=true', version='1.42')
    assert resp.status_code == 400
    assert h.fault(resp) == 'Invalid query parameter ?detail=True received.'
    detail = bm.get('/v1/nodes?detail=true', version='1.43').json()['nodes']
    assert detail[0]['driver'] == 'fake-hardware'


def test_a_node_name_finds_nothing_below_1_5(bm):
    node = h.make_node(bm, 'n1')
    resp = bm.get('/v1/nodes/n1', version='1.4')
    assert resp.status_code == 404 and h.fault(resp) == 'Node n1 could not be found.'
    assert bm.get('/v1/nodes/%s' % node['uuid'], version='1.4').status_code == 200
    assert bm.get('/v1/nodes/n1', version='1.5').json()['uuid'] == node['uuid']


def test_traits_endpoints_below_1_37_answer_as_ironics_routing(bm):
    node = h.make_node(bm, 'n1', traits=['CUSTOM_A'])
    base = '/v1/nodes/%s/traits' % node['uuid']
    for version in ('1.1', '1.36'):
        resp = bm.get(base, version=version)
        assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE, version
        assert bm.put(base, json={'traits': []}, version=version).status_code == 405
        assert bm.put(base + '/CUSTOM_B', version=version).status_code == 405
        assert bm.delete(base, version=version).status_code == 404
        assert bm.delete(base + '/CUSTOM_A', version=version).status_code == 404
    # the node is looked up first: a missing one is a 404
    missing = '/v1/nodes/%s/traits' % '6c0a7d8e-0000-4000-8000-000000000000'
    assert bm.get(missing, version='1.36').status_code == 404
    assert bm.get(base).json()['traits'] == ['CUSTOM_A']


def test_inspection_timestamps_are_shown_from_1_6_and_null(bm):
    node = h.make_node(bm, 'n1')
    one = '/v1/nodes/%s' % node['uuid']
    old = bm.get(one, version='1.5').json()
    assert 'inspection_started_at' not in old and 'inspection_finished_at' not in old
    for version in ('1.6', 'latest'):
        body = bm.get(one, version=version).json()
        assert (body['inspection_started_at'], body['inspection_finished_at']) == (
            None, None), version
    listed = bm.get('/v1/nodes/detail').json()['nodes'][0]
    assert listed['inspection_started_at'] is None
    assert listed['inspection_finished_at'] is None
    picked = bm.get(one + '?fields=inspection_started_at').json()
    assert picked == {'uuid': node['uuid'], 'inspection_started_at': None,
                      'links': picked['links']}
    assert 'driver_internal_info' not in bm.get(one, version='1.2').json()
    assert bm.get(one, version='1.3').json()['driver_internal_info'] == {}


def test_soft_power_targets_and_a_timeout_need_1_27(bm):
    node = h.make_node(bm, 'n1')
    url = '/v1/nodes/%s/states/power' % node['uuid']
    for body in ({'target': 'soft power off'}, {'target': 'soft rebooting'},
                 {'target': 'power on', 'timeout': 10}):
        resp = bm.put(url, json=body, version='1.26')
        assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE, body
    assert bm.get('/v1/nodes/n1').json()['power_state'] == 'power off'
    assert bm.put(url, json={'target': 'soft power off'}, version='1.27').status_code == 202


def test_available_is_ironics_nostate_before_1_2(bm):
    node = h.make_node(bm, 'n1')
    one = '/v1/nodes/%s' % node['uuid']
    assert bm.get(one, version='1.1').json()['provision_state'] is None
    assert bm.get(one + '/states', version='1.1').json()['provision_state'] is None
    assert bm.get(one, version='1.2').json()['provision_state'] == 'available'


def test_allocation_endpoints_before_their_versions_answer_as_ironic(bm):
    node, alloc = _allocated(bm)
    too_old = 'The API version does not allow allocations'
    for method, path, status in (('GET', '/v1/allocations', 404),
                                 ('GET', '/v1/allocations/a1', 404),
                                 ('POST', '/v1/allocations', 405),
                                 ('DELETE', '/v1/allocations/a1', 405)):
        resp = bm.request(method, path, version='1.51', json={'resource_class': 'gold'})
        assert resp.status_code == status and h.fault(resp) == too_old, (method, path)
    resp = bm.patch('/v1/allocations/a1', version='1.56',
                    json=[{'op': 'add', 'path': '/extra/k', 'value': 'v'}])
    assert resp.status_code == 405
    assert h.fault(resp) == 'The API version does not allow updating allocations'
    # the node's allocation is not there at all before 1.52: 404, nothing deleted
    for method in ('GET', 'DELETE'):
        resp = bm.request(method, '/v1/nodes/n1/allocation', version='1.51')
        assert resp.status_code == 404, method
    assert bm.get('/v1/allocations/a1').json()['node_uuid'] == node['uuid']
    assert [a['uuid'] for a in bm.get('/v1/allocations').json()['allocations']] == [
        alloc['uuid']]


def test_the_allocation_owner_field_and_filter_need_1_60(bm):
    _allocated(bm)
    for path in ('/v1/allocations?fields=uuid,owner', '/v1/allocations/a1?fields=owner',
                 '/v1/nodes/n1/allocation?fields=owner', '/v1/allocations?owner=p'):
        resp = bm.get(path, version='1.59')
        assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE, path
        assert bm.get(path, version='1.60').status_code == 200, path
    assert bm.get('/v1/allocations?fields=bogus', version='1.59').status_code == 400
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'owner': None},
                   version='1.59')
    assert resp.status_code == 406 and h.fault(resp) == NOT_ACCEPTABLE
    assert len(bm.get('/v1/allocations').json()['allocations']) == 1


def test_a_put_to_an_unknown_state_of_a_node_is_ironics_405(bm):
    # ironic-tempest-plugin's rbac test_reader_cannot_set_raid_state: Ironic's
    # states controller has no PUT of its own, so an unknown name is a 405,
    # whatever the node (and before any policy check); a GET stays a 404
    h.make_node(bm, 's1')
    for node in ('s1', 'nosuch'):
        for path in ('/v1/nodes/%s/states/target_raid_config' % node,
                     '/nodes/%s/states/bogus' % node):
            resp = bm.put(path, json={'target': {'raid': 'config'}})
            assert resp.status_code == 405, (path, resp.text)
            assert h.fault(resp) == 'The method specified is not allowed for this resource.'
    assert bm.get('/v1/nodes/s1/states/target_raid_config').status_code == 404
    # the states berth serves, and those it names as not served, keep their answers
    assert bm.put('/v1/nodes/s1/states/power', json={'target': 'bogus'}).status_code == 400
    resp = bm.put('/v1/nodes/s1/states/raid', json={'target': {}})
    assert resp.status_code == 404 and 'not supported by berth' in h.fault(resp)
