"""The provider index makes equal inventories one object (objects/candidates/shapes.py).

Sharing them keeps a search's reference-count writes off the pages of every
provider (what forked API workers would copy); the values must stay each
provider's own: capacity, usage and free amount as the database has them.
"""

import gc
import sys
import uuid as uuidlib

import sqlalchemy as sa

from db import api as db_api
from db import models
from objects.candidates import index as index_mod
from objects.candidates import preload
from tests.functional import candidate_helpers as helpers


@db_api.reader
def _class_ids(ctx, *names):
    return [helpers._id_of(ctx.session, helpers._RC, helpers._RC.c.name, n) for n in names]


@db_api.writer
def _allocate(ctx, uuid, rc, amount):
    """One allocation row on provider ``uuid`` (no generation bump, as usage writes)."""
    s = ctx.session
    rp_id = s.execute(sa.select(helpers._RP.c.id).where(helpers._RP.c.uuid == uuid)).scalar()
    s.execute(helpers._ALLOC.insert().values(
        resource_provider_id=rp_id, resource_class_id=helpers._id_of(
            s, helpers._RC, helpers._RC.c.name, rc), used=amount,
        consumer_id=str(uuidlib.uuid4()), created_at=models._now()))


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


def test_one_object_per_provider_and_a_usage_change_keeps_the_rest(berth, ctx):
    inventory = {'VCPU': 8, 'DISK_GB': 100}
    a = helpers.add_provider(ctx, 'a', inventory=inventory)
    b = helpers.add_provider(ctx, 'b', inventory=inventory, traits=['CUSTOM_X'])
    preload.load_index(ctx.db)
    index = index_mod.for_database(ctx.db)
    state = index._state
    assert not hasattr(state, 'bases')
    by_uuid = {p.uuid: p for p in state.providers.values()}
    pa, pb = by_uuid[a], by_uuid[b]
    assert pa.row[:2] == (pa.id, a)                     # its scan row, on it
    assert pa.uuid is pa.row[1] and pa.root_id is pa.row[4]
    vcpu, disk = _class_ids(ctx, 'VCPU', 'DISK_GB')
    _allocate(ctx, b, 'VCPU', 2)                        # usage alone: no generation bump
    preload.load_index(ctx.db)
    new = {p.uuid: p for p in index._state.providers.values()}
    assert new[a] is pa                                 # unchanged: the same object
    nb = new[b]
    assert nb is not pb and nb.row is pb.row and nb.traits is pb.traits
    assert nb.inv[vcpu] == (1, 8, 1, 6, 8, 2)
    assert nb.inv[disk] == pa.inv[disk] == (1, 100, 1, 100, 100, 0)
    assert set(nb.traits.values()) == {'CUSTOM_X'}


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
