"""Check a pooled server connection before use only when it has been idle a while.

oslo.db turns on SQLAlchemy's ``pool_pre_ping``: a ``SELECT 1`` round trip on
every checkout, about 14 % of a busy conductor's time.  A connection handed
back less than ``idle_after`` seconds ago worked then; pinging it again buys
almost nothing.  Here the ping runs only for connections idle longer than
that.  A server that died inside the window costs the one statement that
meets the dead connection: it fails as a disconnect, oslo.db raises
DBConnectionError (the APIs answer 503), and SQLAlchemy invalidates the whole
pool, so the next transaction reconnects.  ``idle_after = 0`` pings on every
checkout, as oslo.db does.
"""

import time

import sqlalchemy as sa

_LAST_USED = 'berth_last_used'


def ping_when_idle(engine, idle_after):
    """Replace ``engine``'s ping-on-every-checkout by a ping after ``idle_after`` s idle."""
    if idle_after <= 0:
        return
    # Pool.recreate (engine.dispose) carries the flag and these listeners over
    engine.pool._pre_ping = False
    dialect = engine.dialect

    @sa.event.listens_for(engine, 'connect')
    def _new(_dbapi_con, record):
        record.info[_LAST_USED] = time.monotonic()

    @sa.event.listens_for(engine, 'checkin')
    def _returned(_dbapi_con, record):
        if record is not None:
            record.info[_LAST_USED] = time.monotonic()

    @sa.event.listens_for(engine, 'checkout')
    def _check(dbapi_con, record, _proxy):
        if time.monotonic() - record.info.get(_LAST_USED, 0.0) < idle_after:
            return
        try:
            dialect.do_ping(dbapi_con)
        except Exception as exc:
            # the pool drops this connection and checks out another (or a new one)
            raise sa.exc.DisconnectionError('idle connection failed its ping: %s'
                                            % exc) from exc
