"""db.api.lagging_reader: a lost replica connection is read again once, on a new one."""

import contextlib

from oslo_db import exception as db_exc
import pytest

from db import api as db_api


class FakeDb:
    """Where each read ran; ``replica_engine`` set as with slave_connection."""

    def __init__(self, replica=True):
        self.replica_engine = object() if replica else None
        self.ran = []

    @contextlib.contextmanager
    def lagging_reader(self, ctx):
        self.ran.append('replica')
        yield

    @contextlib.contextmanager
    def reader(self, ctx):
        self.ran.append('primary')
        yield


class Ctx:
    def __init__(self, db):
        self.db = db
        self.transaction_ctx = None


def _read(failures, exc=None):
    """A lagging read that fails ``failures`` times (a lost connection), then answers."""
    left = [failures]

    @db_api.lagging_reader(recheck_on=(LookupError,))
    def read(ctx):
        if left[0]:
            left[0] -= 1
            raise exc or db_exc.DBConnectionError('server closed the connection')
        return 'rows'
    return read


def test_a_lost_replica_connection_is_read_again_on_the_replica():
    db = FakeDb()
    assert _read(1)(Ctx(db)) == 'rows'
    assert db.ran == ['replica', 'replica']


def test_a_second_loss_is_the_callers():
    db = FakeDb()
    with pytest.raises(db_exc.DBConnectionError):
        _read(2)(Ctx(db))
    assert db.ran == ['replica', 'replica']


def test_without_a_replica_a_lost_connection_is_not_retried():
    db = FakeDb(replica=False)
    with pytest.raises(db_exc.DBConnectionError):
        _read(1)(Ctx(db))
    assert db.ran == ['replica']        # (the lagging reader is then the primary's)


def test_inside_a_transaction_a_lost_connection_is_not_retried():
    db = FakeDb()
    ctx = Ctx(db)
    ctx.transaction_ctx = object()      # the caller's transaction: its connection is gone
    with pytest.raises(db_exc.DBConnectionError):
        _read(1)(ctx)
    assert db.ran == ['replica']


def test_a_recheck_after_the_retry_still_goes_to_the_primary():
    db = FakeDb()
    left = [2]

    @db_api.lagging_reader(recheck_on=(LookupError,))
    def read(ctx):
        if db.ran[-1] == 'primary':
            return 'decided'
        left[0] -= 1
        raise db_exc.DBConnectionError('lost') if left[0] else LookupError('not replayed')
    assert read(Ctx(db)) == 'decided'
    assert db.ran == ['replica', 'replica', 'primary']


def test_other_errors_are_not_read_again():
    db = FakeDb()
    with pytest.raises(db_exc.DBError):
        _read(1, db_exc.DBError('syntax'))(Ctx(db))
    assert db.ran == ['replica']

