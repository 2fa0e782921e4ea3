"""/v1/chassis: CRUD, fields/detail gates, pagination, the nodes of a chassis and
a node's chassis_uuid, as Ironic answers them."""

import uuid as uuidlib

import pytest

from tests.functional import baremetal_helpers as h


def _chassis(bm, **body):
    resp = bm.post('/v1/chassis', json=body)
    assert resp.status_code == 201, resp.text
    return resp.json()


def test_create_show_and_links(bm):
    resp = bm.post('/v1/chassis', json={'description': 'rack 1', 'extra': {'a': 1}})
    assert resp.status_code == 201, resp.text
    ch = resp.json()
    assert resp.headers['location'].endswith('/v1/chassis/%s' % ch['uuid'])
    assert ch['description'] == 'rack 1' and ch['extra'] == {'a': 1}
    assert ch['created_at'] and ch['updated_at'] is None
    assert ch['links'][0]['href'].endswith('/v1/chassis/%s' % ch['uuid'])
    # Ironic's shape: a list holding the list of the two links
    [[self_link, bookmark]] = ch['nodes']
    assert self_link['href'].endswith('/v1/chassis/%s/nodes' % ch['uuid'])
    assert self_link['rel'] == 'self' and bookmark['rel'] == 'bookmark'
    shown = bm.get('/v1/chassis/%s' % ch['uuid']).json()
    assert shown == ch


def test_a_unicode_description_round_trips(bm):
    descr = 'В Україні ♡ OpenStack!'
    ch = _chassis(bm, description=descr)
    assert bm.get('/v1/chassis/%s' % ch['uuid']).json()['description'] == descr


def test_create_with_uuid_and_duplicate_is_409(bm):
    wanted = str(uuidlib.uuid4())
    assert _chassis(bm, uuid=wanted)['uuid'] == wanted
    resp = bm.post('/v1/chassis', json={'uuid': wanted})
    assert resp.status_code == 409
    assert h.fault(resp) == 'A chassis with UUID %s already exists.' % wanted


@pytest.mark.parametrize('body', [
    {'uuid': 'nope'}, {'bogus': 1}, {'description': 'x' * 256}, {'extra': 'x'}, [],
])
def test_create_invalid_is_400(bm, body):
    resp = bm.post('/v1/chassis', json=body)
    assert resp.status_code == 400, resp.text
    assert bm.get('/v1/chassis').json()['chassis'] == []


def test_show_unknown_is_404_and_bad_uuid_400(bm):
    missing = str(uuidlib.uuid4())
    resp = bm.get('/v1/chassis/%s' % missing)
    assert resp.status_code == 404
    assert h.fault(resp) == 'Chassis %s could not be found.' % missing
    resp = bm.get('/v1/chassis/not-a-uuid')
    assert resp.status_code == 400
    assert h.fault(resp) == 'Expected UUID for chassis_uuid: not-a-uuid'


def test_list_default_fields_detail_and_fields(bm):
    ch = _chassis(bm, description='d', extra={'k': 'v'})
    [item] = bm.get('/v1/chassis').json()['chassis']
    assert set(item) == {'uuid', 'description', 'links'}
    [item] = bm.get('/v1/chassis/detail').json()['chassis']
    assert item['extra'] == {'k': 'v'} and item['nodes']
    [item] = bm.get('/v1/chassis?detail=true').json()['chassis']
    assert item['extra'] == {'k': 'v'}
    [item] = bm.get('/v1/chassis?fields=uuid,extra').json()['chassis']
    assert set(item) == {'uuid', 'extra', 'links'}
    body = bm.get('/v1/chassis/%s?fields=description' % ch['uuid']).json()
    assert set(body) == {'uuid', 'description', 'links'}


@pytest.mark.parametrize('path,version,status', [
    ('/v1/chassis?fields=uuid', '1.7', 406),
    ('/v1/chassis/{u}?fields=uuid', '1.7', 406),
    ('/v1/chassis?detail=true', '1.42', 406),
    ('/v1/chassis?detail=true&fields=uuid', 'latest', 400),
    ('/v1/chassis?fields=bogus', 'latest', 400),
    ('/v1/chassis?sort_key=extra', 'latest', 400),
    ('/v1/chassis?bogus=1', 'latest', 400),
    ('/v1/chassis/detail?fields=uuid', 'latest', 400),
    ('/v1/chassis?marker=nope', 'latest', 400),
    ('/v1/chassis?limit=0', 'latest', 400),
])
def test_list_refusals(bm, path, version, status):
    ch = _chassis(bm)
    resp = bm.get(path.format(u=ch['uuid']), version=version)
    assert resp.status_code == status, resp.text


def test_pagination_with_marker_and_next(bm):
    made = [_chassis(bm, description='c%d' % i)['uuid'] for i in range(3)]
    page = bm.get('/v1/chassis?limit=2').json()
    assert [c['uuid'] for c in page['chassis']] == made[:2]
    assert 'marker=%s' % made[1] in page['next']
    rest = bm.get('/v1/chassis?limit=2&marker=%s' % made[1]).json()
    assert [c['uuid'] for c in rest['chassis']] == made[2:]
    desc = bm.get('/v1/chassis?sort_key=description&sort_dir=desc').json()
    assert [c['uuid'] for c in desc['chassis']] == made[::-1]


def test_patch_extra_and_description(bm):
    ch = _chassis(bm, description='old')
    resp = bm.patch('/v1/chassis/%s' % ch['uuid'], json=[
        {'op': 'add', 'path': '/extra/answer', 'value': 42},
        {'op': 'replace', 'path': '/description', 'value': 'new'}])
    assert resp.status_code == 200, resp.text
    assert resp.json()['extra'] == {'answer': 42}
    shown = bm.get('/v1/chassis/%s' % ch['uuid']).json()
    assert shown['extra'] == {'answer': 42} and shown['description'] == 'new'
    assert shown['updated_at'] is not None
    resp = bm.patch('/v1/chassis/%s' % ch['uuid'], json=[
        {'op': 'remove', 'path': '/description'}])
    assert resp.json()['description'] is None


@pytest.mark.parametrize('patch', [
    [{'op': 'replace', 'path': '/uuid', 'value': str(uuidlib.uuid4())}],
    [{'op': 'replace', 'path': '/description', 'value': 'x' * 256}],
    [{'op': 'replace', 'path': '/extra', 'value': 'x'}],
    [{'op': 'remove', 'path': '/extra/missing'}],
    [],
])
def test_patch_invalid_is_400_and_changes_nothing(bm, patch):
    ch = _chassis(bm, description='keep')
    resp = bm.patch('/v1/chassis/%s' % ch['uuid'], json=patch)
    assert resp.status_code == 400, resp.text
    assert bm.get('/v1/chassis/%s' % ch['uuid']).json() == ch


def test_patch_and_delete_unknown_are_404(bm):
    missing = str(uuidlib.uuid4())
    assert bm.patch('/v1/chassis/%s' % missing, json=[
        {'op': 'add', 'path': '/extra/a', 'value': 1}]).status_code == 404
    assert bm.delete('/v1/chassis/%s' % missing).status_code == 404


def test_delete_refused_while_it_holds_nodes(bm):
    ch = _chassis(bm)
    node = h.make_node(bm, 'in-chassis', state='enroll', chassis_uuid=ch['uuid'])
    resp = bm.delete('/v1/chassis/%s' % ch['uuid'])
    assert resp.status_code == 400
    assert h.fault(resp) == ('Cannot complete the requested action because chassis '
                             '%s contains nodes.' % ch['uuid'])
    assert bm.get('/v1/chassis/%s' % ch['uuid']).status_code == 200
    assert bm.delete('/v1/nodes/%s' % node['uuid']).status_code == 204
    assert bm.delete('/v1/chassis/%s' % ch['uuid']).status_code == 204
    assert bm.get('/v1/chassis/%s' % ch['uuid']).status_code == 404


def test_node_chassis_uuid_create_patch_filter_and_nodes_of_chassis(bm):
    ch, other = _chassis(bm), _chassis(bm)
    inside = h.make_node(bm, 'inside', state='enroll', chassis_uuid=ch['uuid'])
    assert inside['chassis_uuid'] == ch['uuid']
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'chassis_uuid': None,
                                      'name': 'outside'})
    assert resp.status_code == 201, resp.text
    assert resp.json()['chassis_uuid'] is None
    listed = bm.get('/v1/nodes?chassis_uuid=%s' % ch['uuid']).json()['nodes']
    assert [n['uuid'] for n in listed] == [inside['uuid']]
    listed = bm.get('/v1/chassis/%s/nodes' % ch['uuid']).json()['nodes']
    assert [n['uuid'] for n in listed] == [inside['uuid']]
    detail = bm.get('/v1/chassis/%s/nodes/detail' % ch['uuid']).json()['nodes']
    assert detail[0]['chassis_uuid'] == ch['uuid']
    assert bm.get('/v1/chassis/%s/nodes' % other['uuid']).json()['nodes'] == []
    # move it, then take it out (1.25)
    resp = bm.patch('/v1/nodes/inside', json=[
        {'op': 'replace', 'path': '/chassis_uuid', 'value': other['uuid']}])
    assert resp.status_code == 200 and resp.json()['chassis_uuid'] == other['uuid']
    resp = bm.patch('/v1/nodes/inside', version='1.24', json=[
        {'op': 'remove', 'path': '/chassis_uuid'}])
    assert resp.status_code == 406
    resp = bm.patch('/v1/nodes/inside', json=[{'op': 'remove', 'path': '/chassis_uuid'}])
    assert resp.status_code == 200 and resp.json()['chassis_uuid'] is None


def test_node_unknown_chassis_is_400_and_listing_404(bm):
    missing = str(uuidlib.uuid4())
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'chassis_uuid': missing})
    assert resp.status_code == 400
    assert h.fault(resp) == 'Chassis %s could not be found.' % missing
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'chassis_uuid': 'x'})
    assert resp.status_code == 400
    assert h.fault(resp) == 'Expected UUID for chassis_uuid: x'
    assert bm.get('/v1/nodes').json()['nodes'] == []
    node = h.make_node(bm, 'n', state='enroll')
    resp = bm.patch('/v1/nodes/n', json=[
        {'op': 'add', 'path': '/chassis_uuid', 'value': missing}])
    assert resp.status_code == 400
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()['chassis_uuid'] is None
    assert bm.get('/v1/nodes?chassis_uuid=%s' % missing).status_code == 404
    resp = bm.get('/v1/nodes/detail?chassis_uuid=nope')
    assert resp.status_code == 400
    assert h.fault(resp) == 'Expected UUID for chassis_uuid: nope'
    assert bm.get('/v1/chassis/%s/nodes' % missing).status_code == 404
    resp = bm.get('/v1/chassis/x/nodes/detail')
    assert resp.status_code == 400
    assert h.fault(resp) == 'Expected UUID for chassis_uuid: x'
    assert bm.post('/v1/chassis/%s/nodes' % missing, json={}).status_code == 405


def test_v1_document_links_chassis_and_drivers(bm):
    body = bm.get('/v1').json()
    assert body['chassis'][0]['href'].endswith('/v1/chassis/')
    assert body['drivers'][0]['href'].endswith('/v1/drivers/')
