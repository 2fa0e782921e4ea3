"""The database engine the functional tests run on, and clean databases on it.

``BERTH_TEST_DB`` selects the engine: ``sqlite`` (default; a copied SQLite file
per test, see :func:`tests.fixtures.migrated_sqlite`), ``postgresql`` or
``mysql`` (MariaDB).  For a server engine each test process (xdist worker)
starts one throwaway server on first use and keeps a small pool of migrated
databases on it: a test leases one (it is emptied with a few DELETEs, which
costs milliseconds, instead of being migrated again), and the lease ends when
pytest tears down the scope that took it (see ``tests/conftest.py``).
"""

import os
import threading
import uuid

import pytest
import sqlalchemy as sa

from common import context as berth_context
from db import api as db_api
from db import migration, models
from objects import bootstrap
from tests import mariadb_service, services

ENGINES = ('sqlite', 'postgresql', 'mysql')
ENGINE = os.environ.get('BERTH_TEST_DB', 'sqlite').strip().lower() or 'sqlite'
REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'
if ENGINE not in ENGINES:
    raise RuntimeError('BERTH_TEST_DB=%s: expected one of %s' % (ENGINE, ', '.join(ENGINES)))

_SERVICES = {'postgresql': services.PostgreSQL, 'mysql': mariadb_service.MariaDB}
# standard rows (synced once per database) survive a reset; custom ones go
_KEEP_STANDARD = {'traits': 'name', 'resource_classes': 'name'}

_lock = threading.Lock()
_server = {'service': None, 'error': None}
_free = []            # names of migrated databases nobody leases
_leased = {'function': [], 'module': []}
_engines = {}         # name -> a small engine used to empty the database


# the engines with an exact, cheap change detector (db/change.py): the answer
# cache and the candidate index's "nothing changed" path work on these only.
# Derived from the engine under test, never from change_token() itself, so a
# detector that stopped answering fails the tests that rely on it.
CHANGE_DETECTOR_ENGINES = ('sqlite', 'postgresql')


def has_change_detector(db):
    """Whether ``db`` (a db.api.Database) runs on an engine that has one."""
    return db.engine.dialect.name in CHANGE_DETECTOR_ENGINES


def is_server():
    return ENGINE != 'sqlite'


def _service():
    if _server['error']:
        pytest.fail(_server['error'])
    if _server['service'] is None:
        cls = _SERVICES[ENGINE]
        missing = cls.missing()
        if missing:
            reason = ('!!! BERTH_TEST_DB=%s but %s is not installed (missing %s): the '
                      'test is SKIPPED; install the Debian package (see .ci/run) !!!'
                      % (ENGINE, cls.name, ', '.join(missing)))
            if REQUIRE:
                pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
            pytest.skip(reason)
        try:
            _server['service'] = cls(None).start()
        except (services.ServiceError, OSError) as exc:
            _server['error'] = '%s did not start: %s' % (cls.name, exc)
            pytest.fail(_server['error'])
    return _server['service']


def _url(service, name):
    if ENGINE == 'mysql':
        return service.url_for(name)
    return service.url.rsplit('/', 1)[0] + '/' + name


def _admin_sql(service, statement):
    if ENGINE == 'mysql':
        service.sql(statement)
        return
    engine = sa.create_engine(_url(service, 'postgres'), isolation_level='AUTOCOMMIT',
                              poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(statement)
    finally:
        engine.dispose()


def _create(service):
    """A new migrated database with the standard classes and traits; its name."""
    name = 'berth_%s' % uuid.uuid4().hex[:10]
    _admin_sql(service, 'CREATE DATABASE %s' % name)
    db = db_api.Database(_url(service, name))
    try:
        migration.upgrade(db)
        bootstrap.sync_standards(berth_context.admin_context(db))
    finally:
        db.dispose()
    _engines[name] = sa.create_engine(_url(service, name), poolclass=sa.pool.NullPool)
    return name


def _empty(name):
    """Delete every row a test may have written (children first)."""
    with _engines[name].begin() as conn:
        if ENGINE == 'mysql':
            conn.exec_driver_sql('SET SESSION foreign_key_checks = 0')
        for table in reversed(models.Base.metadata.sorted_tables):
            stmt = table.delete()
            if table.name in _KEEP_STANDARD:
                stmt = stmt.where(table.c[_KEEP_STANDARD[table.name]].like('CUSTOM\\_%',
                                                                           escape='\\'))
            conn.execute(stmt)


def lease(scope='function'):
    """The URL of a clean migrated database, leased until ``scope`` ends."""
    with _lock:
        service = _service()
        try:
            name = _free.pop()
        except IndexError:
            name = _create(service)
        else:
            _empty(name)
        _leased[scope].append(name)
    return _url(service, name)


def release(scope):
    """Give back the databases leased for ``scope`` (its fixtures are torn down)."""
    with _lock:
        _free.extend(_leased[scope])
        del _leased[scope][:]


def empty_database(tmp_path):
    """The URL of a new database with no tables, and a function that drops it."""
    if not is_server():
        return 'sqlite:///%s' % (tmp_path / 'empty.sqlite'), lambda: None
    with _lock:
        service = _service()
    name = 'empty_%s' % uuid.uuid4().hex[:10]
    _admin_sql(service, 'CREATE DATABASE %s' % name)
    return _url(service, name), lambda: _admin_sql(service, 'DROP DATABASE %s' % name)


# the server-side id of a connection, and the statement that ends one
BACKEND_ID = {'postgresql': 'SELECT pg_backend_pid()', 'mysql': 'SELECT CONNECTION_ID()'}
_END_BACKEND = {'postgresql': 'SELECT pg_terminate_backend(%d)', 'mysql': 'KILL %d'}


def end_backend(url, backend):
    """End connection ``backend`` (a BACKEND_ID answer) from the server side,
    as a killed or restarted server ends it."""
    killer = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with killer.connect() as conn:
            conn.execute(sa.text(_END_BACKEND[ENGINE] % backend))
    finally:
        killer.dispose()


def pool_size():
    """How many databases this process created (each lease reuses one if it can)."""
    return len(_engines)


def shutdown():
    """Stop this process's server (by its PID)."""
    for engine in _engines.values():
        engine.dispose()
    _engines.clear()
    service, _server['service'] = _server['service'], None
    if service is not None:
        service.stop()
