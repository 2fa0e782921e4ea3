"""The first connection of a process is retried while the server is away (db/connect.py).

oslo.db retries only libpq's old wording ("could not connect to server"):
with libpq 14+ a refused connection failed at once whatever
``[database] max_retries`` said, so a conductor or API started during a
PostgreSQL failover exited.  The refused connections here are real (psycopg2
against a loopback port nobody listens on); the servers that come back are
stand-ins.
"""

import logging

from oslo_db import exception as db_exc
import pytest
from sqlalchemy import exc as sa_exc

from db import api as db_api
from db import connect
from tests import services

REFUSED = ('connection to server at "127.0.0.1", port 5999 failed: Connection refused\n'
           '\tIs the server running on that host and accepting TCP/IP connections?')
OLD_REFUSED = ('could not connect to server: Connection refused\n'
               '\tIs the server running on host "127.0.0.1" and accepting')
# a multi-host URL during a failover: the old primary is gone, the other a standby
FAILOVER = ('connection to server at "127.0.0.1", port 5998 failed: Connection refused\n'
            '\tIs the server running on that host and accepting TCP/IP connections?\n'
            'connection to server at "127.0.0.1", port 5999 failed: session is read-only')
STARTING = ('connection to server at "127.0.0.1", port 5999 failed: FATAL:  '
            'the database system is starting up')
BAD_PASSWORD = ('connection to server at "127.0.0.1", port 5999 failed: FATAL:  '
                'password authentication failed for user "berth"')
MYSQL_REFUSED = ("(2003, \"Can't connect to MySQL server on '127.0.0.1' "
                 "([Errno 111] Connection refused)\")")
NO_DATABASE = ('connection to server at "127.0.0.1", port 5999 failed: FATAL:  '
               'database "berth" does not exist')


def operational(message):
    return sa_exc.OperationalError('connect', {}, Exception(message))


@pytest.mark.parametrize('message', [REFUSED, OLD_REFUSED, FAILOVER, STARTING,
                                     MYSQL_REFUSED])
def test_a_server_that_is_away_is_transient(message):
    assert connect.is_transient(operational(message))
    assert connect.is_transient(db_exc.DBConnectionError(operational(message)))


@pytest.mark.parametrize('message', [BAD_PASSWORD, NO_DATABASE, 'syntax error at "x"'])
def test_what_waiting_cannot_fix_is_not(message):
    assert not connect.is_transient(operational(message))


def test_other_errors_are_not_transient():
    assert not connect.is_transient(ValueError(REFUSED))


class FlakyEngine:
    """``connect()`` fails with ``errors`` in turn, then works."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.attempts = 0
        self.closed = 0

    def connect(self):
        self.attempts += 1
        if self.errors:
            raise self.errors.pop(0)
        return self

    def close(self):
        self.closed += 1


def test_a_server_back_after_two_refusals_is_connected_on_the_third_attempt():
    engine = FlakyEngine(operational(REFUSED), operational(FAILOVER))
    slept = []
    connect.first_connect(engine, max_retries=5, retry_interval=2, sleep=slept.append)
    assert (engine.attempts, engine.closed, slept) == (3, 1, [2, 2])


def test_retries_are_bounded_by_max_retries():
    engine = FlakyEngine(*[operational(REFUSED)] * 4)
    slept = []
    with pytest.raises(sa_exc.OperationalError, match='Connection refused'):
        connect.first_connect(engine, max_retries=3, retry_interval=1, sleep=slept.append)
    assert (engine.attempts, slept) == (4, [1, 1, 1])


def test_minus_one_retries_until_the_server_answers():
    engine = FlakyEngine(*[operational(STARTING)] * 30)
    slept = []
    connect.first_connect(engine, max_retries=-1, retry_interval=0.5, sleep=slept.append)
    assert (engine.attempts, len(slept)) == (31, 30)


def test_a_refused_password_is_raised_at_once():
    engine = FlakyEngine(operational(BAD_PASSWORD))
    slept = []
    with pytest.raises(sa_exc.OperationalError, match='password authentication'):
        connect.first_connect(engine, max_retries=-1, retry_interval=1, sleep=slept.append)
    assert (engine.attempts, slept) == (1, [])


def test_no_retries_means_no_connection_at_start():
    engine = FlakyEngine(operational(REFUSED))
    connect.first_connect(engine, max_retries=0, retry_interval=1)
    assert engine.attempts == 0


def test_database_retries_a_refused_connection_with_current_libpq(caplog):
    # the bug: oslo.db's own test raised this at the first attempt
    url = 'postgresql+psycopg2://berth@127.0.0.1:%d/berth' % services.free_port()
    caplog.set_level(logging.WARNING, logger='berth.db.connect')
    with pytest.raises(sa_exc.OperationalError, match='Connection refused'):
        db_api.Database(url, max_retries=2, retry_interval=0)
    retries = [r.getMessage() for r in caplog.records if r.name == 'berth.db.connect']
    assert len(retries) == 2, retries
    assert 'retry 2 of 2' in retries[-1]


def test_database_without_retries_does_not_connect_at_start():
    url = 'postgresql+psycopg2://berth@127.0.0.1:%d/berth' % services.free_port()
    db_api.Database(url, max_retries=0).dispose()
    db_api.Database(url).dispose()
