"""The provider index of a large region: out of the collector's walks after every rebuild
(not only the first), and read by whole tables when most of it is read.

A full or young collection walks every tracked object of the generations it
collects; at 1,000,000 computes a walk over an index rebuilt after writes
(or over what an unlimited answer left in memos) was a 408 ms pause in a
``limit=50`` request.  Frozen objects (gc.freeze) are never walked: these
tests look for the index's objects among the collector's generations.
"""

import gc

import pytest

from common import heap
from db import api as db_api
from objects.candidates import index as index_mod
from objects.candidates import loader
from objects.placement import inventory as inv_obj
from tests.functional import candidate_helpers as helpers

AGG = '7a6d1f0e-3c1b-4b8e-8f55-1d2c3b4a5e60'


@pytest.fixture
def unfrozen():
    """Thaw what a test froze, so that later tests' garbage is collected as ever."""
    yield
    gc.unfreeze()


def _in_generations(objects):
    """Those of ``objects`` a collection of any generation would walk."""
    walked = {id(o) for g in range(3) for o in gc.get_objects(g)}
    return [o for o in objects if id(o) in walked]


@db_api.reader
def _state(ctx):
    return index_mod.for_database(ctx.db).current(ctx, None, None)


def test_a_rebuilt_index_is_frozen(berth, ctx, monkeypatch, unfrozen):
    monkeypatch.setattr(index_mod, 'SETTLE_AFTER', 1)
    uuids = [helpers.add_provider(ctx, name='cn%d' % i, inventory={'VCPU': 8})
             for i in range(4)]
    first = _state(ctx)
    assert _in_generations(first.providers.values()) == []       # the first load's
    gen = inv_obj.provider_generation(ctx, uuids[0])
    inv_obj.replace_all(ctx, uuids[0], gen, [inv_obj.Inventory('VCPU', 16)],
                        allow_zero_capacity=False)
    helpers.add_provider(ctx, name='new', inventory={'VCPU': 8})
    second = _state(ctx)
    rebuilt = [p for rp_id, p in second.providers.items()
               if first.providers.get(rp_id) is not p]
    assert len(rebuilt) == 2                                # the changed one and the new one
    assert _in_generations(rebuilt + [second.providers, second.trees]) == []


def test_a_replaced_provider_lets_go_of_its_memo(berth, ctx, monkeypatch, unfrozen):
    monkeypatch.setattr(index_mod, 'SETTLE_AFTER', 1)
    uuid = helpers.add_provider(ctx, name='cn', inventory={'VCPU': 8})
    first = _state(ctx)
    (old,) = first.providers.values()
    old.memo['lone'] = ('a candidate naming', old)          # what searches keep there
    gen = inv_obj.provider_generation(ctx, uuid)
    inv_obj.replace_all(ctx, uuid, gen, [inv_obj.Inventory('VCPU', 16)],
                        allow_zero_capacity=False)
    (new,) = _state(ctx).providers.values()
    assert new is not old
    assert old.memo == {}


def test_the_end_of_a_large_pause_freezes_what_it_kept(monkeypatch, unfrozen):
    monkeypatch.setattr(heap, 'FREEZE_AFTER', 1000)
    gc.collect()
    with heap.collection_paused():
        kept = [[i] for i in range(5000)]
    assert _in_generations(kept) == []
    gc.collect()
    with heap.collection_paused():
        few = [[i] for i in range(10)]
    assert len(_in_generations(few)) == 10


@db_api.reader
def _indexed_and_loaded(ctx):
    """(the index's providers, the loader's) by uuid, in one snapshot."""
    state = index_mod.for_database(ctx.db).current(ctx, None, None)
    loaded = {}
    loader.load_trees(ctx, state.roots, True, loaded)
    return ({p.uuid: p for p in state.providers.values()},
            {p.uuid: p for p in loaded.values()})


def _same(ctx):
    indexed, loaded = _indexed_and_loaded(ctx)
    assert sorted(indexed) == sorted(loaded)
    for uuid, p in indexed.items():
        q = loaded[uuid]
        assert (p.inv, p.traits, p.aggs, p.parent_id, p.root_id) == (
            q.inv, q.traits, q.aggs, q.parent_id, q.root_id), uuid


def test_whole_table_reads_give_what_reads_by_id_give(berth, ctx, monkeypatch):
    """A first load (and a rebuild of half the providers or more) reads whole tables."""
    monkeypatch.setattr(index_mod, 'WHOLE_READ_AFTER', 1)
    uuids = []
    for i in range(6):
        uuids.append(helpers.add_provider(
            ctx, name='cn%d' % i, inventory={'VCPU': 8, 'DISK_GB': 100},
            traits=['CUSTOM_T%d' % (i % 2)], aggregates=[AGG] if i % 3 else []))
        helpers.add_provider(ctx, name='numa%d' % i, parent=uuids[-1],
                             inventory={'MEMORY_MB': 1024}, used={'MEMORY_MB': 128},
                             traits=['CUSTOM_NUMA'], aggregates=[AGG])
    _same(ctx)
    for uuid in uuids[:5]:        # 5 of 12 re-read: by id
        inv_obj.replace_all(ctx, uuid, inv_obj.provider_generation(ctx, uuid),
                            [inv_obj.Inventory('VCPU', 4)], allow_zero_capacity=False)
    _same(ctx)
    for uuid in uuids:            # 6 of 12: whole tables, the others' rows skipped
        inv_obj.replace_all(ctx, uuid, inv_obj.provider_generation(ctx, uuid),
                            [inv_obj.Inventory('VCPU', 2)], allow_zero_capacity=False)
    _same(ctx)


@pytest.mark.sqlite_only(reason="SQLite's query planner")
def test_linked_roots_walk_the_root_window_not_the_aggregate(berth, ctx):
    """A limited search's links: its window of roots, not every member of the aggregate."""
    conn = berth.db.engine.raw_connection()
    try:
        statement = loader._LINKS.params(aggs=[1, 2], after=10, upper=20)
        sql = str(statement.compile(dialect=berth.db.engine.dialect,
                                    compile_kwargs={'literal_binds': True}))
        plan = ' | '.join(row[-1] for row in conn.cursor().execute(
            'EXPLAIN QUERY PLAN ' + sql).fetchall())
    finally:
        conn.close()
    assert 'ix_resource_providers_root_provider_id' in plan, plan
    assert 'ix_resource_provider_aggregates_aggregate_id' not in plan, plan
