"""MariaDB's AUTO-INC lock deadlock (error 1467) is a deadlock to retry, not a 503."""

import types

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import exc_filters
import pymysql
import sqlalchemy as sa

from db import dialect


def _translated(code, text, dialect_name='mysql'):
    orig = pymysql.err.OperationalError(code, text)
    error = sa.exc.OperationalError('INSERT INTO consumers ... SELECT ...', {}, orig)
    context = types.SimpleNamespace(
        dialect=types.SimpleNamespace(name=dialect_name), sqlalchemy_exception=error,
        original_exception=orig, connection=None, is_disconnect=False)
    try:
        return exc_filters.handler(context)
    except sa.exc.OperationalError as raised:    # oslo.db re-raises the rest as is
        return raised


def test_error_1467_is_a_deadlock():
    assert dialect._autoinc_deadlock   # registered when db.dialect is imported
    got = _translated(1467, 'Failed to read auto-increment value from storage engine')
    assert isinstance(got, db_exc.DBDeadlock)


def test_other_errors_are_not_deadlocks():
    got = _translated(1146, "Table 'berth.nope' doesn't exist")
    assert not isinstance(got, db_exc.DBDeadlock)
    got = _translated(1467, 'Failed to read auto-increment value from storage engine',
                      dialect_name='postgresql')
    assert not isinstance(got, db_exc.DBDeadlock)
