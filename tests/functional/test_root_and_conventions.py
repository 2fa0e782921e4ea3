"""The conventions every endpoint shares: version document, negotiation, errors, auth."""


def test_root_needs_no_token(client):
    resp = client.get('/', token='', version='')
    assert resp.status_code == 200
    doc = resp.json()['versions'][0]
    assert doc == {'id': 'v1.0', 'min_version': '1.0', 'max_version': '1.39',
                   'status': 'CURRENT', 'links': [{'rel': 'self', 'href': ''}]}
    assert resp.headers['openstack-api-version'] == 'placement 1.0'
    assert resp.headers['x-openstack-request-id'].startswith('req-')


def test_root_cache_headers_from_1_15(client):
    assert 'last-modified' not in client.get('/', version='1.14').headers
    resp = client.get('/', version='1.15')
    assert resp.headers['cache-control'] == 'no-cache'
    assert resp.headers['last-modified'].endswith('GMT')


def test_root_other_methods_405(client):
    resp = client.post('/', json={})
    assert resp.status_code == 405
    assert resp.headers['allow'] == 'GET'


def test_missing_token_is_401(client):
    assert client.get('/resource_classes', token='').status_code == 401


def test_non_admin_is_403(client):
    resp = client.get('/resource_classes', token='alice:p1')
    assert resp.status_code == 403
    assert resp.json()['errors'][0]['code'] == 'placement.undefined_code'


def test_roles_header_overrides(client):
    assert client.get('/resource_classes', token='svc',
                      headers={'X-Roles': 'service'}).status_code == 200
    assert client.get('/resource_classes', token='admin',
                      headers={'X-Roles': 'member'}).status_code == 403


def test_bad_version_string_is_400_without_code(client):
    resp = client.get('/resource_classes', version='pony.horse')
    assert resp.status_code == 400
    err = resp.json()['errors'][0]
    assert 'invalid version string' in err['detail']
    assert 'code' not in err


def test_unknown_version_is_406_with_range(client):
    resp = client.get('/', version='1.40', token='')
    assert resp.status_code == 406
    err = resp.json()['errors'][0]
    assert 'Unacceptable version header' in err['detail']
    assert (err['min_version'], err['max_version']) == ('1.0', '1.39')


def test_legacy_header_is_ignored(client):
    resp = client.get('/', version='', token='',
                      headers={'OpenStack-Placement-API-Version': '1.30'})
    assert resp.headers['openstack-api-version'] == 'placement 1.0'


def test_unknown_path_404_in_envelope(client):
    resp = client.get('/nothing/here')
    assert resp.status_code == 404
    err = resp.json()['errors'][0]
    assert err['code'] == 'placement.undefined_code'
    assert err['request_id'] == resp.headers['x-openstack-request-id']


def test_code_only_from_1_23(client):
    assert 'code' not in client.get('/nothing', version='1.22').json()['errors'][0]
    assert 'code' in client.get('/nothing', version='1.23').json()['errors'][0]


def test_content_length_without_type_is_400(client):
    resp = client.post('/resource_classes', data=b'{"name": "CUSTOM_X"}',
                       headers={'Content-Type': ''})
    assert resp.status_code == 400


def test_body_over_limit_is_413(client, berth):
    big = b'{"name": "' + b'A' * (berth.conf.api.max_request_body_size + 10) + b'"}'
    resp = client.post('/resource_classes', data=big,
                       headers={'Content-Type': 'application/json'})
    assert resp.status_code == 413
    assert resp.json()['errors'][0]['code'] == 'berth.request_too_large'


def test_global_request_id_not_echoed(client):
    gid = 'req-8f8f7d26-7e71-4e9a-9a19-1f2f6f1c5a20'
    resp = client.get('/', headers={'X-OpenStack-Request-ID': gid})
    assert resp.headers['x-openstack-request-id'] != gid
