"""Provider races and the listing query on PostgreSQL (READ COMMITTED, real row locks).

Runs on the session's PostgreSQL server (tests/integration/conftest.py); each
test gets a fresh database on it.
"""

import uuid as uuidlib

import pytest
import sqlalchemy as sa

from common import context as berth_context
from db import api as db_api
from db import models
from objects import bootstrap
from tests.functional import test_provider_races as races
from tests.integration.conftest import MARKS

pytestmark = MARKS

# only the tables the scenarios touch: the full schema is the migrations' job
_TABLES = [models.Base.metadata.tables[name] for name in (
    'resource_classes', 'traits', 'resource_providers', 'inventories',
    'placement_aggregates', 'resource_provider_aggregates',
    'resource_provider_traits', 'allocations')]


@pytest.fixture
def new_ctx(postgresql):
    url = postgresql.url
    name = 'races_%s' % uuidlib.uuid4().hex[:12]
    admin = sa.create_engine(url, isolation_level='AUTOCOMMIT')
    with admin.connect() as conn:
        conn.execute(sa.text('CREATE DATABASE %s' % name))
    db = db_api.Database(url.rsplit('/', 1)[0] + '/' + name)
    try:
        models.Base.metadata.create_all(db.engine, tables=_TABLES)
        bootstrap.sync_standards(berth_context.admin_context(db))
        yield lambda: berth_context.admin_context(db)
    finally:
        db.dispose()
        with admin.connect() as conn:
            conn.execute(sa.text('DROP DATABASE %s' % name))
        admin.dispose()


@pytest.mark.parametrize('scenario', races.SCENARIOS, ids=lambda f: f.__name__)
def test_race_on_postgresql(new_ctx, scenario):
    scenario(new_ctx)


def test_listing_filters_on_postgresql(new_ctx):
    """The set-based listing query (modulo, capacity arithmetic, EXISTS) on PostgreSQL."""
    from api.placement import microversion, query
    from objects.candidates import provider_search
    from objects.placement import aggregate as agg_obj
    from objects.placement import resource_provider as rp_obj
    from tests.functional import rp_db

    ctx = new_ctx()
    agg = str(uuidlib.uuid4())
    root = rp_obj.create(ctx, 'root').uuid
    good = rp_obj.create(ctx, 'good', parent_uuid=root).uuid
    full = rp_obj.create(ctx, 'full', parent_uuid=root).uuid
    for rp in (good, full):
        rp_db.add_inventory(ctx, rp, 'VCPU', 8, reserved=2, allocation_ratio=2.0,
                            step_size=2, max_unit=8)
        rp_db.add_traits(ctx, rp, 'CUSTOM_X')
        agg_obj.set_for_provider(ctx, rp, {agg})
    rp_db.allocate(ctx, full, 'VCPU', 10)   # (8 - 2) * 2 = 12 < 10 + 4
    group = query.build_group(microversion.Version.parse('1.39'),
                              resources='VCPU:4', required=['CUSTOM_X'],
                              member_of=[agg], in_tree=root)
    assert [rp.uuid for rp in provider_search.get_all(ctx, group=group)] == [good]
    group.resources = {'VCPU': 3}   # not a multiple of step_size
    assert provider_search.get_all(ctx, group=group) == []
