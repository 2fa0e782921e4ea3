"""Exact, cheap "has anything been committed?" detectors: SQLite file, PostgreSQL server.

``PRAGMA data_version`` on one connection changes whenever any *other*
connection (of this process or another one) has committed to the file since
that connection last asked; it never changes otherwise.  The watcher keeps a
connection of its own that never writes, so every commit anywhere shows.
Read-side caches key their entries on the token (see objects/candidates/answer_cache.py).
"""

import os
import sqlite3
import threading

import sqlalchemy as sa
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.pool import PoolProxiedConnection

# sent as it is on the driver's own cursor: it runs on every candidates
# request, and SQLAlchemy's execution path costs 2-4x the cursor's client
# CPU per read (python -m bench.change_token)
SNAPSHOT = 'SELECT pg_current_snapshot()::text'
# the same in a session's transaction (db.api.Database.snapshot_token)
SNAPSHOT_STATEMENT = sa.text(SNAPSHOT)


def parse_snapshot(text):
    """('pg', xmax, xmin, in-progress xids) of pg_current_snapshot()'s text."""
    xmin, xmax, xips = text.split(':')
    return ('pg', int(xmax), int(xmin),
            tuple(int(x) for x in xips.split(',')) if xips else ())


class SqliteWatcher:
    """Tokens that differ across any commit to the SQLite file at ``path``."""

    def __init__(self, path):
        self._path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None

    def token(self):
        """(pid, data_version): equal tokens mean no commit happened in between."""
        with self._lock:
            pid = os.getpid()
            if self._conn is None or self._pid != pid:
                _keep_inherited(self._conn, self._pid)
                # a forked worker gets a connection (and a token space) of its own
                self._conn = sqlite3.connect(self._path, isolation_level=None,
                                             check_same_thread=False)
                self._pid = pid
            return pid, self._conn.execute('PRAGMA data_version').fetchone()[0]

    def close(self):
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            else:
                _keep_inherited(self._conn, self._pid)
            self._conn = None


# SQLite connections a forked worker inherited: never closed there (SQLite
# forbids using a connection across fork(); its close would run in the child)
_INHERITED: list[sqlite3.Connection] = []


def _keep_inherited(conn: sqlite3.Connection | None, pid: int | None) -> None:
    if conn is not None and pid != os.getpid():
        _INHERITED.append(conn)


class PostgresWatcher:
    """Tokens that differ across any commit to a PostgreSQL server: its snapshot.

    ``pg_current_snapshot()`` is (xmin, xmax, in-progress xids), where xmax
    is one past the newest *completed* transaction.  A transaction that
    completes (commits or aborts) either raises xmax or leaves the
    in-progress list, so two equal snapshots read at two moments prove that
    no transaction completed in between: every snapshot taken between them
    sees exactly the same rows.  Read-only transactions take no transaction
    id, so reads never move it; any write to the server moves it (writes to
    other tables and databases too: the detector errs towards "changed").

    The watcher keeps one connection of ``engine``'s pool checked out, in
    the driver's autocommit mode, with one cursor; an error (server
    restart) drops it and answers None ("unknown": callers then trust
    nothing and cache nothing).
    """

    def __init__(self, engine):
        self._engine = engine
        self._lock = threading.Lock()
        self._conn: PoolProxiedConnection | None = None
        self._cursor: DBAPICursor | None = None
        self._pid: int | None = None

    def token(self):
        """('pg', xmax, xmin, in-progress xids), or None when the server cannot be asked."""
        with self._lock:
            pid = os.getpid()
            try:
                cursor = self._cursor         # set and dropped with self._conn
                if cursor is None or self._conn is None or self._pid != pid:
                    self._conn = None         # a forked worker's inherited one is not ours
                    conn = self._engine.raw_connection()
                    self._conn, self._pid = conn, pid
                    conn.driver_connection.autocommit = True
                    cursor = self._cursor = conn.cursor()
                cursor.execute(SNAPSHOT)
                row = cursor.fetchone()
                if row is None:               # one value selected: never; caught below
                    raise LookupError(SNAPSHOT)
                text = row[0]
            except Exception:          # noqa: BLE001  any failure: no token, no caching
                self._drop()
                return None
        return parse_snapshot(text)

    def _drop(self):
        conn, self._conn, self._cursor = self._conn, None, None
        if conn is not None:
            try:
                conn.invalidate()
            except Exception:          # noqa: BLE001, S110  already broken
                pass

    def close(self):
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._drop()
            self._conn = None
