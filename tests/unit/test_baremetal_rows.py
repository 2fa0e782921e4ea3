"""What the chassis and conductor writes leave in their rows, column by column.

The JSON columns hold JSON (an object for ``extra``, an array for
``drivers``); an absent ``extra`` is SQL NULL, never the JSON ``null``.
"""

import pytest
import sqlalchemy as sa

from common import context as berth_context
from db import models
from objects import database
from objects.baremetal import chassis as chassis_obj
from objects.baremetal import conductor as conductor_obj
from tests import fixtures

UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'


@pytest.fixture
def ctx(tmp_path, tmp_path_factory):
    conf = fixtures.make_conf(tmp_path / 'state')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    db = database.open_database(conf)
    yield berth_context.admin_context(db)
    db.dispose()


def _raw(ctx, table, column, key, *names):
    """The stored text of the JSON columns (as the database holds it) and the others."""
    t = table.__table__
    cols = [sa.type_coerce(t.c[n], sa.Text) if isinstance(t.c[n].type, sa.JSON) else t.c[n]
            for n in names]
    with ctx.db.engine.connect() as conn:
        return tuple(conn.execute(sa.select(*cols).where(t.c[column] == key)).one())


def test_chassis_rows_hold_their_columns(ctx):
    chassis_obj.create(ctx, {'uuid': UUID, 'description': 'rack 1'})
    assert _raw(ctx, models.Chassis, 'uuid', UUID, 'description', 'extra') == ('rack 1', None)
    chassis_obj.update(ctx, UUID, {'extra': {'row': 3}})
    assert _raw(ctx, models.Chassis, 'uuid', UUID, 'description', 'extra') == (
        'rack 1', '{"row": 3}')
    chassis_obj.update(ctx, UUID, {'description': None, 'extra': {}})
    assert _raw(ctx, models.Chassis, 'uuid', UUID, 'description', 'extra') == (None, '{}')
    made = chassis_obj.create(ctx, {'extra': {'a': [1]}})
    assert _raw(ctx, models.Chassis, 'uuid', made.uuid, 'description', 'extra') == (
        None, '{"a": [1]}')


def test_a_conductor_row_holds_its_drivers_as_a_json_array(ctx):
    conductor_obj.register(ctx, 'c1', 'Rack-A', drivers=('ipmi', 'redfish'))
    assert _raw(ctx, models.Conductor, 'hostname', 'c1', 'conductor_group', 'drivers',
                'online') == ('rack-a', '["ipmi", "redfish"]', True)
    first = _raw(ctx, models.Conductor, 'hostname', 'c1', 'created_at')
    conductor_obj.register(ctx, 'c1', '', drivers=['fake'])      # taken over: updated
    assert _raw(ctx, models.Conductor, 'hostname', 'c1', 'conductor_group', 'drivers',
                'online', 'created_at') == ('', '["fake"]', True) + first
