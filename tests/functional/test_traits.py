"""/traits and /traits/{name}."""

import pytest

from tests.functional import provider_helpers as helpers


def _names(resp):
    assert resp.status_code == 200, resp.text
    return resp.json()['traits']


def _error(resp, status, code='placement.undefined_code'):
    assert resp.status_code == status, resp.text
    assert resp.json()['errors'][0]['code'] == code
    return resp.json()['errors'][0]['detail']


@pytest.mark.parametrize('method,path', [
    ('GET', '/traits'), ('GET', '/traits/CUSTOM_A'), ('PUT', '/traits/CUSTOM_A'),
    ('DELETE', '/traits/CUSTOM_A'),
])
def test_gated_below_1_6(client, method, path):
    assert client.request(method, path, version='1.5').status_code == 404
    assert client.get('/traits/CUSTOM_A', version='1.5').status_code == 404


def test_list_contains_standard(client):
    names = _names(client.get('/traits'))
    assert {'HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD', 'MISC_SHARES_VIA_AGGREGATE'} <= set(names)
    assert names == sorted(names)


def test_put_get_delete(client):
    resp = client.put('/traits/CUSTOM_GOLD')
    assert resp.status_code == 201
    assert resp.headers['location'].endswith('/traits/CUSTOM_GOLD')
    assert 'content-type' not in resp.headers
    assert resp.headers['cache-control'] == 'no-cache'
    assert 'last-modified' in resp.headers
    resp = client.put('/traits/CUSTOM_GOLD')
    assert resp.status_code == 204
    assert resp.headers['location'].endswith('/traits/CUSTOM_GOLD')
    resp = client.get('/traits/CUSTOM_GOLD')
    assert resp.status_code == 204
    assert resp.content == b''
    assert resp.headers['cache-control'] == 'no-cache'
    assert client.delete('/traits/CUSTOM_GOLD').status_code == 204
    _error(client.get('/traits/CUSTOM_GOLD'), 404)


def test_cache_headers_only_from_1_15(client):
    resp = client.put('/traits/CUSTOM_OLD', version='1.14')
    assert resp.status_code == 201
    assert 'cache-control' not in resp.headers
    assert 'last-modified' not in resp.headers
    assert 'cache-control' not in client.get('/traits/CUSTOM_OLD', version='1.14').headers
    assert 'cache-control' not in client.get('/traits', version='1.14').headers
    assert client.get('/traits', version='1.15').headers['cache-control'] == 'no-cache'


@pytest.mark.parametrize('name', ['HW_CPU_X86_AVX2', 'CUSTOM_lower', 'NOT_CUSTOM',
                                  'CUSTOM_' + 'A' * 249, 'CUSTOM_'])
def test_put_bad_names(client, name):
    _error(client.put('/traits/' + name), 400)


def test_delete_errors(client, ctx):
    _error(client.delete('/traits/CUSTOM_NOPE'), 404)
    _error(client.delete('/traits/HW_CPU_X86_AVX2'), 400)
    client.put('/traits/CUSTOM_USED')
    rp = helpers.create_provider(client, ctx)
    client.put('/resource_providers/%s/traits' % rp,
               json={'traits': ['CUSTOM_USED'], 'resource_provider_generation': 0})
    _error(client.delete('/traits/CUSTOM_USED'), 409)
    assert client.get('/traits/CUSTOM_USED').status_code == 204


def test_filters(client, ctx):
    for name in ('CUSTOM_A1', 'CUSTOM_A2', 'CUSTOM_B1'):
        client.put('/traits/' + name)
    rp = helpers.create_provider(client, ctx)
    client.put('/resource_providers/%s/traits' % rp,
               json={'traits': ['CUSTOM_A1', 'HW_CPU_X86_AVX2'],
                     'resource_provider_generation': 0})
    assert _names(client.get('/traits?name=startswith:CUSTOM_A')) == [
        'CUSTOM_A1', 'CUSTOM_A2']
    assert _names(client.get('/traits?name=in:CUSTOM_B1,CUSTOM_NOPE,CUSTOM_A2')) == [
        'CUSTOM_A2', 'CUSTOM_B1']
    assert _names(client.get('/traits?associated=true')) == [
        'CUSTOM_A1', 'HW_CPU_X86_AVX2']
    assert _names(client.get('/traits?associated=TRUE&name=startswith:CUSTOM')) == [
        'CUSTOM_A1']
    assert _names(client.get('/traits?associated=False&name=startswith:CUSTOM')) == [
        'CUSTOM_A2', 'CUSTOM_B1']
    # an unknown operator is ignored: no name filter
    assert len(_names(client.get('/traits?name=nope:CUSTOM'))) > 3
    # a prefix with LIKE wildcards matches literally
    assert _names(client.get('/traits?name=startswith:CUSTOM_%')) == []


@pytest.mark.parametrize('query', ['name=CUSTOM_A', 'associated=yes', 'other=1'])
def test_bad_queries(client, query):
    _error(client.get('/traits?' + query), 400)


def test_policy(client):
    _error(client.get('/traits', token='user'), 403)
    _error(client.get('/traits/CUSTOM_A', token='user'), 403)
    _error(client.put('/traits/CUSTOM_A', token='user'), 403)
    _error(client.delete('/traits/CUSTOM_A', token='user'), 403)


def test_accept_refusing_json_is_406(client):
    assert client.get('/traits', headers={'Accept': 'text/plain'}).status_code == 406
