"""Engine set-up: one :class:`Database` per process, passed down, never global.

Objects run their queries inside ``reader``/``writer`` transactions bound to a
request context (oslo.db enginefacade); the context carries the Database in
``ctx.db``.  A third kind, ``lagging_reader``, is for the reads that may be
a little behind (doc/source/architecture.md, "Where reads go"): on a server engine
with ``[database] slave_connection`` it runs on that replica (oslo.db's
asynchronous reader), otherwise on the primary like ``reader``.  ``reader``
stays on the primary (read-your-writes); a ``reader`` or ``lagging_reader``
nested in any transaction joins it, so the helpers a lagging read calls
read the same snapshot and a lagging read inside a claim stays on the primary.

``core_writer`` is a writer without an ORM Session: a SQLAlchemy Core
connection and transaction from the same engine (oslo.db's
``writer.connection``), for the hot write paths that run only prebuilt Core
statements (a conductor's claims).  Code that may run in either kind reaches
the transaction's connection with :func:`connection`; ``reader``/``writer``
functions called inside a Core transaction join it without a Session.
"""

from __future__ import annotations

from collections.abc import Callable
import contextlib
import functools
import logging
import os
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

from db import change, dialect, engines, storage

LOG = logging.getLogger('berth.' + __name__)

P = ParamSpec('P')
R = TypeVar('R')


class _HasDatabase(Protocol):
    """What ``reader``/``writer`` need of a context: its process's Database."""
    db: Database


Ctx = TypeVar('Ctx', bound=_HasDatabase)


def connection_url(conf: Any) -> str:
    """[database] connection, or the embedded SQLite file in state_path."""
    if conf.database.connection:
        return conf.database.connection
    path = os.path.abspath(os.path.join(conf.state_path, 'berth.sqlite'))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return 'sqlite:///' + path


# seconds a pooled server connection may sit idle before it is pinged at checkout
PING_IDLE_AFTER = 1.0
# seconds a replica connection found on a primary is kept before a standby is tried again
STANDBY_RECHECK_AFTER = 5.0


class Database:
    """A configured enginefacade transaction context for one database.

    ``max_retries``/``retry_interval`` (oslo.db's options) make the first
    connection here, retried while the server is away (db/connect.py);
    without them, as with ``max_retries=0``, the first transaction meets
    the server.
    """

    def __init__(self, url: str, ping_idle_after: float = PING_IDLE_AFTER,
                 slave_connection: str | None = None, **options: Any) -> None:
        self.url = url
        # oslo.db's own start-up test retries only libpq's old wording: off
        retries = options.pop('max_retries', 0)
        interval = options.pop('retry_interval', 10)
        options['max_retries'] = 0
        setup = engines.for_url(url, slave_connection, ping_idle_after,
                                STANDBY_RECHECK_AFTER, retries, interval)
        self.is_sqlite = setup.name == dialect.SQLITE
        self._write_lock = setup.write_lock()
        # no eventlet here: a time.sleep(0) at every connection check-in
        # (oslo.db's default) only forces a thread switch per transaction
        options.setdefault('thread_checkin', False)
        self._tc = enginefacade.transaction_context()
        self._tc.configure(connection=setup.options(options), **options)
        # a failing statement's error (and the SQL echo) names its bound
        # parameters, which can carry a BMC password: never show them
        # (oslo.db has no option that reaches create_engine's hide_parameters)
        self._tc.writer.get_engine().hide_parameters = True
        self._tc.reader.get_engine().hide_parameters = True
        self._lagging = self._tc.reader.async_
        # the replica engine when there is one (None: lagging reads use the primary)
        self.replica_engine = setup.start(self._tc)
        self._watcher = setup.watcher(self.engine, self.replica_engine)

    @classmethod
    def from_conf(cls, conf: Any) -> Database:
        d = conf.database
        options = {'max_pool_size': d.max_pool_size,
                   'max_overflow': d.max_overflow,
                   'pool_timeout': d.pool_timeout,
                   'connection_recycle_time': d.connection_recycle_time,
                   'connection_parameters': d.connection_parameters or None,
                   'max_retries': d.max_retries,
                   'retry_interval': d.retry_interval,
                   'connection_debug': d.connection_debug,
                   'slave_connection': d.slave_connection or None}
        url = connection_url(conf)
        if url.startswith('sqlite'):
            options = {'sqlite_synchronous': d.sqlite_synchronous}
        return cls(url, ping_idle_after=d.ping_idle_after, **options)

    @property
    def engine(self) -> sa.engine.Engine:
        return self._tc.writer.get_engine()

    def reader(self, ctx: Any) -> Any:
        """A read on the primary (or joining the caller's transaction, lagging or not)."""
        return self._tc.reader.allow_async.using(ctx)

    def lagging_reader(self, ctx: Any) -> Any:
        """A read that may lag: on the replica when there is one (outside any transaction)."""
        return self._lagging.using(ctx)

    def on_replica(self, ctx: Any) -> bool:
        """Whether ``ctx``'s current transaction reads from the replica."""
        return (self.replica_engine is not None
                and ctx.session.get_bind() is self.replica_engine)

    def snapshot_token(self, ctx: Any) -> tuple | None:
        """The change token of ``ctx``'s own snapshot (PostgreSQL), else None.

        Inside a REPEATABLE READ transaction this is the transaction's
        snapshot, read on the connection (and so the server) the reads use:
        it names exactly the state they see, on whichever server they run
        (equal snapshots of one WAL history show the same rows).
        """
        if self.engine.dialect.name != 'postgresql':
            return None
        return change.parse_snapshot(ctx.session.execute(change.SNAPSHOT_STATEMENT).scalar_one())

    def writer(self, ctx: Any) -> Any:
        # a full disk is named as such (db/storage.py), not "unreachable"
        if self._write_lock is None:
            return storage.naming_full(self._tc.writer.using(ctx))
        return storage.naming_full(_serialised(self._write_lock,
                                               self._tc.writer.using(ctx)))

    def core_reader(self, ctx: Any) -> Any:
        """:meth:`reader` on a Core connection, no ORM Session (yields the Connection)."""
        return self._tc.reader.connection.allow_async.using(ctx)

    def core_writer(self, ctx: Any) -> Any:
        """A write transaction on a Core connection, no ORM Session (yields the Connection).

        Nested in a Session writer it joins that transaction (on the
        Session's connection).  Code inside reaches the connection with
        :func:`connection`; ``ctx.session`` is not available there.
        """
        transaction = self._tc.writer.connection.using(ctx)
        if self._write_lock is None:
            return storage.naming_full(transaction)
        return storage.naming_full(_serialised(self._write_lock, transaction))

    def change_token(self) -> tuple[int, int] | None:
        """A token that changes whenever anything is committed, or None.

        Equal tokens read at two moments mean nothing was committed in
        between, by any connection or process (SQLite: db/change.py; tokens
        are (pid, n), n growing within the process).  Other backends have no
        such cheap exact detector: None, cache nothing.  PostgreSQL: the
        snapshot (db/change.py) of the server lagging reads use (the
        replica when ``slave_connection`` names one, else the primary);
        None while that server cannot be asked.
        """
        return self._watcher.token() if self._watcher is not None else None

    def dispose(self, keep_watcher: bool = False) -> None:
        """Close the pools' connections (and the change watcher's, unless ``keep_watcher``)."""
        if self._watcher is not None and not keep_watcher:
            self._watcher.close()
        writer, reader = self._tc.writer.get_engine(), self._tc.reader.get_engine()
        writer.dispose()
        if reader is not writer:        # SQLite's readers, or the replica
            reader.dispose()


@contextlib.contextmanager
def _serialised(lock, transaction):
    with lock:
        with transaction as session:
            yield session


def connection(ctx: Any) -> sa.engine.Connection:
    """The Connection of ``ctx``'s current transaction, Core or Session alike."""
    transaction = ctx.transaction_ctx
    if transaction.connection is not None:
        return transaction.connection
    return transaction.session.connection()


def _in_core(ctx: Any) -> bool:
    """Whether this thread is inside a :meth:`Database.core_writer` of ``ctx`` (no Session)."""
    try:
        transaction = ctx.transaction_ctx
    except db_exc.NoEngineContextEstablished:
        return False
    return transaction.session is None and transaction.connection is not None


def reader(fn: Callable[Concatenate[Ctx, P], R]) -> Callable[Concatenate[Ctx, P], R]:
    """Run ``fn(ctx, ...)`` in a read transaction; the session is ``ctx.session``.

    Inside a Core writer it joins that transaction as is (``fn`` then
    reaches it with :func:`connection`).
    """
    @functools.wraps(fn)
    def wrapper(ctx: Ctx, *args: P.args, **kwargs: P.kwargs) -> R:
        if _in_core(ctx):
            return fn(ctx, *args, **kwargs)
        with ctx.db.reader(ctx):
            return fn(ctx, *args, **kwargs)
    return wrapper


def lagging_reader(fn: Callable[P, R] | None = None, *,
                   recheck_on: tuple[type[BaseException], ...] = ()) -> Any:
    """Run ``fn(ctx, ...)`` in a read that may lag (the replica, when configured).

    Only for reads that tolerate it (doc/source/architecture.md, "Where reads go");
    inside a caller's transaction it joins that one.  ``recheck_on``: the
    errors a replica may raise only because it has not yet replayed what the
    caller already saw on the primary (a new resource class, a marker): the
    read is then done again on the primary, which decides.

    On the replica, a read whose connection is lost (its server killed, or
    promoted and restarted, during a failover) is done once more on a new
    connection: the disconnect has emptied the replica engine's pool, and a
    multi-host ``prefer-standby`` URL then finds whichever server is up.
    Reads are idempotent; a second loss is the caller's (503).
    """
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(ctx, *args, **kwargs):
            replica = ctx.db.replica_engine is not None and not in_transaction(ctx)
            try:
                return _on_replica(ctx, replica, fn, args, kwargs)
            except recheck_on:
                if not replica:
                    raise
            with ctx.db.reader(ctx):
                return fn(ctx, *args, **kwargs)
        return wrapper
    return decorate(fn) if fn is not None else decorate


def _on_replica(ctx, replica, fn, args, kwargs):
    try:
        with ctx.db.lagging_reader(ctx):
            return fn(ctx, *args, **kwargs)
    except db_exc.DBConnectionError as exc:
        if not replica:
            raise
        LOG.warning('A read lost its replica connection (%s); reading again on a new one',
                    str(exc).strip().splitlines()[0][:200])
    with ctx.db.lagging_reader(ctx):
        return fn(ctx, *args, **kwargs)


def writer(fn: Callable[Concatenate[Ctx, P], R]) -> Callable[Concatenate[Ctx, P], R]:
    """Run ``fn(ctx, ...)`` in a write transaction, committed on return.

    The outermost writer is retried when the engine makes it a deadlock
    victim (a nested one joins its caller's transaction, which is retried;
    inside a Core writer, without a Session: ``fn`` then reaches it with
    :func:`connection`).
    """
    @functools.wraps(fn)
    def run(ctx: Ctx, *args: P.args, **kwargs: P.kwargs) -> R:
        if _in_core(ctx):
            return fn(ctx, *args, **kwargs)
        with ctx.db.writer(ctx):
            return fn(ctx, *args, **kwargs)
    return _outermost_retried(run)


def core_writer(fn: Callable[Concatenate[Ctx, P], R]) -> Callable[Concatenate[Ctx, P], R]:
    """:func:`writer` on a Core connection (:meth:`Database.core_writer`), no ORM Session.

    ``fn`` (and whatever it calls) must reach the transaction through
    :func:`connection`, never ``ctx.session``.  Nested in a caller's
    transaction, of either kind, it joins it.
    """
    @functools.wraps(fn)
    def run(ctx: Ctx, *args: P.args, **kwargs: P.kwargs) -> R:
        with ctx.db.core_writer(ctx):
            return fn(ctx, *args, **kwargs)
    return _outermost_retried(run)


def _outermost_retried(run: Callable[Concatenate[Ctx, P], R]
                       ) -> Callable[Concatenate[Ctx, P], R]:
    """``run`` retried on deadlock when it opens the transaction; joined as is otherwise."""
    retried = dialect.retry_on_deadlock(run)

    @functools.wraps(run)
    def wrapper(ctx: Ctx, *args: P.args, **kwargs: P.kwargs) -> R:
        if in_transaction(ctx):
            return run(ctx, *args, **kwargs)
        return retried(ctx, *args, **kwargs)
    return wrapper


def in_transaction(ctx: Any) -> bool:
    """Whether this thread is inside a reader or writer of ``ctx``."""
    try:
        return ctx.transaction_ctx is not None
    except db_exc.NoEngineContextEstablished:
        return False


def is_duplicate(exc: BaseException) -> bool:
    return isinstance(exc, db_exc.DBDuplicateEntry)
