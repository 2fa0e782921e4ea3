"""API answers where database engines usually differ; the same on every BERTH_TEST_DB.

MySQL's default collations ignore case and trailing spaces, its FLOAT is single
precision, and PostgreSQL rejects what SQLite silently stores: each case here
went wrong on one engine in some OpenStack service.
"""

from tests.functional import alloc_helpers as h


def _create(client, name):
    return client.post('/resource_providers', json={'name': name, 'uuid': h.new_uuid()},
                       version='1.20')


def _names(client, query=''):
    resp = client.get('/resource_providers' + query)
    assert resp.status_code == 200, resp.text
    return sorted(rp['name'] for rp in resp.json()['resource_providers'])


def test_provider_names_differing_in_case_or_trailing_space_are_distinct(client):
    for name in ('rack1', 'RACK1', 'rack1 '):
        resp = _create(client, name)
        assert resp.status_code == 200, resp.text
    assert _names(client) == ['RACK1', 'rack1', 'rack1 ']
    assert _names(client, '?name=rack1') == ['rack1']
    assert _create(client, 'rack1').status_code == 409


def test_non_bmp_names_round_trip(client):
    name = 'rack \U0001F680 \u00e9t\u00e9'      # a 4-byte character needs utf8mb4
    resp = _create(client, name)
    assert resp.status_code == 200, resp.text
    assert resp.json()['name'] == name
    assert _names(client, '?name=' + name) == [name]


def test_custom_trait_and_class_names_are_case_exact(client):
    assert client.put('/traits/CUSTOM_GOLD').status_code == 201
    assert client.get('/traits/CUSTOM_GOLD').status_code == 204
    resp = client.get('/traits?name=startswith:CUSTOM_GO')
    assert resp.json()['traits'] == ['CUSTOM_GOLD']
    assert client.put('/resource_classes/CUSTOM_DISK', version='1.7').status_code == 201
    assert client.get('/resource_classes/CUSTOM_DISK').status_code == 200


def test_allocation_ratio_keeps_double_precision(client, ctx):
    rp = h.provider(client, ctx, {'VCPU': {'total': 10, 'allocation_ratio': 1.1},
                                  'MEMORY_MB': {'total': 1000, 'allocation_ratio': 0.3}})
    resp = client.get('/resource_providers/%s/inventories' % rp)
    assert resp.status_code == 200, resp.text
    inventories = resp.json()['inventories']
    assert inventories['VCPU']['allocation_ratio'] == 1.1
    assert inventories['MEMORY_MB']['allocation_ratio'] == 0.3


def test_consumer_uuids_match_exactly(client, ctx):
    rp = h.provider(client, ctx, {'VCPU': {'total': 8}})
    consumer = h.new_uuid()
    resp = client.put('/allocations/' + consumer, json=h.body({rp: {'VCPU': 1}}),
                      version='1.37')
    assert resp.status_code == 204, resp.text
    assert client.get('/allocations/' + consumer).json()['allocations']
    upper = client.get('/allocations/' + consumer.upper())
    assert upper.status_code == 200
    assert upper.json()['allocations'] == {}
