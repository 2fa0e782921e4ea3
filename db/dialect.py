"""Everything berth does differently per database engine, in one place.

berth runs on SQLite (small sites), PostgreSQL and MySQL/MariaDB with the same
answers.  Queries are written once in SQLAlchemy Core; what cannot be is here:

- **Isolation.**  PostgreSQL and MySQL sessions run READ COMMITTED, set by berth
  on every new connection (MySQL's default is REPEATABLE READ, whose snapshot
  would keep re-reading a stale generation after a lost compare-and-swap, and
  whose gap locks deadlock more).  SQLite writers serialise (BEGIN IMMEDIATE).
- **Deadlocks.**  InnoDB and PostgreSQL may pick a transaction as a deadlock
  victim; the outermost writer is retried (``retry_on_deadlock``).  MariaDB
  reports a deadlock on the table's AUTO-INC lock (concurrent
  ``INSERT ... SELECT``) as error 1467, "Failed to read auto-increment value
  from storage engine", with the transaction rolled back: that is a deadlock
  too (``_autoinc_deadlock``), not a 503.
- **Row locks.**  ``lock_rows`` is ``SELECT ... FOR UPDATE [SKIP LOCKED]`` on the
  servers; SQLite has no row locks, and needs none: its one writer holds the
  database's write lock for the whole transaction.
- **A silent server.**  A PostgreSQL connection gives up on a server that
  stopped answering (a partition, a dead host) within about half a minute:
  libpq's connect timeout, TCP keepalives and TCP user timeout
  (``POSTGRESQL_TIMEOUTS``), so a thread is not parked on a dead socket for
  the kernel's ~15 minutes.  Parameters in the connection URL or in
  ``[database] connection_parameters`` win.
- **Collation.**  MySQL compares strings case- and trailing-space-insensitively
  by default; berth's tables use a binary collation (migration 0002) so names,
  uuids and traits are unique and matched exactly as on the other engines.
"""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import exc_filters
import sqlalchemy as sa

SQLITE = 'sqlite'
POSTGRESQL = 'postgresql'
MYSQL = 'mysql'
READ_COMMITTED = 'READ COMMITTED'
# MariaDB's NO PAD binary collation; MySQL 8's utf8mb4_0900_bin is NO PAD too
MYSQL_COLLATIONS = ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin', 'utf8mb4_bin')
DEADLOCK_RETRIES = 5


@exc_filters.filters('mysql', sa.exc.OperationalError,
                     r'^.*\b1467\b.*Failed to read auto-increment value.*')
def _autoinc_deadlock(error, match, engine_name, is_disconnect):
    """oslo.db's translation of MariaDB's AUTO-INC lock deadlock (error 1467)."""
    raise db_exc.DBDeadlock(error)


# libpq parameters of every PostgreSQL connection, unless the operator set
# them: refuse a connect after 10 s; probe an idle connection after 10 s, every
# 5 s, 3 times; drop a connection whose sent data stays unacknowledged 30 s
# (keepalives never end a long query: the server's kernel answers them)
POSTGRESQL_TIMEOUTS = (('connect_timeout', '10'), ('keepalives', '1'),
                       ('keepalives_idle', '10'), ('keepalives_interval', '5'),
                       ('keepalives_count', '3'), ('tcp_user_timeout', '30000'))


def connection_parameters(url, given=None):
    """``given`` (a query string) plus berth's defaults for the URL's engine.

    Only PostgreSQL has defaults (``POSTGRESQL_TIMEOUTS``); a key already in
    the URL or in ``given`` keeps its value.
    """
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() != POSTGRESQL:
        return given or None
    have = set(parsed.query) | {part.split('=', 1)[0]
                                for part in (given or '').split('&') if part}
    extra = ['%s=%s' % (key, value) for key, value in POSTGRESQL_TIMEOUTS
             if key not in have]
    return '&'.join(([given] if given else []) + extra) or None


def name(bind):
    """The engine family of an Engine or Connection: sqlite, postgresql or mysql."""
    return bind.dialect.name if bind.dialect.name != 'mariadb' else MYSQL


def configure(engine, sqlite_writer=False):
    """Per-connection settings of a new engine (call before it serves requests)."""
    if name(engine) == SQLITE:
        _tune_sqlite(engine, immediate=sqlite_writer)
    else:
        @sa.event.listens_for(engine, 'connect')
        def _on_connect(dbapi_con, _record):
            engine.dialect.set_isolation_level(dbapi_con, READ_COMMITTED)

    # the connection oslo.db opened to test the URL predates the listeners
    engine.dispose()


def _tune_sqlite(engine, immediate):
    """Make a SQLite file safe for many threads.

    WAL lets readers run beside the one writer; every write transaction
    takes the write lock up front (BEGIN IMMEDIATE) and waits for it, instead
    of failing with "database is locked" when a read lock cannot be upgraded.
    """

    @sa.event.listens_for(engine, 'connect')
    def _on_connect(dbapi_con, _record):
        dbapi_con.execute('PRAGMA journal_mode=WAL')
        dbapi_con.execute('PRAGMA busy_timeout=30000')

    if not immediate:
        return

    # oslo.db emits a deferred BEGIN for SQLite; writers replace it.
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', '') == '_sqlite_emit_begin':
            sa.event.remove(engine, 'begin', listener)

    @sa.event.listens_for(engine, 'begin')
    def _on_begin(conn):
        if 'in_transaction' not in conn.info:
            conn.exec_driver_sql('BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True


def isolation_level(connection):
    """The isolation level of a Connection, as the engine names it."""
    return connection.get_isolation_level()


def lock_rows(query, skip_locked=False):
    """``query`` with ``FOR UPDATE`` (``SKIP LOCKED``: rows others hold are left out).

    PostgreSQL and MySQL 8 / MariaDB 10.6+ lock the selected rows until the
    transaction ends; SQLite ignores the clause (its writer holds the database).
    """
    return query.with_for_update(skip_locked=skip_locked)


def retry_on_deadlock(fn):
    """Retry ``fn`` (a whole transaction) when the engine picked it as a deadlock victim."""
    return oslo_db_api.wrap_db_retry(max_retries=DEADLOCK_RETRIES, retry_interval=0.05,
                                     inc_retry_interval=True, max_retry_interval=0.5,
                                     retry_on_deadlock=True, jitter=True)(fn)


# information_schema tables, as SQLAlchemy constructs (no SQL strings)
_COLLATIONS = sa.table('collations', sa.column('collation_name'),
                       sa.column('character_set_name'), schema='information_schema')
_COLUMNS = sa.table('columns', sa.column('collation_name'), sa.column('table_schema'),
                    sa.column('table_name'), sa.column('column_name'),
                    schema='information_schema')
_CONVERT = ('ALTER TABLE %(table)s CONVERT TO CHARACTER SET utf8mb4 '
            'COLLATE %(collation)s')


def binary_collation(connection):
    """The exact (binary, preferably NO PAD) utf8mb4 collation this MySQL server has."""
    have = set(connection.execute(
        sa.select(_COLLATIONS.c.collation_name)
        .where(_COLLATIONS.c.character_set_name == 'utf8mb4')).scalars())
    for collation in MYSQL_COLLATIONS:
        if collation in have:
            return collation
    raise RuntimeError('MySQL server without a utf8mb4 binary collation')


def convert_to_binary_collation(connection, tables):
    """ALTER ``tables`` to utf8mb4 with the binary collation (MySQL only; else no-op)."""
    if name(connection) != MYSQL:
        return None
    collation = binary_collation(connection)  # one of MYSQL_COLLATIONS, never input
    for table in tables:
        # DDL quotes the table name itself
        connection.execute(sa.DDL(_CONVERT, context={'collation': collation})
                           .against(sa.Table(table, sa.MetaData())))
    return collation


def column_collation(connection, table, column):
    """The collation of one string column (MySQL), or None on other engines."""
    if name(connection) != MYSQL:
        return None
    cols = _COLUMNS.c
    return connection.execute(sa.select(cols.collation_name).where(
        cols.table_schema == sa.func.database(), cols.table_name == table,
        cols.column_name == column)).scalar()

