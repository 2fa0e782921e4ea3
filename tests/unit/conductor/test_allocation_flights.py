"""NodeAllocator.allocate drives a row once per process, however many callers ask."""

import threading
import types

from conductor.manager import node_allocations


class _Notifier:
    enabled = True

    def __init__(self):
        self.sent = []

    def emit(self, ctx, action, phase, alloc):
        self.sent.append('%s.%s' % (action, phase))


def _allocator(monkeypatch, row, state='allocating'):
    allocator = node_allocations.NodeAllocator('c0', _Notifier())
    monkeypatch.setattr(node_allocations.node_alloc, 'get_by_id',
                        lambda ctx, alloc_id: types.SimpleNamespace(
                            conductor_affinity='c0', state=state))
    monkeypatch.setattr(allocator, '_allocate_row', row)
    return allocator


def test_concurrent_callers_share_one_drive_and_one_start(monkeypatch):
    entered, release = threading.Event(), threading.Event()
    drives = []

    def row(ctx, alloc_id, first=None):
        drives.append(alloc_id)
        entered.set()
        assert release.wait(10)
        return {'state': 'active', 'node_uuid': 'n1'}

    allocator = _allocator(monkeypatch, row)
    results = []
    first = threading.Thread(target=lambda: results.append(allocator.allocate(None, 7)))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=lambda: results.append(allocator.allocate(None, 7)))
    second.start()
    second.join(0.2)
    assert second.is_alive()             # waiting for the first caller, not driving
    release.set()
    first.join(10)
    second.join(10)
    assert drives == [7]
    assert results == [{'state': 'active', 'node_uuid': 'n1'}] * 2
    assert allocator.notifier.sent == ['create.start', 'create.end']
    assert allocator._flights == {}


def test_a_later_call_drives_again(monkeypatch):
    drives = []
    allocator = _allocator(monkeypatch, lambda ctx, alloc_id, first=None: drives.append(
        alloc_id))
    allocator.allocate(None, 7)
    allocator.allocate(None, 7)
    assert drives == [7, 7]


def test_the_same_thread_asking_again_is_not_a_deadlock(monkeypatch):
    allocator = node_allocations.NodeAllocator('c0')
    inner, calls = [], []

    def row(ctx, alloc_id, first=None):
        calls.append(alloc_id)
        if len(calls) == 1:
            inner.append(allocator.allocate(ctx, alloc_id))
        return {'state': 'error'}

    monkeypatch.setattr(allocator, '_allocate_row', row)
    assert allocator.allocate(None, 3) == {'state': 'error'}
    assert inner == [{'state': 'error'}] and calls == [3, 3]


class _WatchedEvent(threading.Event):
    """An Event that tells when somebody is waiting on it."""

    def __init__(self, waiting):
        super().__init__()
        self._waiting = waiting

    def wait(self, timeout=None):
        self._waiting.set()
        return super().wait(timeout)


def test_a_failing_drive_releases_its_waiters(monkeypatch):
    """A caller waiting on a drive that raises is woken, gets no result, and
    the row is free for the next drive.

    Mutation this catches: ``flight.done.set()`` only on success (outside the
    ``finally``) -- the waiter then blocks forever (no timeout in production).
    """
    waiting, fail = threading.Event(), threading.Event()

    class Flight(node_allocations._Flight):
        def __init__(self, thread):
            super().__init__(thread)
            self.done = _WatchedEvent(waiting)

    monkeypatch.setattr(node_allocations, '_Flight', Flight)

    def row(ctx, alloc_id, first=None):
        assert fail.wait(10)
        raise RuntimeError('boom')

    allocator = _allocator(monkeypatch, row)
    errors, results = [], []

    def drive():
        try:
            allocator.allocate(None, 5)
        except RuntimeError as exc:
            errors.append(exc)

    driver = threading.Thread(target=drive, daemon=True)
    driver.start()
    while not allocator._flights:            # the driver holds the flight
        assert driver.is_alive()
        threading.Event().wait(0.01)
    waiter = threading.Thread(target=lambda: results.append(allocator.allocate(None, 5)),
                              daemon=True)
    waiter.start()
    assert waiting.wait(10)                  # the second caller waits on the first
    fail.set()
    driver.join(10)
    waiter.join(10)
    assert not waiter.is_alive(), 'a waiter of a failed drive was never woken'
    assert [str(e) for e in errors] == ['boom']
    assert results == [None]
    assert allocator._flights == {}


def test_a_row_already_finished_here_gets_no_second_start(monkeypatch):
    # the resume at start drove the row before the API's call reached it:
    # that drive sent its start and end; this one writes nothing, sends nothing
    allocator = _allocator(monkeypatch, lambda ctx, alloc_id, first=None: None,
                           state='active')
    assert allocator.allocate(None, 7) is None
    assert allocator.notifier.sent == []
