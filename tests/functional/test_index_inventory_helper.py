"""A first index load reads the inventories in a helper process (SQLite files only).

objects/candidates/inventory_reader.py: the helper's providers are the
in-process read's, in the same class order; its answer is dropped (the table
read in process) when a commit may have come between the snapshots or when
the helper fails.
"""

import pytest

from objects.candidates import index as index_mod
from objects.candidates import inventory_reader, preload
from objects.placement import inventory as inv_obj
from tests.functional import candidate_helpers as helpers

pytestmark = pytest.mark.sqlite_only('the helper reads a SQLite file')


def _topology(ctx):
    uuids = []
    for i in range(6):
        root = helpers.add_provider(ctx, name='cn%d' % i,
                                    inventory={'DISK_GB': 100 + i % 2, 'VCPU': 8},
                                    traits=['CUSTOM_A'], used={'VCPU': i % 3})
        uuids.append(root)
        uuids.append(helpers.add_provider(ctx, name='numa%d' % i, parent=root,
                                          inventory={'MEMORY_MB': 1024, 'VCPU': 4}))
    return uuids


def _first_load(berth, monkeypatch, helped):
    """{uuid: inv} of a first load (helper from 0 rows when ``helped``), whole tables."""
    monkeypatch.setattr(index_mod, 'WHOLE_READ_AFTER', 1)
    monkeypatch.setattr(inventory_reader, 'HELPER_AFTER', 0 if helped else 10 ** 12)
    index_mod.for_database(berth.db)._state = None
    before = inventory_reader.started[0]
    preload.load_index(berth.db)
    state = index_mod.for_database(berth.db)._state
    assert inventory_reader.started[0] - before == (1 if helped else 0)
    return {p.uuid: p.inv for p in state.providers.values()}


def _shapes(invs):
    return {uuid: list(inv.items()) for uuid, inv in invs.items()}


def test_the_helpers_inventories_are_the_in_process_ones(berth, ctx, monkeypatch):
    _topology(ctx)
    plain = _first_load(berth, monkeypatch, helped=False)
    helped = _first_load(berth, monkeypatch, helped=True)
    assert _shapes(helped) == _shapes(plain)      # values and class order alike
    assert len(helped) == 12


def test_the_helper_honours_every_inventory_field(berth, ctx, monkeypatch):
    """Capacity is (total - reserved) * ratio; min, max and step travel unchanged.

    With reserved 0 and ratio 1.0 a helper that dropped either would still
    agree, so every field here differs from its default and the capacities
    are checked as numbers, not only against the in-process read.
    """
    specs = [
        {'total': 32, 'reserved': 8, 'allocation_ratio': 1.0},
        {'total': 16, 'reserved': 0, 'allocation_ratio': 4.0, 'min_unit': 2,
         'max_unit': 8, 'step_size': 2},
        {'total': 10, 'reserved': 3, 'allocation_ratio': 1.5, 'min_unit': 1,
         'max_unit': 7, 'step_size': 1},
    ]
    uuids = [helpers.add_provider(ctx, name='odd%d' % i, inventory={'VCPU': spec})
             for i, spec in enumerate(specs)]
    plain = _first_load(berth, monkeypatch, helped=False)
    helped = _first_load(berth, monkeypatch, helped=True)
    assert _shapes(helped) == _shapes(plain)
    got = [list(helped[uuid].values())[0][:4] for uuid in uuids]   # min, max, step, capacity
    assert got == [(1, 32, 1, 24), (2, 8, 2, 64), (1, 7, 1, 10)]


def test_a_commit_during_the_helpers_read_drops_its_answer(berth, ctx, monkeypatch):
    uuids = _topology(ctx)
    plain = _first_load(berth, monkeypatch, helped=False)
    real_init = inventory_reader.Helper.__init__

    def init(self, db, path, token):
        # committed after the load's snapshot began, before the helper's
        gen = inv_obj.provider_generation(ctx, uuids[0])
        inv_obj.replace_all(ctx, uuids[0], gen, [inv_obj.Inventory('VCPU', 2)],
                            allow_zero_capacity=False)
        real_init(self, db, path, token)

    monkeypatch.setattr(inventory_reader.Helper, '__init__', init)
    helped = _first_load(berth, monkeypatch, helped=True)
    # read in process, in the load's own snapshot: the inventory before the commit
    assert _shapes(helped) == _shapes(plain)


def test_a_failed_helper_is_read_in_process(berth, ctx, monkeypatch):
    _topology(ctx)
    plain = _first_load(berth, monkeypatch, helped=False)
    real_init = inventory_reader.Helper.__init__

    def init(self, db, path, token):
        real_init(self, db, path + '.missing/x', token)

    monkeypatch.setattr(inventory_reader.Helper, '__init__', init)
    helped = _first_load(berth, monkeypatch, helped=True)
    assert _shapes(helped) == _shapes(plain)
