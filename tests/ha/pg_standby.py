"""A PostgreSQL 15 primary and a hot standby streaming from it, replay pausable.

No failover manager: the standby is a physical copy (``pg_basebackup -R``)
that replays the primary's WAL and answers read-only queries (hot standby).
``pause()`` stops replay (``pg_wal_replay_pause()``): the standby then lags
by every write made since, a real lag, not a mock; ``resume()`` and
``caught_up()`` end it.  Both servers are throwaway clusters started and
stopped by PID (tests/services.py); the primary's default ``wal_level``
(replica) and initdb's trust rules for replication on loopback are enough.
"""

import os
import shutil
import subprocess
import tempfile
import time

import sqlalchemy as sa

from tests import services

PG_BIN = services.PG_BIN


class Standby(services.PostgreSQL):
    """A hot standby of ``primary`` (a started services.PostgreSQL)."""

    name = 'postgresql-standby'

    def __init__(self, workdir, primary):
        super().__init__(workdir)
        self.primary = primary

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        shutil.chown(self.dir, 'postgres', 'postgres')
        data = os.path.join(self.dir, 'data')
        with open(self.log, 'ab') as log:
            subprocess.run(self._as_postgres([
                PG_BIN + '/pg_basebackup', '-h', self.primary.host,
                '-p', str(self.primary.port), '-U', 'postgres', '-D', data,
                '-R', '-X', 'stream', '--checkpoint=fast']),
                stdout=log, stderr=subprocess.STDOUT, check=True)
        return self.start_server()


def sql(url, statement):
    """One statement's first column (autocommit, a connection of its own)."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect().execution_options(isolation_level='AUTOCOMMIT') as conn:
            result = conn.execute(sa.text(statement))
            return result.scalar() if result.returns_rows else None
    finally:
        engine.dispose()


def pause(standby):
    sql(standby.url, 'SELECT pg_wal_replay_pause()')
    deadline = time.monotonic() + 30
    while sql(standby.url, 'SELECT pg_get_wal_replay_pause_state()') != 'paused':
        if time.monotonic() > deadline:
            raise AssertionError('standby replay did not pause')
        time.sleep(0.05)


def resume(standby):
    sql(standby.url, 'SELECT pg_wal_replay_resume()')


def caught_up(primary, standby, timeout=60):
    """Wait until the standby has replayed everything the primary has written."""
    # the insert position: with synchronous_commit off a commit may not be written yet
    target = sql(primary.url, 'SELECT pg_current_wal_insert_lsn()::text')
    deadline = time.monotonic() + timeout
    while True:
        done = sql(standby.url, "SELECT pg_last_wal_replay_lsn() >= '%s'::pg_lsn" % target)
        if done:
            return
        if time.monotonic() > deadline:
            raise AssertionError('standby did not replay up to %s' % target)
        time.sleep(0.05)


def start_pair(workdir):
    """(primary, standby), both running, both counting statements; the caller stops them.

    ``pg_stat_statements`` is preloaded on both (set on the primary before
    the base backup, so the standby's copy of postgresql.auto.conf has it)
    and created in ``berth`` (replayed on the standby): each server counts
    the statements it ran itself.
    """
    primary = services.PostgreSQL(tempfile.mkdtemp(dir=workdir)).start()
    try:
        sql(primary.url, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        primary.stop_server()
        primary.start_server()
        sql(primary.url, 'CREATE EXTENSION pg_stat_statements')
        return primary, Standby(workdir, primary).start()
    except BaseException:
        primary.stop()
        raise


def statement_calls(server, like):
    """Calls of the statements ``server`` ran whose text matches SQL ``like``."""
    return int(sql(server.url, "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements "
                               "WHERE query LIKE '%s' AND query NOT LIKE '%%pg_stat%%'"
                   % like))


def reset_statements(server):
    sql(server.url, 'SELECT pg_stat_statements_reset()')
