"""/resource_providers/{uuid}/traits."""

import uuid as uuidlib

import pytest

from tests.functional import provider_helpers as helpers


@pytest.fixture
def rp(client, ctx):
    return helpers.create_provider(client, ctx)


def _path(rp):
    return '/resource_providers/%s/traits' % rp


def _error(resp, status, code='placement.undefined_code'):
    assert resp.status_code == status, resp.text
    assert resp.json()['errors'][0]['code'] == code
    return resp.json()['errors'][0]['detail']


def _put(client, rp, traits, gen, **kw):
    return client.put(_path(rp), json={'traits': traits,
                                       'resource_provider_generation': gen}, **kw)


def test_gated_below_1_6(client, rp):
    for method in ('GET', 'PUT', 'DELETE'):
        assert client.request(method, _path(rp), version='1.5').status_code == 404


def test_get_empty_and_unknown(client, rp):
    resp = client.get(_path(rp))
    assert resp.status_code == 200
    assert resp.json() == {'traits': [], 'resource_provider_generation': 0}
    assert resp.headers['cache-control'] == 'no-cache'
    assert 'cache-control' not in client.get(_path(rp), version='1.14').headers
    _error(client.get(_path(uuidlib.uuid4())), 404)


def test_set_bumps_only_on_change(client, rp):
    client.put('/traits/CUSTOM_X')
    resp = _put(client, rp, ['CUSTOM_X', 'HW_CPU_X86_AVX2', 'CUSTOM_X'], 0)
    assert resp.status_code == 200
    assert resp.json() == {'traits': ['CUSTOM_X', 'HW_CPU_X86_AVX2'],
                           'resource_provider_generation': 1}
    assert resp.headers['cache-control'] == 'no-cache'
    # same set: no bump
    resp = _put(client, rp, ['HW_CPU_X86_AVX2', 'CUSTOM_X'], 1)
    assert resp.json()['resource_provider_generation'] == 1
    resp = _put(client, rp, ['STORAGE_DISK_SSD'], 1)
    assert resp.json() == {'traits': ['STORAGE_DISK_SSD'],
                           'resource_provider_generation': 2}
    assert client.get(_path(rp)).json() == resp.json()
    resp = _put(client, rp, [], 2)
    assert resp.json() == {'traits': [], 'resource_provider_generation': 3}


def test_set_errors_in_order(client, rp):
    # body first: a bad body on an unknown provider is a 400
    _error(client.put(_path(uuidlib.uuid4()), json={'traits': []}), 400)
    _error(_put(client, uuidlib.uuid4(), [], 0), 404)
    # generation before trait existence
    _error(_put(client, rp, ['CUSTOM_NOPE'], 3), 409, 'placement.concurrent_update')
    detail = _error(_put(client, rp, ['CUSTOM_NOPE', 'CUSTOM_NADA', 'HW_CPU_X86_AVX2'],
                         0), 400)
    assert 'CUSTOM_NADA' in detail and 'CUSTOM_NOPE' in detail
    assert 'HW_CPU_X86_AVX2' not in detail
    assert client.get(_path(rp)).json() == {'traits': [],
                                            'resource_provider_generation': 0}


@pytest.mark.parametrize('body', [
    {'traits': []}, {'resource_provider_generation': 0},
    {'traits': [''], 'resource_provider_generation': 0},
    {'traits': ['X' * 256], 'resource_provider_generation': 0},
    {'traits': 'CUSTOM_X', 'resource_provider_generation': 0},
    {'traits': [], 'resource_provider_generation': 0, 'extra': 1},
])
def test_set_schema_errors(client, rp, body):
    assert 'JSON does not validate' in _error(client.put(_path(rp), json=body), 400)


def test_set_wrong_content_type(client, rp):
    assert client.put(_path(rp), data=b'x',
                      headers={'Content-Type': 'text/plain'}).status_code == 415


def test_delete_bumps_only_if_it_had_traits(client, rp):
    assert client.delete(_path(rp)).status_code == 204
    assert client.get(_path(rp)).json()['resource_provider_generation'] == 0
    _put(client, rp, ['HW_CPU_X86_AVX2'], 0)
    resp = client.delete(_path(rp))
    assert resp.status_code == 204
    assert 'content-type' not in resp.headers
    assert client.get(_path(rp)).json() == {'traits': [],
                                            'resource_provider_generation': 2}
    _error(client.delete(_path(uuidlib.uuid4())), 404)


def test_policy(client, rp):
    _error(client.get(_path(rp), token='user'), 403)
    _error(_put(client, rp, [], 0, token='user'), 403)
    _error(client.delete(_path(rp), token='user'), 403)
