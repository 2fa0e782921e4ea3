"""A lagging read whose replica connection the server ended reads again on a new one.

``[database] slave_connection`` names the same server here (a replica is
only a second URL to db/api.py); its one pooled connection is ended from
the server side, as a killed or restarted node ends it during a failover
(tests/ha/test_pg_failover.py has the real one).  The pooled connection is
not pinged (``ping_idle_after`` an hour), so the read meets the dead
connection: without the read again in ``db.api.lagging_reader`` it is a
DBConnectionError, and the APIs answer 503.
"""

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from common import context as berth_context
from db import api as db_api
from db import liveness
from tests import dbengines

pytestmark = pytest.mark.skipif(not dbengines.is_server(),
                                reason='SQLite: no replica, no server to end a connection')

@db_api.lagging_reader
def _backend(ctx):
    return ctx.session.execute(sa.text(dbengines.BACKEND_ID[dbengines.ENGINE])).scalar()


@pytest.fixture
def replica_db(tmp_path):
    url, drop = dbengines.empty_database(tmp_path)
    db = db_api.Database(url, ping_idle_after=3600, slave_connection=url)
    yield url, db
    db.dispose()
    drop()


def test_a_lagging_read_on_a_dead_replica_connection_is_read_again(replica_db):
    url, db = replica_db
    ctx = berth_context.admin_context(db)
    first = _backend(ctx)
    dbengines.end_backend(url, first)
    # the pool's one connection is dead and not pinged: the first statement
    # fails, the pool is emptied, the read runs again on a new connection
    again = _backend(ctx)
    assert again != first
    assert _backend(ctx) == again       # and that one stays in the pool


def test_a_plain_read_on_the_primary_is_not_read_again(replica_db):
    # only lag-tolerant reads are read again; a reader may be inside a
    # request that already wrote, and its caller decides (503)
    url, db = replica_db
    ctx = berth_context.admin_context(db)

    @db_api.reader
    def backend(ctx):
        return ctx.session.execute(sa.text(dbengines.BACKEND_ID[dbengines.ENGINE])).scalar()

    dbengines.end_backend(url, backend(ctx))
    with pytest.raises(db_exc.DBConnectionError):
        backend(ctx)
    assert backend(ctx)


@pytest.mark.skipif(dbengines.ENGINE != 'postgresql',
                    reason='in_hot_standby is what PostgreSQL 14+ reports')
def test_a_replica_connection_on_a_primary_is_dropped_once_old(replica_db, monkeypatch):
    """db.liveness.back_to_standby: the server here is a primary (in_hot_standby
    off), so a replica connection older than STANDBY_RECHECK_AFTER is replaced
    at checkout, and a younger one kept."""
    url, db = replica_db
    clock = [1000.0]
    monkeypatch.setattr(liveness.time, 'monotonic', lambda: clock[0])
    ctx = berth_context.admin_context(db)
    first = _backend(ctx)
    assert _backend(ctx) == first
    clock[0] += db_api.STANDBY_RECHECK_AFTER / 2
    assert _backend(ctx) == first
    clock[0] += db_api.STANDBY_RECHECK_AFTER
    second = _backend(ctx)
    assert second != first
    assert _backend(ctx) == second
    # the primary's own engine is left alone
    with db.engine.connect() as conn:
        primary = conn.execute(sa.text('SELECT pg_backend_pid()')).scalar()
    clock[0] += 10 * db_api.STANDBY_RECHECK_AFTER
    with db.engine.connect() as conn:
        assert conn.execute(sa.text('SELECT pg_backend_pid()')).scalar() == primary
