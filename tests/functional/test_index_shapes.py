"""The provider index makes equal inventories one object (objects/candidates/index._Shapes).

Sharing them keeps a search's reference-count writes off the pages of every
provider (what forked API workers would copy); the values must stay each
provider's own: capacity, usage and free amount as the database has them.
"""

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
