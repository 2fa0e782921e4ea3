"""db.storage: a full database is named StorageFull (SQLite's SQLITE_FULL, PG 53100, MySQL)."""

import sqlite3

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from common import exception
from db import storage


def _sqlite_full(tmp_path):
    """A real SQLITE_FULL: a file database capped with ``PRAGMA max_page_count``."""
    engine = sa.create_engine('sqlite:///%s' % (tmp_path / 'capped.sqlite'))
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v BLOB)')
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql('PRAGMA max_page_count = %d' % 4)
            for _ in range(50):
                conn.exec_driver_sql('INSERT INTO t VALUES (zeroblob(4096))')
    except sa.exc.OperationalError as exc:
        return exc
    finally:
        engine.dispose()
    pytest.fail('the capped database never filled')


def test_sqlite_full_is_named_through_every_wrapper(tmp_path):
    exc = _sqlite_full(tmp_path)
    assert isinstance(exc.orig, sqlite3.OperationalError)
    assert storage.is_full(exc)
    assert storage.is_full(db_exc.DBError(exc))          # oslo.db's unmatched wrapper
    assert storage.is_full(db_exc.DBConnectionError(exc))


class _PGError(Exception):
    pgcode = '53100'


class _OtherPGError(Exception):
    pgcode = '57P01'


def test_postgresql_disk_full_and_nothing_else():
    assert storage.is_full(db_exc.DBError(sa.exc.OperationalError('x', {}, _PGError())))
    assert not storage.is_full(sa.exc.OperationalError('x', {}, _OtherPGError()))
    assert not storage.is_full(db_exc.DBConnectionError(ValueError('gone')))


def test_naming_full_raises_storage_full_and_passes_the_rest(tmp_path):
    full = _sqlite_full(tmp_path)

    def run(exc):
        class Transaction:
            def __enter__(self):
                return 'session'

            def __exit__(self, *exc_info):
                return False
        with storage.naming_full(Transaction()) as session:
            assert session == 'session'
            raise exc

    with pytest.raises(exception.StorageFull) as caught:
        run(full)
    assert 'disk is full' in caught.value.message
    assert caught.value.__cause__ is full
    with pytest.raises(db_exc.DBConnectionError):
        run(db_exc.DBConnectionError(ValueError('gone')))
