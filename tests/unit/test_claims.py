"""The conductor's claim loop: lost races are retried, stale client views are not."""

import threading

from oslo_db import exception as db_exc
import pytest

from common import exception
from conductor.manager import claims


class _Conf:
    class placement:
        allocation_conflict_retry_count = 3

    class quota:
        enforce = False
        limits_source = 'berth'


def _flaky(failures):
    """A write that loses ``len(failures)`` races (raising each) and then succeeds."""
    calls = []

    def write(ctx, arg):
        calls.append(arg)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return 'written'
    write.calls = calls
    return write


def _race():
    return exception.ConcurrentUpdate(what='resource provider', reason='moved')


def test_lost_races_are_retried():
    write = _flaky([_race(), db_exc.DBDeadlock(), _race()])
    assert claims.Claims(_Conf)._write(None, 'tree', write, 'x') == 'written'
    assert len(write.calls) == 4


def test_retries_run_out_with_concurrent_update():
    write = _flaky([_race()] * 4)
    with pytest.raises(exception.ConcurrentUpdate):
        claims.Claims(_Conf)._write(None, 'tree', write, 'x')
    assert len(write.calls) == 4


def test_deadlock_that_persists_becomes_concurrent_update():
    write = _flaky([db_exc.DBDeadlock()] * 4)
    with pytest.raises(exception.ConcurrentUpdate):
        claims.Claims(_Conf)._write(None, 'tree', write, 'x')


@pytest.mark.parametrize('error', [
    exception.ConsumerGenerationConflict(reason='stale'),
    exception.InvalidAllocation(reason='full'),
    exception.AllocationProviderNotFound(uuid='x'),
])
def test_client_errors_are_not_retried(error):
    write = _flaky([error])
    with pytest.raises(type(error)):
        claims.Claims(_Conf)._write(None, 'tree', write, 'x')
    assert len(write.calls) == 1


def test_tree_lock_serialises_one_tree_only():
    locks = claims.TreeLocks()
    inside = threading.Event()
    release = threading.Event()
    order = []

    def holder():
        with locks.hold('a'):
            inside.set()
            release.wait(5)
            order.append('first')

    t = threading.Thread(target=holder)
    t.start()
    inside.wait(5)
    with locks.hold('b'):          # another tree is not blocked
        order.append('other tree')

    def second():
        with locks.hold('a'):
            order.append('second')

    waiter = threading.Thread(target=second)
    waiter.start()
    release.set()
    t.join(5)
    waiter.join(5)
    assert order == ['other tree', 'first', 'second']
    assert locks._locks == {}      # no lock kept for idle trees
