"""Shared pytest fixtures (see tests/fixtures.py for the building blocks)."""

from futurist import _thread as futurist_thread
import pytest

from common import context as berth_context
from tests import dbengines, fixtures
from tests.functional.log_helpers import capture  # noqa: F401  (fixture: log lines as oslo.log formats them)

# A stopping oslo.messaging server joins its futurist executor's threads, and
# an idle one notices the stop only when its queue read times out: after
# ThreadWorker.MAX_IDLE_FOR, 1 s.  A conductor that answered one call thus
# took 1 s to stop; nearly every functional test stops one, so that second
# was ~40 % of the tier's wall time (tests/functional/test_allocations*.py,
# 43 tests: 50.7 s, teardowns 25.1 s; with 0.05 s here: 30.6 s, 3.9 s).  Only
# the test processes wake their idle RPC threads 20 times a second; what the
# conductor waits for (the calls in flight) is unchanged.  Gone from a later
# futurist: nothing to shorten, the tests only take longer.
if hasattr(futurist_thread, 'ThreadWorker'):
    futurist_thread.ThreadWorker.MAX_IDLE_FOR = 0.05


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'sqlite_only(reason): runs on SQLite only; skipped with its reason '
        'under BERTH_TEST_DB=postgresql|mysql')


def pytest_collection_modifyitems(config, items):
    """``sqlite_only`` tests skip (with their reason) on another engine."""
    if not dbengines.is_server():
        return
    for item in items:
        mark = item.get_closest_marker('sqlite_only')
        if mark is not None:
            reason = mark.kwargs.get('reason') or (mark.args[0] if mark.args else '')
            item.add_marker(pytest.mark.skip(
                reason='SQLite only (BERTH_TEST_DB=%s): %s' % (dbengines.ENGINE, reason)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test's fixtures are torn down, its leased databases are free again."""
    yield
    dbengines.release('function')
    if nextitem is None or nextitem.module is not item.module:
        dbengines.release('module')


def pytest_sessionfinish(session):
    dbengines.shutdown()


@pytest.fixture
def conf(tmp_path):
    return fixtures.make_conf(tmp_path / 'state')


@pytest.fixture
def berth(conf, tmp_path_factory, tmp_path):
    """A running embedded berth on a fresh database (BERTH_TEST_DB); stopped after the test."""
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


@pytest.fixture
def client(berth):
    """An admin Placement client at the latest microversion."""
    c = fixtures.PlacementClient(berth.placement_url, version='latest')
    yield c
    c.close()


@pytest.fixture
def ctx(berth):
    """An admin request context bound to the running berth's database."""
    return berth_context.admin_context(berth.db)


@pytest.fixture
def bm(berth):
    """A bare-metal (/v1) client at the latest microversion."""
    c = fixtures.BaremetalClient(berth.baremetal_url, version='latest')
    yield c
    c.close()
