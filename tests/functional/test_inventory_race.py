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
