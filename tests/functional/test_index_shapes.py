"""The provider index makes equal inventories one object (objects/candidates/index._Shapes).

Sharing them keeps a search's reference-count writes off the pages of every
provider (what forked API workers would copy); the values must stay each
provider's own: capacity, usage and free amount as the database has them.
"""

import gc
import sys

from db import api as db_api
from objects.candidates import index as index_mod
from objects.candidates import preload
from tests.functional import candidate_helpers as helpers


@db_api.reader
def _class_ids(ctx, *names):
    return [helpers._id_of(ctx.session, helpers._RC, helpers._RC.c.name, n) for n in names]


def test_equal_inventories_are_one_object_and_usage_stays_per_provider(berth, ctx):
    inventory = {'VCPU': 8, 'DISK_GB': 100}
    a = helpers.add_provider(ctx, 'a', inventory=inventory)
    b = helpers.add_provider(ctx, 'b', inventory=inventory)
    c = helpers.add_provider(ctx, 'c', inventory=inventory, used={'VCPU': 3})
    preload.load_index(ctx.db)
    by_uuid = {p.uuid: p for p in index_mod.for_database(ctx.db)._state.providers.values()}
    pa, pb, pc = by_uuid[a], by_uuid[b], by_uuid[c]
    vcpu, disk = _class_ids(ctx, 'VCPU', 'DISK_GB')
    assert pa.inv is pb.inv
    # (min_unit, max_unit, step, free, capacity, used)
    assert pa.inv[vcpu] == (1, 8, 1, 8, 8, 0)
    assert pc.inv is not pa.inv
    assert pc.inv[vcpu] == (1, 8, 1, 5, 8, 3)
    assert pc.inv[disk] is pa.inv[disk]
    assert pc.inv[vcpu][1] is pa.inv[vcpu][1]      # equal ints too


def test_equal_base_inventories_are_one_dict_whatever_the_usage(berth, ctx):
    inventory = {'VCPU': 8, 'DISK_GB': 100}
    a = helpers.add_provider(ctx, 'a', inventory=inventory)
    b = helpers.add_provider(ctx, 'b', inventory=inventory, used={'VCPU': 2})
    c = helpers.add_provider(ctx, 'c', inventory={'VCPU': 4})
    preload.load_index(ctx.db)
    state = index_mod.for_database(ctx.db)._state
    bases = {base.row[1]: base for base in state.bases.values()}
    vcpu, disk = _class_ids(ctx, 'VCPU', 'DISK_GB')
    assert bases[a].inv is bases[b].inv
    # (min_unit, max_unit, step, capacity)
    assert bases[a].inv == {vcpu: (1, 8, 1, 8), disk: (1, 100, 1, 100)}
    assert bases[c].inv == {vcpu: (1, 4, 1, 4)}
    by_uuid = {p.uuid: p for p in state.providers.values()}
    assert by_uuid[b].inv[vcpu] == (1, 8, 1, 6, 8, 2)
    assert by_uuid[c].inv[vcpu] == (1, 4, 1, 4, 4, 0)


def test_index_refresh_runs_no_automatic_collection(berth, ctx):
    for i in range(20):
        helpers.add_provider(ctx, 'p%d' % i, inventory={'VCPU': 8})
    starts = []

    def count(phase, info):
        frame = sys._getframe(1)
        while frame is not None and frame.f_code is not index_mod.ProviderIndex._refresh.__code__:
            frame = frame.f_back
        if phase == 'start' and frame is not None:       # one started by the refresh
            starts.append(info['generation'])

    thresholds = gc.get_threshold()
    gc.set_threshold(5, 1, 1)         # any few allocations would start one
    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        preload.load_index(ctx.db)
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*thresholds)
    assert len(index_mod.for_database(ctx.db)._state.providers) >= 20
    assert starts == []
    assert gc.isenabled()
