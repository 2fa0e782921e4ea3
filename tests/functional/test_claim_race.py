"""Many schedulers claiming at once: exactly the capacity is granted, no client-visible races."""

import collections
import concurrent.futures
import threading

import pytest

from tests import fixtures
from tests.functional import alloc_helpers as h

# as many clients as the test API server has threads (tests/fixtures.py)
THREADS = 8


@pytest.fixture(autouse=True)
def three_conductors(conf):
    """Claims of different trees land on different conductors of the ring."""
    conf.set_override('embedded_conductors', 3, group='conductor')


def _claim_all(base_url, claims, threads):
    """PUT every (consumer, allocations) at once from ``threads`` clients.

    Returns the (status, error code) of every answer.
    """
    start = threading.Barrier(threads)
    local = threading.local()

    def one(item):
        if not hasattr(local, 'client'):
            local.client = fixtures.PlacementClient(base_url, version='latest')
            start.wait()
        consumer, allocations = item
        resp = h.put(local.client, consumer, allocations, version='1.38',
                     consumer_type='INSTANCE')
        code = resp.json()['errors'][0]['code'] if resp.status_code != 204 else None
        return resp.status_code, code

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, claims))


def _usage(client, rp):
    resp = client.get('/resource_providers/%s/usages' % rp)
    assert resp.status_code == 200, resp.text
    return resp.json()['usages']


def test_last_units_of_one_provider(client, ctx, berth):
    rp = h.provider(client, ctx, {'VCPU': {'total': 12}})
    claims = [(h.new_uuid(), {rp: {'VCPU': 1}}) for _ in range(40)]
    results = collections.Counter(_claim_all(berth.placement_url, claims, THREADS))
    assert results == {(204, None): 12, (409, h.UNDEFINED): 28}
    assert _usage(client, rp) == {'VCPU': 12}


def test_claims_across_trees_sharing_one_provider(client, ctx, berth):
    """Claims routed by different roots still meet on the shared provider."""
    assert len(berth.conductors) == 3
    shared = h.provider(client, ctx, {'DISK_GB': {'total': 30}})
    computes = [h.provider(client, ctx, {'VCPU': {'total': 100}}) for _ in range(6)]
    claims = [(h.new_uuid(), {computes[i % 6]: {'VCPU': 1}, shared: {'DISK_GB': 1}})
              for i in range(45)]
    results = collections.Counter(_claim_all(berth.placement_url, claims, THREADS))
    assert results == {(204, None): 30, (409, h.UNDEFINED): 15}
    assert _usage(client, shared) == {'DISK_GB': 30}
    assert sum(_usage(client, rp)['VCPU'] for rp in computes) == 30


def test_no_conflicts_while_capacity_remains(client, ctx, berth):
    """Every claim fits: every one is granted, none sees placement.concurrent_update."""
    rps = [h.provider(client, ctx, {'VCPU': {'total': 1000}}) for _ in range(3)]
    claims = [(h.new_uuid(), {rps[i % 3]: {'VCPU': 1}}) for i in range(90)]
    results = collections.Counter(_claim_all(berth.placement_url, claims, THREADS))
    assert results == {(204, None): 90}
    assert sum(_usage(client, rp)['VCPU'] for rp in rps) == 90


def test_same_consumer_from_many_clients(client, ctx, berth):
    """Writers racing on one consumer with null: exactly one wins, the rest see
    their own stale consumer generation."""
    rp = h.provider(client, ctx, {'VCPU': {'total': 100}})
    consumer = h.new_uuid()
    claims = [(consumer, {rp: {'VCPU': 1}}) for _ in range(THREADS)]
    results = collections.Counter(_claim_all(berth.placement_url, claims, THREADS))
    assert results == {(204, None): 1, (409, h.CONCURRENT): THREADS - 1}
    assert _usage(client, rp) == {'VCPU': 1}
