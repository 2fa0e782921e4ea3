"""Bounded work per request: every list in a body has a maximum, no cache grows with input."""

import uuid

import pytest

from api.baremetal.schemas import allocation as alloc_schema
from api.placement.schemas import common
from objects.baremetal import node_choice
from tests.functional import baremetal_helpers

TRAITS = ['CUSTOM_T%d' % i for i in range(alloc_schema.MAX_TRAITS + 1)]


@pytest.mark.parametrize('body, field', [
    ({'resource_class': 'gold', 'traits': TRAITS}, 'traits'),
    ({'resource_class': 'gold',
      'candidate_nodes': ['n%d' % i for i in range(alloc_schema.MAX_CANDIDATE_NODES + 1)]},
     'candidate_nodes'),
    ({'resource_class': 'gold',
      'extra': {'k%d' % i: i for i in range(alloc_schema.MAX_EXTRA_KEYS + 1)}}, 'extra'),
])
def test_allocation_lists_over_the_limit_are_400_and_store_nothing(bm, body, field):
    resp = bm.post('/v1/allocations', json=body)
    assert resp.status_code == 400, resp.text[:300]
    assert field in baremetal_helpers.fault(resp)
    assert bm.get('/v1/allocations').json()['allocations'] == []


def test_allocation_traits_at_the_limit_are_accepted(bm):
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold',
                                            'traits': TRAITS[:-1]})
    assert resp.status_code == 201, resp.text


def test_node_traits_over_the_limit_are_400(bm):
    node = baremetal_helpers.make_node(bm)
    resp = bm.put('/v1/nodes/%s/traits' % node['uuid'], json={'traits': TRAITS})
    assert resp.status_code == 400, resp.text
    assert bm.get('/v1/nodes/%s/traits' % node['uuid']).json()['traits'] == []


def test_a_json_patch_over_the_limit_is_400_and_changes_nothing(bm):
    node = baremetal_helpers.make_node(bm)
    patch = [{'op': 'add', 'path': '/extra/k%d' % i, 'value': i} for i in range(101)]
    resp = bm.patch('/v1/nodes/%s' % node['uuid'], json=patch)
    assert resp.status_code == 400, resp.text
    assert 'at most 100 operations' in baremetal_helpers.fault(resp)
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()['extra'] == {}


def _provider(client):
    resp = client.post('/resource_providers', json={'name': 'rp'})
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_provider_traits_over_the_limit_are_400(client):
    rp = _provider(client)
    traits = ['CUSTOM_T%d' % i for i in range(common.MAX_ITEMS + 1)]
    resp = client.put('/resource_providers/%s/traits' % rp['uuid'],
                      json={'traits': traits, 'resource_provider_generation': 0})
    assert resp.status_code == 400, resp.text[:300]
    assert "'maxItems'" in resp.json()['errors'][0]['detail']
    assert client.get('/traits?name=startswith:CUSTOM_').json()['traits'] == []


def test_provider_aggregates_over_the_limit_are_400(client):
    rp = _provider(client)
    aggs = [str(uuid.uuid4()) for _ in range(common.MAX_ITEMS + 1)]
    resp = client.put('/resource_providers/%s/aggregates' % rp['uuid'],
                      json={'aggregates': aggs, 'resource_provider_generation': 0})
    assert resp.status_code == 400, resp.text[:300]
    assert client.get('/resource_providers/%s/aggregates' % rp['uuid']).json()[
        'aggregates'] == []


def test_trait_slots_are_powers_of_two():
    assert [node_choice.trait_slots(n) for n in (0, 1, 2, 3, 5, 9, 50)] == [
        0, 1, 2, 4, 8, 16, 64]
    params = dict(node_choice.trait_params(['A', 'B', 'C']))
    assert params == {'trait0': 'A', 'trait1': 'B', 'trait2': 'C', 'trait3': 'C'}


def test_the_candidate_query_cache_stays_bounded():
    class Alloc:
        candidate_nodes = owner = name = None
        resource_class = 'gold'

    node_choice.LIMITED.clear()
    for count in range(300):
        alloc = Alloc()
        alloc.traits = ['CUSTOM_T%d' % i for i in range(count)]
        for limit in range(3):
            node_choice.limited_query('sqlite', alloc, limit + 1, ())
    assert 0 < len(node_choice.LIMITED) <= node_choice.LIMITED_CACHE_SIZE
