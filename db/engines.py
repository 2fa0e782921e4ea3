"""What differs per database engine when a Database starts: SQLite file, MySQL/MariaDB, PostgreSQL.

db.api.Database configures one oslo.db transaction context the same way for
every engine and hands the rest to the engine's set-up here, one class per
engine (:func:`for_url` picks it by the URL's backend): the oslo.db options
it adds, whether this process's writers queue on a lock, the engines'
listeners and first connection, the replica (``[database] slave_connection``)
and the change watcher (db/change.py).
"""

from __future__ import annotations

import threading
from typing import Any

import sqlalchemy as sa

from db import change, connect, dialect, liveness

Watcher = change.SqliteWatcher | change.PostgresWatcher

SQLITE_POOL_SIZE = 8


class SqliteFile:
    """The embedded SQLite file: one writer at a time, no replica, a cheap change token."""

    name = dialect.SQLITE

    def __init__(self, url: str) -> None:
        self.url = url

    def write_lock(self) -> threading.RLock | None:
        """SQLite has one writer at a time: writers of this process queue on a
        lock (FIFO-ish, no sleeping) instead of in SQLite's busy handler, which
        backs off in sleeps of up to 100 ms.  Other processes still meet the
        busy timeout.  Re-entrant: a writer nested in a writer of the same
        thread joins it."""
        return threading.RLock()

    def options(self, options: dict[str, Any]) -> str:
        """Add this engine's oslo.db options to ``options``; the URL to configure."""
        if self.url in ('sqlite://', 'sqlite:///:memory:'):
            raise ValueError('in-memory SQLite cannot be shared by threads; use a file')
        options.setdefault('sqlite_fk', True)
        # readers get an engine of their own so only writers take the write
        # lock up front (see db.dialect); SQLite has no replicas
        options.update(slave_connection=self.url, synchronous_reader=False)
        return self.url

    def start(self, tc: Any) -> sa.Engine | None:
        """Pools, listeners; the replica engine (never one here)."""
        writer, reader = tc.writer.get_engine(), tc.reader.get_engine()
        _keep_connections(writer)
        _keep_connections(reader)
        dialect.configure(writer, sqlite_writer=True)
        dialect.configure(reader)
        return None

    def watcher(self, engine: sa.Engine, replica: sa.Engine | None) -> Watcher | None:
        return change.SqliteWatcher(sa.engine.make_url(self.url).database)


class Server:
    """A database server (MySQL/MariaDB as it is; PostgreSQL adds to it), maybe with a replica.

    ``retries``/``interval`` make the first connection, retried while the
    server is away (db/connect.py); a replica gets no first connection: one
    that is away does not hold up start-up.
    """

    name = dialect.MYSQL

    def __init__(self, url: str, slave_connection: str | None, ping_idle_after: float,
                 standby_recheck_after: float, retries: int, interval: float) -> None:
        self.url = url
        self.slave_connection = slave_connection
        self.ping_idle_after = ping_idle_after
        self.standby_recheck_after = standby_recheck_after
        self.retries = retries
        self.interval = interval

    def write_lock(self) -> threading.RLock | None:
        """None: the server orders concurrent writers itself."""
        return None

    def options(self, options: dict[str, Any]) -> str:
        """Add this engine's oslo.db options to ``options``; the URL to configure."""
        given = options.get('connection_parameters')
        if not self.slave_connection:
            params = dialect.connection_parameters(self.url, given)
            if params:
                options['connection_parameters'] = params
            return self.url
        # "reader" stays on the primary (synchronous_reader, oslo.db's
        # default); "reader.async_" gets the replica.  oslo.db appends
        # connection_parameters to both URLs; a default one URL already sets
        # (connect_timeout=3 on the replica's, as doc/source/deployment.md gives it)
        # would reach libpq twice, which it refuses: each URL gets its own
        # parameters, and oslo.db none to append
        replica = self.slave_connection
        options.update(
            slave_connection=_with_query(replica, dialect.connection_parameters(replica, given)),
            synchronous_reader=True, connection_parameters=None)
        return _with_query(self.url, dialect.connection_parameters(self.url, given))

    def start(self, tc: Any) -> sa.Engine | None:
        """Listeners and the first connection; the replica engine (None: none configured)."""
        writer = tc.writer.get_engine()
        dialect.configure(writer)
        liveness.ping_when_idle(writer, self.ping_idle_after)
        connect.first_connect(writer, self.retries, self.interval)
        if not self.slave_connection:
            return None
        # oslo.db names the replica the reader engine whatever synchronous_reader
        # is; lagging reads get 503 while it is away
        replica = tc.reader.get_engine()
        dialect.configure(replica)
        liveness.ping_when_idle(replica, self.ping_idle_after)
        self.replica_started(replica)
        return replica

    def replica_started(self, replica: sa.Engine) -> None:
        """What this engine adds to a replica's listeners (nothing here)."""

    def watcher(self, engine: sa.Engine, replica: sa.Engine | None) -> Watcher | None:
        """No cheap exact change detector on this engine: None, cache nothing."""
        return None


class Postgres(Server):
    """PostgreSQL: a replica found through a multi-host URL, snapshots as change tokens."""

    name = dialect.POSTGRESQL

    def replica_started(self, replica: sa.Engine) -> None:
        # with target_session_attrs=prefer-standby a connection that landed on
        # the primary goes back to a standby once one is up again
        liveness.back_to_standby(replica, self.standby_recheck_after)

    def watcher(self, engine: sa.Engine, replica: sa.Engine | None) -> Watcher | None:
        # tokens come from the server the cached reads (the candidate search,
        # a lagging read) run on: the replica when there is one.  A replica's
        # token names its replayed state, not the primary's
        # (doc/source/architecture.md, "Where reads go")
        return change.PostgresWatcher(replica or engine)


def for_url(url: str, slave_connection: str | None, ping_idle_after: float,
            standby_recheck_after: float, retries: int,
            interval: float) -> SqliteFile | Server:
    """The set-up of ``url``'s engine."""
    backend = sa.engine.make_url(url).get_backend_name()
    if backend == dialect.SQLITE:
        return SqliteFile(url)
    kind = Postgres if backend == dialect.POSTGRESQL else Server
    return kind(url, slave_connection, ping_idle_after, standby_recheck_after,
                retries, interval)


def _with_query(url: str, params: str | None) -> str:
    if not params:
        return url
    return url + ('&' if '?' in url else '?') + params


def _keep_connections(engine: sa.Engine) -> None:
    """Give a SQLite file engine a pool that keeps connections open.

    oslo.db puts file SQLite on a NullPool: a new connection, with its
    PRAGMAs and functions, for every transaction, closed after it.  A
    QueuePool (most recently used first, any number of overflow connections
    beyond ``SQLITE_POOL_SIZE``) keeps the listeners oslo.db and db.dialect
    registered (the dispatch is carried over, as ``Pool.recreate`` does).
    A connection goes back with no transaction open (the pool rolls back on
    return), and its BEGIN IMMEDIATE marker is dropped then, so the next
    writer on it begins its own.
    """
    old: Any = engine.pool
    engine.pool = sa.pool.QueuePool(
        old._creator, pool_size=SQLITE_POOL_SIZE, max_overflow=-1, use_lifo=True,
        recycle=old._recycle, echo=old.echo, logging_name=old._orig_logging_name,
        reset_on_return=old._reset_on_return, pre_ping=old._pre_ping,
        _dispatch=old.dispatch, dialect=old._dialect)
    old.dispose()

    @sa.event.listens_for(engine, 'checkin')
    def _forget_transaction(_dbapi_con, record):
        if record is not None:
            record.info.pop('in_transaction', None)
