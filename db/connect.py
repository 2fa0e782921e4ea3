"""The first connection of a process, retried while the server is only away.

oslo.db tests a new engine's URL with ``[database] max_retries`` attempts,
but it retries only what its error filters call a connection error; for
PostgreSQL that is libpq's old wording, "could not connect to server".
libpq 14 and later say 'connection to server at "HOST", port P failed:
Connection refused', a plain OperationalError to oslo.db, so a process
started while its database is down (or while Patroni promotes a standby)
exits at once, whatever ``max_retries`` says.  Berth therefore turns
oslo.db's test off and makes the first connection itself, retrying the
errors below (any driver's wording) with oslo.db's meaning of the two
options: ``max_retries`` retries (-1: forever), ``retry_interval`` seconds
apart.  A refused password, a missing database or a bad URL is raised at
once: waiting would not fix it.
"""

from __future__ import annotations

from collections.abc import Callable
import logging
import time
from typing import Any

from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc
import tenacity

LOG = logging.getLogger('berth.' + __name__)

# a server that is down, starting, stopping, or (multi-host URL with
# target_session_attrs=read-write) only standbys while a failover runs
TRANSIENT = (
    'could not connect to server',                      # libpq < 14
    'failed: connection refused',                       # libpq >= 14
    'failed: no such file or directory',                # a Unix socket not there yet
    'timeout expired',
    'no route to host',
    'server closed the connection unexpectedly',
    'connection reset by peer',
    'the database system is starting up',
    'the database system is shutting down',
    'the database system is in recovery mode',
    'the database system is not yet accepting connections',
    'session is read-only',                             # a standby, read-write asked
    'server is in hot standby mode',
    "can't connect to mysql server",                    # PyMySQL 2003
    'lost connection to mysql server',
)
# the same attempt also met something waiting cannot fix
PERMANENT = ('authentication failed', 'does not exist', 'no pg_hba.conf entry',
             'access denied', 'invalid dsn', 'unknown database')


def is_transient(exc: BaseException) -> bool:
    """Whether a failed connect may succeed later without anyone changing anything."""
    if not isinstance(exc, (db_exc.DBConnectionError, sa_exc.OperationalError)):
        return False
    text = str(exc).lower()
    return (any(word in text for word in TRANSIENT)
            and not any(word in text for word in PERMANENT))


def first_connect(engine: Any, max_retries: int, retry_interval: float,
                  sleep: Callable[[float], None] | None = None) -> None:
    """Open and close one connection of ``engine``, retrying while the server is away.

    ``max_retries`` 0 connects at no time (oslo.db's meaning: the first
    transaction meets the server); -1 retries forever.  The policy:
    :func:`policy`.
    """
    if not max_retries:
        return

    def warn(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        LOG.warning('The database cannot be reached (%s); retry %d of %s in %ss',
                    str(exc).strip().splitlines()[0][:200], state.attempt_number,
                    'unlimited' if max_retries < 0 else max_retries, retry_interval)

    policy(max_retries, retry_interval, before_sleep=warn,
           sleep=sleep or time.sleep)(lambda: engine.connect().close())


def policy(max_retries: int, retry_interval: float,
           before_sleep: Callable[[tenacity.RetryCallState], None] | None = None,
           sleep: Callable[[float], None] = time.sleep) -> tenacity.Retrying:
    """The first connection's retries: oslo.db's meaning of ``[database]
    max_retries`` / ``retry_interval`` -- ``max_retries`` retries (-1:
    forever), ``retry_interval`` seconds apart, of the errors
    :func:`is_transient` calls a server only away; the last error raised.

    (db imports nothing of common but its exceptions, so this policy lives
    here; every other retry policy of berth is in common.retries.)
    """
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception(is_transient),
        stop=(tenacity.stop_never if max_retries < 0
              else tenacity.stop_after_attempt(max_retries + 1)),
        wait=tenacity.wait_fixed(retry_interval),
        before_sleep=before_sleep, sleep=sleep, reraise=True)
