"""Regression tests for what the fuzzer found: undecodable paths and queries, deep JSON.

Each was a 500 before; each is now a 400 in the API's own error format that
stores nothing.
"""

import pytest

from tests.functional import baremetal_helpers

DEEP_ARRAY = b'[' * 100000 + b']' * 100000
DEEP_OBJECT = ('{"name": "deep", "uuid": null, "x": %s1%s}'
               % ('{"a":' * 70, '}' * 70)).encode()


@pytest.mark.parametrize('path', [
    '/resource_providers?name=%ED%A0%80',        # a lone surrogate, UTF-8 encoded
    '/resource_providers?name=%FF',
    '/resource_providers/%FF',
    '/allocation_candidates?resources=VCPU:1&required=%C3',
])
def test_placement_path_or_query_not_utf8_is_400(client, path):
    resp = client.get(path)
    assert resp.status_code == 400, resp.text
    error = resp.json()['errors'][0]
    assert 'not UTF-8' in error['detail'] and error['request_id'].startswith('req-')


@pytest.mark.parametrize('path', ['/v1/nodes?name=%FF', '/v1/nodes/%ED%A0%80',
                                  '/v1/allocations?node=%C3'])
def test_baremetal_path_or_query_not_utf8_is_400(bm, path):
    resp = bm.get(path)
    assert resp.status_code == 400, resp.text
    assert 'not UTF-8' in baremetal_helpers.fault(resp)


@pytest.mark.parametrize('body', [DEEP_ARRAY, DEEP_OBJECT])
def test_placement_deeply_nested_json_is_400_and_stores_nothing(client, body):
    resp = client.post('/resource_providers', data=body,
                       headers={'Content-Type': 'application/json'})
    assert resp.status_code == 400, resp.text
    assert 'nested' in resp.json()['errors'][0]['detail']
    assert client.get('/resource_providers').json()['resource_providers'] == []


@pytest.mark.parametrize('body', [DEEP_ARRAY, DEEP_OBJECT.replace(b'"name"', b'"driver"')])
def test_baremetal_deeply_nested_json_is_400_and_stores_nothing(bm, body):
    resp = bm.post('/v1/nodes', data=body, headers={'Content-Type': 'application/json'})
    assert resp.status_code == 400, resp.text
    assert 'nested' in baremetal_helpers.fault(resp)
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_nesting_up_to_the_limit_is_fine(bm):
    extra = {}
    inner = extra
    for _ in range(60):
        inner['a'] = {}
        inner = inner['a']
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'extra': extra})
    assert resp.status_code == 201, resp.text
