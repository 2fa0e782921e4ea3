"""/resource_classes and /resource_classes/{name}."""

import pytest


def test_gated_below_1_2(client):
    assert client.get('/resource_classes', version='1.1').status_code == 404


def test_list_contains_standard(client):
    names = {rc['name'] for rc in client.get('/resource_classes').json()['resource_classes']}
    assert {'VCPU', 'MEMORY_MB', 'DISK_GB', 'PCPU'} <= names


def test_create_get_delete(client):
    resp = client.post('/resource_classes', json={'name': 'CUSTOM_GOLD'})
    assert resp.status_code == 201
    assert resp.headers['location'].endswith('/resource_classes/CUSTOM_GOLD')
    assert 'content-type' not in resp.headers
    got = client.get('/resource_classes/CUSTOM_GOLD')
    assert got.status_code == 200
    assert got.json() == {'name': 'CUSTOM_GOLD', 'links': [
        {'rel': 'self', 'href': '/resource_classes/CUSTOM_GOLD'}]}
    assert got.headers['cache-control'] == 'no-cache'
    assert client.post('/resource_classes', json={'name': 'CUSTOM_GOLD'}).status_code == 409
    assert client.delete('/resource_classes/CUSTOM_GOLD').status_code == 204
    assert client.get('/resource_classes/CUSTOM_GOLD').status_code == 404


@pytest.mark.parametrize('body', [
    {'name': 'GOLD'}, {'name': 'CUSTOM_gold'}, {'name': 'CUSTOM_' + 'A' * 250},
    {}, {'name': 'CUSTOM_A', 'extra': 1}, {'name': 5}, [],
])
def test_create_schema_errors(client, body):
    resp = client.post('/resource_classes', json=body)
    assert resp.status_code == 400
    assert 'JSON does not validate' in resp.json()['errors'][0]['detail']


def test_create_malformed_json(client):
    resp = client.post('/resource_classes', data=b'{nope',
                       headers={'Content-Type': 'application/json'})
    assert resp.status_code == 400
    assert 'Malformed JSON' in resp.json()['errors'][0]['detail']


def test_create_wrong_content_type(client):
    resp = client.post('/resource_classes', data=b'name=x',
                       headers={'Content-Type': 'text/plain'})
    assert resp.status_code == 415
    assert 'The media type text/plain is not supported' in resp.json()['errors'][0]['detail']


def test_accept_refusing_json_is_406(client):
    resp = client.get('/resource_classes', headers={'Accept': 'text/plain'})
    assert resp.status_code == 406
    assert client.get('/resource_classes',
                      headers={'Accept': 'text/html,*/*;q=0.8'}).status_code == 200


def test_put_1_7_create_or_confirm(client):
    resp = client.put('/resource_classes/CUSTOM_NEW', version='1.7')
    assert resp.status_code == 201
    assert resp.headers['location'].endswith('/resource_classes/CUSTOM_NEW')
    assert client.put('/resource_classes/CUSTOM_NEW', version='1.7').status_code == 204
    assert client.put('/resource_classes/VCPU', version='1.7').status_code == 400
    assert client.put('/resource_classes/CUSTOM_lower', version='1.7').status_code == 400


def test_put_before_1_7_renames(client):
    client.post('/resource_classes', json={'name': 'CUSTOM_OLD'})
    resp = client.put('/resource_classes/CUSTOM_OLD', version='1.6',
                      json={'name': 'CUSTOM_RENAMED'})
    assert resp.status_code == 200
    assert resp.json()['name'] == 'CUSTOM_RENAMED'
    assert client.get('/resource_classes/CUSTOM_OLD').status_code == 404
    assert client.put('/resource_classes/CUSTOM_NOPE', version='1.6',
                      json={'name': 'CUSTOM_X'}).status_code == 404
    assert client.put('/resource_classes/VCPU', version='1.6',
                      json={'name': 'CUSTOM_X'}).status_code == 400
    client.post('/resource_classes', json={'name': 'CUSTOM_TAKEN'})
    assert client.put('/resource_classes/CUSTOM_RENAMED', version='1.6',
                      json={'name': 'CUSTOM_TAKEN'}).status_code == 409


def test_delete_standard_is_400_and_unknown_404(client):
    assert client.delete('/resource_classes/VCPU').status_code == 400
    assert client.delete('/resource_classes/CUSTOM_NONE').status_code == 404
