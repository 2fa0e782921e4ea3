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


_OPENED = 'berth_opened'


def back_to_standby(engine, after):
    """Drop a pooled replica connection found on a primary once ``after`` s old.

    A ``target_session_attrs=prefer-standby`` URL picks a standby when it
    connects, but a connection stays where it is: after a failover the
    replica engine's pool sits on the promoted node (the new primary) for
    good, although the old primary is back as a standby.  PostgreSQL 14+
    reports ``in_hot_standby`` to the client at once when it changes (no
    round trip here); a connection whose server says ``off`` and that was
    opened more than ``after`` seconds ago is dropped at checkout, and the
    new one finds a standby again if there is one (or the primary again,
    for another ``after`` seconds, while there is none).
    """
    if after <= 0:
        return

    @sa.event.listens_for(engine, 'connect')
    def _opened(_dbapi_con, record):
        record.info[_OPENED] = time.monotonic()

    @sa.event.listens_for(engine, 'checkout')
    def _check(dbapi_con, record, _proxy):
        info = getattr(dbapi_con, 'info', None)
        status = getattr(info, 'parameter_status', None)
        if status is None or time.monotonic() - record.info.get(_OPENED, 0.0) < after:
            return
        if status('in_hot_standby') == 'off':
            raise sa.exc.DisconnectionError('replica connection is on a primary')
