"""conductor.rpcapi.routing: every write's key comes from its own arguments."""

from unittest import mock

from common import inventory_contract
from conductor.rpcapi import payloads, routing

# a context of a process with a database (the routing tree is looked up)
CTX = mock.Mock(name='ctx', db=object())
EMPTY = inventory_contract.ProviderInventories(0, {})


def _consumer(uuid, *providers):
    return payloads.ClaimConsumer(uuid, {rp: {'VCPU': 1} for rp in providers}, 'p', 'u')


def test_claim_tree_is_the_root_of_the_first_provider_and_is_cached():
    cache = routing.RootCache()
    with mock.patch.object(routing, 'ROOTS', cache), \
            mock.patch.object(routing, '_routing_tree',
                              return_value='root-a') as lookup:
        assert routing.claim_tree(CTX, [_consumer('c-2', 'rp-b'),
                                          _consumer('c-1', 'rp-a')]) == 'root-a'
        assert routing.claim_tree(CTX, [_consumer('c-3', 'rp-a')]) == 'root-a'
    lookup.assert_called_once_with(CTX, {'rp-a', 'rp-b'}, ['c-2', 'c-1'])


def test_known_claim_tree_answers_from_the_cache_only():
    """No database read: None until a lookup cached the first provider's root."""
    cache = routing.RootCache()
    with mock.patch.object(routing, 'ROOTS', cache), \
            mock.patch.object(routing, '_routing_tree', return_value='root-a') as lookup:
        assert routing.known_claim_tree([_consumer('c-1', 'rp-b', 'rp-a')]) is None
        assert not lookup.called
        routing.claim_tree(CTX, [_consumer('c-2', 'rp-a')])
        assert routing.known_claim_tree([_consumer('c-3', 'rp-b', 'rp-a')]) == 'root-a'
        assert routing.known_claim_tree([_consumer('c-4', 'rp-b')]) is None
    assert lookup.call_count == 1


def test_warm_reads_the_uncached_trees_of_a_call_at_once():
    """One read for every claim left without a tree; an unknown provider stays uncached."""
    cache = routing.RootCache()
    cache._roots['rp-c'] = 'root-c'
    with mock.patch('objects.placement.allocation.routing_roots',
                    return_value={'rp-a': 'root-a'}) as read, \
            mock.patch.object(routing, '_routing_tree', return_value='rp-x') as lookup:
        cache.warm(CTX, [{'rp-b', 'rp-a'}, {'rp-c'}, {'rp-x'}, set()])
        read.assert_called_once_with(CTX, {'rp-a', 'rp-x'})
        assert cache.tree(CTX, {'rp-a', 'rp-b'}) == 'root-a'
        assert cache.tree(CTX, {'rp-x'}) == 'rp-x'      # looked up alone, as before
        cache.warm(CTX, [{'rp-a'}, {'rp-c'}])          # all cached: no read
        cache.warm(mock.Mock(name='ctx', db=None), [{'rp-z'}])   # no database: no read
    assert read.call_count == 1
    lookup.assert_called_once_with(CTX, {'rp-x'}, [])


def test_a_consumer_without_providers_is_looked_up_every_time():
    cache = routing.RootCache()
    with mock.patch.object(routing, 'ROOTS', cache), \
            mock.patch.object(routing, '_routing_tree',
                              return_value='root-x') as lookup:
        assert routing.consumer_tree(CTX, 'c-1') == 'root-x'
        assert routing.consumer_tree(CTX, 'c-1') == 'root-x'
    assert lookup.call_count == 2   # its providers may change: never cached


def test_reshape_goes_by_inventories_and_allocations_together():
    body = payloads.ReshapeBody({'rp-z': EMPTY}, [_consumer('c-1', 'rp-y')])
    with mock.patch.object(routing, 'ROOTS', routing.RootCache()), \
            mock.patch.object(routing, '_routing_tree',
                              return_value='root-y') as lookup:
        assert routing.reshape_tree(CTX, body) == 'root-y'
    lookup.assert_called_once_with(CTX, {'rp-y', 'rp-z'}, ['c-1'])


def test_the_cache_is_bounded(monkeypatch):
    cache = routing.RootCache()
    monkeypatch.setattr(cache, 'MAX', 2)
    with mock.patch.object(routing, '_routing_tree', side_effect=lambda c, p, u: 'r'):
        for rp in ('a', 'b', 'c'):
            cache.tree(CTX, {rp})
    assert len(cache._roots) == 1   # cleared when full, then the new entry


def test_without_a_database_the_tree_is_left_to_the_conductor():
    """Another service's process: no lookup, the first provider routes."""
    bare = mock.Mock(name='ctx', db=None)
    with mock.patch.object(routing, '_routing_tree') as lookup:
        assert routing.claim_tree(bare, [_consumer('c-1', 'rp-b', 'rp-a')]) is None
        assert routing.consumer_tree(bare, 'c-1') is None
    assert not lookup.called
    assert routing.fallback_key({'rp-b', 'rp-a'}, 'c-1') == 'rp-a'
    assert routing.fallback_key((), 'c-1') == 'c-1'
