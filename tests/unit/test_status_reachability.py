"""objects.status.database_reachable: the database probe answers within its bound, hung or not."""

import contextlib
import threading

from db import api as db_api
from objects import status as status_obj
from tests import fixtures


class _HungDatabase:
    """A database whose connect never returns until released (a black-holed server)."""

    def __init__(self):
        self.release = threading.Event()
        self.entered = 0

    @contextlib.contextmanager
    def reader(self, ctx):
        self.entered += 1
        self.release.wait(60)
        raise ConnectionError('gave up')
        yield  # pragma: no cover


class _DownDatabase:
    @contextlib.contextmanager
    def reader(self, ctx):
        raise ConnectionRefusedError('refused')
        yield  # pragma: no cover


def test_a_hung_database_is_unreachable_and_costs_one_probe_thread():
    db = _HungDatabase()
    try:
        assert status_obj.database_reachable(db, timeout=0.2) is False
        # the first probe still hangs: the second question does not start another
        assert status_obj.database_reachable(db, timeout=30) is False
        assert db.entered == 1
    finally:
        db.release.set()
        status_obj._running.join(30)


def test_a_refusing_database_is_unreachable():
    assert status_obj.database_reachable(_DownDatabase(), timeout=30) is False


def test_a_database_that_answers_is_reachable(tmp_path):
    db = db_api.Database.from_conf(fixtures.make_conf(str(tmp_path)))
    try:
        assert status_obj.database_reachable(db, timeout=30) is True
    finally:
        db.dispose()
