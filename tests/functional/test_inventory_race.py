"""Removing inventory races an allocation writer: never both win, never an orphan."""

import threading

import pytest

from common import exception
from tests import fixtures
from tests.functional import provider_helpers as helpers

ROUNDS = 15


def _remove(client, rp, how):
    path = '/resource_providers/%s/inventories' % rp
    if how == 'delete_one':
        return client.delete(path + '/VCPU')
    if how == 'delete_all':
        return client.delete(path)
    gen = client.get(path).json()['resource_provider_generation']
    return client.put(path, json={'resource_provider_generation': gen,
                                  'inventories': {}})


@pytest.mark.parametrize('how', ['delete_one', 'delete_all', 'put_all'])
def test_remove_races_allocation(berth, client, ctx, how):
    for _ in range(ROUNDS):
        rp = helpers.create_provider(client, ctx)
        client.post('/resource_providers/%s/inventories' % rp,
                    json={'resource_class': 'VCPU', 'total': 8})
        barrier = threading.Barrier(2)
        result = {}

        def allocate():
            barrier.wait()
            try:
                helpers.allocate(ctx, rp, 'VCPU', 1)
                result['alloc'] = True
            except (exception.InventoryNotFound, exception.ConcurrentUpdate):
                result['alloc'] = False

        def remove():
            own = fixtures.PlacementClient(berth.placement_url, version='latest')
            barrier.wait()
            result['remove'] = _remove(own, rp, how).status_code
            own.close()

        threads = [threading.Thread(target=allocate), threading.Thread(target=remove)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # exactly one side wins: the removal succeeded and the allocation
        # failed, or the allocation landed and the removal got a 409
        assert (result['remove'] == 204 or result['remove'] == 200) != result['alloc'], \
            result
        if result['alloc']:
            assert result['remove'] == 409
        assert helpers.orphan_allocations(ctx) == 0


def _concurrently(berth, calls):
    """Run each ``call(client)`` in its own thread, released together; statuses."""
    barrier = threading.Barrier(len(calls))
    statuses = [None] * len(calls)

    def run(i, call):
        own = fixtures.PlacementClient(berth.placement_url, version='latest')
        barrier.wait()
        statuses[i] = call(own).status_code
        own.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(statuses)


def test_concurrent_writes_under_one_generation(berth, client, ctx):
    """Writers holding the same generation: exactly one wins, the rest get 409."""
    rp = helpers.create_provider(client, ctx)
    inv = '/resource_providers/%s/inventories' % rp
    statuses = _concurrently(berth, [
        (lambda c, t=total: c.put(inv, json={'resource_provider_generation': 0,
                                             'inventories': {'VCPU': {'total': t}}}))
        for total in range(1, 6)])
    assert statuses == [200, 409, 409, 409, 409]
    assert client.get(inv).json()['resource_provider_generation'] == 1

    traits = '/resource_providers/%s/traits' % rp
    names = ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE2', 'STORAGE_DISK_SSD', 'HW_NUMA_ROOT']
    statuses = _concurrently(berth, [
        (lambda c, n=name: c.put(traits, json={'resource_provider_generation': 1,
                                               'traits': [n]}))
        for name in names])
    assert statuses == [200, 409, 409, 409]
    body = client.get(traits).json()
    assert body['resource_provider_generation'] == 2
    assert len(body['traits']) == 1


def test_concurrent_post_of_one_class(berth, client, ctx):
    rp = helpers.create_provider(client, ctx)
    inv = '/resource_providers/%s/inventories' % rp
    statuses = _concurrently(berth, [
        (lambda c: c.post(inv, json={'resource_class': 'DISK_GB', 'total': 10}))
        for _ in range(4)])
    assert statuses == [201, 409, 409, 409]
    assert client.get(inv).json()['resource_provider_generation'] == 1


def test_concurrent_put_of_one_trait(berth, client):
    statuses = _concurrently(berth, [(lambda c: c.put('/traits/CUSTOM_RACE'))
                                     for _ in range(4)])
    assert statuses == [201, 204, 204, 204]
