"""Legacy compute node migration with PostgreSQL: a Nova cell source, and berth on PostgreSQL."""

import uuid as uuidlib

import pytest
import sqlalchemy as sa

from common import context as berth_context
from objects import bootstrap, database
from objects.legacy import online_migrations
from tests import fixtures, nova_cell
from tests.functional import legacy_helpers
from tests.functional import test_compute_node_import as import_tests
from tests.integration.conftest import MARKS

pytestmark = MARKS


def _new_database(server_url, prefix):
    name = '%s_%s' % (prefix, uuidlib.uuid4().hex[:10])
    admin = sa.create_engine(server_url, isolation_level='AUTOCOMMIT')
    try:
        with admin.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % name))
    finally:
        admin.dispose()
    return server_url.rsplit('/', 1)[0] + '/' + name


def test_import_from_a_postgresql_nova_cell(berth, conf, ctx, client, postgresql):
    url = _new_database(postgresql.url, 'nova_cell')
    nova_cell.create(url, nova_cell.make_rows(1000))
    import_tests.import_end_to_end(berth, conf, ctx, client, url)


@pytest.fixture
def pg_berth(postgresql, tmp_path):
    """An embedded berth whose own database is a fresh PostgreSQL database."""
    conf = fixtures.make_conf(tmp_path / 'state')
    conf.set_override('connection', _new_database(postgresql.url, 'berth'),
                      group='database')
    nova_cell.set_conf(conf)
    db = database.open_database(conf)
    try:
        database.upgrade(db)
        bootstrap.sync_standards(berth_context.admin_context(db))
    finally:
        db.dispose()
    stack = fixtures.start_embedded(conf)
    yield conf, stack
    stack.stop()


def test_online_migration_on_postgresql_interrupted_and_resumed(pg_berth):
    conf, stack = pg_berth
    ctx = berth_context.admin_context(stack.db)
    rows = nova_cell.make_rows(1000)
    legacy_helpers.insert_legacy_rows(stack.db, rows)
    code, (nodes, _) = online_migrations.run(ctx, conf, max_count=500)
    assert code == online_migrations.MORE and nodes.found == 500
    code, (nodes, _) = online_migrations.run(ctx, conf)
    assert code == online_migrations.FAILED_ROWS
    assert sorted(i for i, _ in nodes.failed) == sorted(r['id'] for r in rows if r['bad'])
    client = fixtures.PlacementClient(stack.placement_url, version='latest')
    try:
        uuids = legacy_helpers.uuids_by_name(stack.db)
        assert legacy_helpers.check_over_api(client, rows, uuids) == sum(
            1 for r in rows if r['expect'])
        legacy_helpers.check_resource_queries(client, rows)
    finally:
        client.close()
