"""The engine layer on the engine BERTH_TEST_DB selects: migrations, isolation, locks.

Each test runs in every engine's pass (sqlite, postgresql, mysql) and expects
the same answer, except where an engine has no such thing (said in a skip).
"""

import threading

from alembic import autogenerate
from alembic import migration as alembic_migration
from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from common import context as berth_context
from common.conf import builder
from db import api as db_api
from db import dialect, migration, models
from tests import dbengines

_TRAITS = models.Trait.__table__
_SERVER_ONLY = pytest.mark.skipif(
    not dbengines.is_server(),
    reason='SQLite has no row locks: its one writer holds the whole database')


@pytest.fixture
def empty(tmp_path):
    """A Database on a new, empty database of the selected engine."""
    url, drop = dbengines.empty_database(tmp_path)
    db = db_api.Database(url)
    yield db
    db.dispose()
    drop()


def _include(obj, name, type_, reflected, compare_to):
    return not (type_ == 'table' and name == 'alembic_version')


def test_migrations_up_from_empty_match_the_models(empty):
    assert migration.version(empty) is None
    migration.upgrade(empty)
    assert migration.version(empty) == migration.head()
    with empty.engine.connect() as conn:
        ctx = alembic_migration.MigrationContext.configure(
            conn, opts={'compare_type': True, 'include_object': _include})
        diff = autogenerate.compare_metadata(ctx, models.Base.metadata)
    assert diff == []


def test_upgrade_twice_is_a_no_op(empty):
    migration.upgrade(empty)
    migration.upgrade(empty)
    assert migration.version(empty) == migration.head()


def test_server_sessions_run_read_committed(ctx):
    with ctx.db.engine.connect() as conn:
        level = dialect.isolation_level(conn)
    expected = 'READ COMMITTED' if dbengines.is_server() else 'SERIALIZABLE'
    assert level == expected


def test_names_are_exact_on_every_engine(ctx):
    """Case and trailing spaces make different names (MySQL: binary collation)."""
    with ctx.db.engine.begin() as conn:
        for name in ('CUSTOM_PARITY', 'CUSTOM_PARITY ', 'CUSTOM_parity'):
            conn.execute(_TRAITS.insert().values(name=name, created_at=models._now()))
        found = conn.execute(sa.select(_TRAITS.c.name).where(
            _TRAITS.c.name == 'CUSTOM_PARITY')).scalars().all()
        collation = dialect.column_collation(conn, 'traits', 'name')
    assert found == ['CUSTOM_PARITY']
    if dbengines.ENGINE == 'mysql':
        assert collation in dialect.MYSQL_COLLATIONS


def test_duplicate_names_still_clash(ctx):
    with ctx.db.engine.begin() as conn:
        conn.execute(_TRAITS.insert().values(name='CUSTOM_TWICE', created_at=models._now()))
    with pytest.raises(db_exc.DBDuplicateEntry):
        with ctx.db.writer(ctx):
            ctx.session.execute(_TRAITS.insert().values(name='CUSTOM_TWICE',
                                                        created_at=models._now()))


def _custom_traits(db, *names):
    with db.engine.begin() as conn:
        for name in names:
            conn.execute(_TRAITS.insert().values(name=name, created_at=models._now()))
    with db.engine.connect() as conn:
        return dict(conn.execute(sa.select(_TRAITS.c.name, _TRAITS.c.id).where(
            _TRAITS.c.name.in_(names))).all())


def _locked_names(db, skip_locked):
    query = dialect.lock_rows(sa.select(_TRAITS.c.name).where(
        _TRAITS.c.name.like('CUSTOM\\_LOCK%', escape='\\')).order_by(_TRAITS.c.name),
        skip_locked=skip_locked)
    with db.engine.begin() as conn:
        return conn.execute(query).scalars().all()


def test_lock_rows_without_contention_returns_every_row(ctx):
    _custom_traits(ctx.db, 'CUSTOM_LOCK_A', 'CUSTOM_LOCK_B')
    assert _locked_names(ctx.db, skip_locked=False) == ['CUSTOM_LOCK_A', 'CUSTOM_LOCK_B']
    assert _locked_names(ctx.db, skip_locked=True) == ['CUSTOM_LOCK_A', 'CUSTOM_LOCK_B']


@_SERVER_ONLY
def test_skip_locked_leaves_out_rows_another_transaction_holds(ctx):
    _custom_traits(ctx.db, 'CUSTOM_LOCK_A', 'CUSTOM_LOCK_B')
    with ctx.db.engine.connect() as holder:
        with holder.begin():
            holder.execute(dialect.lock_rows(sa.select(_TRAITS.c.id).where(
                _TRAITS.c.name == 'CUSTOM_LOCK_A')))
            assert _locked_names(ctx.db, skip_locked=True) == ['CUSTOM_LOCK_B']


@db_api.writer
def _swap(ctx, first, second, barrier, attempts):
    """Touch ``first`` then ``second``; the first attempts meet at the barrier."""
    attempts.append(first)
    ctx.session.execute(_TRAITS.update().where(_TRAITS.c.id == first)
                        .values(updated_at=models._now()))
    if len(attempts) <= 2:
        barrier.wait()
    ctx.session.execute(_TRAITS.update().where(_TRAITS.c.id == second)
                        .values(updated_at=models._now()))
    return first


@_SERVER_ONLY
def test_a_deadlock_victim_is_retried_and_both_writers_commit(ctx):
    ids = _custom_traits(ctx.db, 'CUSTOM_DL_A', 'CUSTOM_DL_B')
    a, b = ids['CUSTOM_DL_A'], ids['CUSTOM_DL_B']
    barrier, attempts, results, errors = threading.Barrier(2), [], [], []

    def run(first, second):
        try:
            results.append(_swap(berth_context.admin_context(ctx.db), first, second,
                                 barrier, attempts))
        except Exception as exc:   # reported below, not swallowed
            errors.append(exc)

    threads = [threading.Thread(target=run, args=pair) for pair in ((a, b), (b, a))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(results) == sorted([a, b])
    assert len(attempts) == 3          # the deadlock victim ran once more


@db_api.writer
def _fails_once(ctx, calls, exc):
    calls.append(1)
    if len(calls) == 1:
        raise exc
    return len(calls)


def test_outermost_writer_retries_a_deadlock(ctx):
    calls = []
    assert _fails_once(ctx, calls, db_exc.DBDeadlock()) == 2


def test_nested_writer_leaves_the_retry_to_the_outermost(ctx):
    calls = []

    @db_api.writer
    def outer(ctx):
        return _fails_once(ctx, calls, db_exc.DBDeadlock())

    assert outer(ctx) == 2
    assert len(calls) == 2


def test_other_errors_are_not_retried(ctx):
    calls = []
    with pytest.raises(db_exc.DBDuplicateEntry):
        _fails_once(ctx, calls, db_exc.DBDuplicateEntry())
    assert calls == [1]


def _libpq_parameters(tmp_path, open_db):
    """The libpq parameters of a connection of ``open_db(url)`` (PostgreSQL only)."""
    if dbengines.ENGINE != 'postgresql':
        pytest.skip('libpq parameters: PostgreSQL only (BERTH_TEST_DB=postgresql)')
    url, drop = dbengines.empty_database(tmp_path)
    db = open_db(url)
    try:
        with db.engine.connect() as conn:
            return conn.connection.dbapi_connection.get_dsn_parameters()
    finally:
        db.dispose()
        drop()


def test_postgresql_connections_give_up_on_a_silent_server(tmp_path):
    """libpq's connect timeout, keepalives and TCP user timeout are on every
    PostgreSQL connection; what the URL sets wins (db.dialect.POSTGRESQL_TIMEOUTS)."""
    params = _libpq_parameters(tmp_path, lambda url: db_api.Database(
        url + ('&' if '?' in url else '?') + 'keepalives_idle=42'))
    assert params['tcp_user_timeout'] == '30000'
    assert params['connect_timeout'] == '10'
    assert (params['keepalives'], params['keepalives_interval'],
            params['keepalives_count']) == ('1', '5', '3')
    assert params['keepalives_idle'] == '42'


def test_database_options_reach_the_engine(tmp_path):
    """``[database] connection_parameters`` is applied (and beats berth's default)."""
    def from_conf(url):
        conf = builder.build(config_files=[], overrides={
            'database.connection': url,
            'database.connection_parameters':
                'application_name=berth-test&tcp_user_timeout=7000'})
        return db_api.Database.from_conf(conf)

    params = _libpq_parameters(tmp_path, from_conf)
    assert params['application_name'] == 'berth-test'
    assert params['tcp_user_timeout'] == '7000'
    assert params['connect_timeout'] == '10'


def _pooled_connection_killed(url, db):
    """Use ``db``'s one pooled connection, then end it from the server side."""
    with db.engine.connect() as conn:
        backend = conn.execute(sa.text(dbengines.BACKEND_ID[dbengines.ENGINE])).scalar()
    dbengines.end_backend(url, backend)


@pytest.mark.skipif(not dbengines.is_server(),
                    reason='SQLite: no server to end a connection, nothing pinged')
@pytest.mark.parametrize('idle_after, sleep, first_use_fails', [
    (0, 0, False),          # oslo.db's ping at every checkout
    (0.2, 0.4, False),      # idle past the bound: pinged, replaced
    (3600, 0, True),        # used just now: not pinged, one statement fails
], ids=['ping-always', 'idle-pinged', 'fresh-not-pinged'])
def test_a_connection_the_server_ended_is_pinged_only_after_idling(
        tmp_path, idle_after, sleep, first_use_fails):
    """db.liveness: the trade, both sides; either way the next use works."""
    url, drop = dbengines.empty_database(tmp_path)
    db = db_api.Database(url, ping_idle_after=idle_after)
    try:
        _pooled_connection_killed(url, db)
        threading.Event().wait(sleep)
        if first_use_fails:
            with pytest.raises(db_exc.DBConnectionError):
                with db.engine.connect() as conn:
                    conn.execute(sa.text('SELECT 1'))
        with db.engine.connect() as conn:
            assert conn.execute(sa.text('SELECT 1')).scalar() == 1
    finally:
        db.dispose()
        drop()
