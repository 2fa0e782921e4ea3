"""Input strict JSON clients cannot read back is refused; error answers stay small."""

import pytest

from tests.functional import baremetal_helpers

JSON = {'Content-Type': 'application/json'}
BAD_NUMBERS = [b'NaN', b'Infinity', b'-Infinity', b'1e999']
LONG = 'x' * (512 * 1024)   # the body limit is 1 MB


@pytest.fixture
def rp(client):
    resp = client.post('/resource_providers', json={'name': 'strict'})
    assert resp.status_code == 200, resp.text
    return resp.json()


@pytest.mark.parametrize('number', BAD_NUMBERS)
def test_placement_non_finite_number_is_400_and_stores_nothing(client, rp, number):
    body = (b'{"resource_provider_generation": 0, "inventories": {"VCPU": '
            b'{"total": 8, "allocation_ratio": %s}}}' % number)
    resp = client.put('/resource_providers/%s/inventories' % rp['uuid'], data=body,
                      headers=JSON)
    assert resp.status_code == 400, resp.text
    assert 'Malformed JSON' in resp.json()['errors'][0]['detail']
    assert client.get('/resource_providers/%s/inventories' % rp['uuid']).json()[
        'inventories'] == {}


@pytest.mark.parametrize('number', BAD_NUMBERS)
def test_baremetal_non_finite_number_in_extra_is_400(bm, number):
    body = b'{"resource_class": "gold", "extra": {"ratio": %s}}' % number
    resp = bm.post('/v1/allocations', data=body, headers=JSON)
    assert resp.status_code == 400, resp.text
    assert 'Malformed JSON' in baremetal_helpers.fault(resp)
    assert bm.get('/v1/allocations').json()['allocations'] == []


@pytest.mark.parametrize('text', [b'"\\ud800"', b'"a\\udfffb"', b'"\\udc00\\ud800"'])
def test_lone_surrogates_are_400_on_both_apis(client, bm, text):
    resp = client.post('/resource_providers', data=b'{"name": %s}' % text,
                       headers=JSON)
    assert resp.status_code == 400, resp.text
    assert 'surrogate' in resp.json()['errors'][0]['detail']
    assert client.get('/resource_providers').json()['resource_providers'] == []
    resp = bm.post('/v1/nodes', data=b'{"driver": "fake-hardware", "extra": {%s: 1}}'
                   % text, headers=JSON)
    assert resp.status_code == 400, resp.text
    assert 'surrogate' in baremetal_helpers.fault(resp)
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_a_surrogate_pair_is_fine(bm):
    resp = bm.post('/v1/nodes', data=b'{"driver": "fake-hardware", '
                   b'"extra": {"smile": "\\ud83d\\ude00"}}', headers=JSON)
    assert resp.status_code == 201, resp.text
    assert resp.json()['extra'] == {'smile': '\U0001F600'}


def test_placement_long_name_is_echoed_cut(client):
    resp = client.post('/resource_providers', json={'name': LONG})
    assert resp.status_code == 400
    assert len(resp.content) < 4096, len(resp.content)
    detail = resp.json()['errors'][0]['detail']
    assert '... is too long' in detail and "Failed validating 'maxLength'" in detail


@pytest.mark.parametrize('method, path, body', [
    ('post', '/v1/nodes', {'driver': 'fake-hardware', 'name': LONG}),
    ('post', '/v1/nodes', {'driver': LONG}),
    ('post', '/v1/allocations', {'resource_class': 'gold', 'name': LONG}),
    ('post', '/v1/allocations', {'resource_class': 'gold', 'traits': [LONG]}),
    ('post', '/v1/allocations', {'resource_class': LONG}),
])
def test_baremetal_long_values_are_echoed_cut(bm, method, path, body):
    resp = getattr(bm, method)(path, json=body)
    assert resp.status_code == 400, resp.text[:300]
    assert len(resp.content) < 4096, len(resp.content)
    assert '...' in baremetal_helpers.fault(resp)


def test_a_patch_with_a_long_or_non_string_path_is_a_short_400(bm):
    node = baremetal_helpers.make_node(bm)
    for patch in ([{'op': 'add', 'path': '/' + LONG, 'value': 1}],
                  [{'op': 'add', 'path': 1, 'value': 1}]):
        resp = bm.patch('/v1/nodes/%s' % node['uuid'], json=patch)
        assert resp.status_code == 400, resp.text[:300]
        assert len(resp.content) < 4096
