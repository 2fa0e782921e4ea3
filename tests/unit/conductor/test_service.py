"""A conductor's bounded workers and its graceful stop (in-process transport, file ring)."""

import threading
import time

import pytest

from common import context as berth_context
from common import exception, rpc
from conductor import ring as conductor_ring
from conductor import rpcapi
from conductor import service as conductor_service
from conductor import workers as conductor_workers


class StaleRing:
    """A peer's ring that still names one conductor, whatever happened since."""

    def __init__(self, host):
        self.host = host

    def owner(self, key):
        return self.host


@pytest.fixture
def transport(conf):
    conf.set_override('rpc_timeout', 1, group='conductor')
    t = rpc.get_transport(conf, url=rpc.EMBEDDED_TRANSPORT_URL)
    yield t
    t.cleanup()


def test_slots_are_bounded_and_refusal_is_no_free_worker():
    workers = conductor_workers.Workers('cond-a', 2)
    with workers.slot(), workers.slot():
        assert workers.busy == 2
        with pytest.raises(exception.NoFreeWorker) as err:
            with workers.slot():
                pass
        assert 'cond-a' in str(err.value)
        with pytest.raises(exception.NoFreeWorker):
            workers.spawn(lambda: None)
    assert workers.busy == 0
    workers.shutdown()


def test_an_rpc_call_waits_for_a_slot_freed_within_admission_wait():
    # a burst of calls queues for a moment instead of answering 503
    workers = conductor_workers.Workers('cond-a', 1, admission_wait=3600)
    admitted, done = threading.Event(), threading.Event()

    def call():
        with workers.admit():
            admitted.set()
        done.set()

    with workers.slot():
        waiter = threading.Thread(target=call, daemon=True)
        waiter.start()
        assert not admitted.wait(0.2)         # no slot yet: it waits, not refused
    assert done.wait(30)
    assert workers.busy == 0
    workers.shutdown()


def test_an_rpc_call_is_refused_when_no_slot_frees_within_admission_wait():
    workers = conductor_workers.Workers('cond-a', 1, admission_wait=0.05)
    with workers.slot():
        with pytest.raises(exception.NoFreeWorker):
            with workers.admit():
                pass
    assert workers.busy == 0
    workers.shutdown()


def test_background_work_and_plain_slots_never_wait_for_one():
    # the allocation queue falls back to its backlog on a refusal: it must
    # get one at once whatever admission_wait is
    workers = conductor_workers.Workers('cond-a', 1, admission_wait=3600)
    refused = []

    def try_both():
        for attempt in (lambda: workers.spawn(lambda: None), workers.slot().__enter__):
            try:
                attempt()
            except exception.NoFreeWorker:
                refused.append(True)

    with workers.slot():
        trying = threading.Thread(target=try_both, daemon=True)
        trying.start()
        trying.join(30)
        assert not trying.is_alive() and refused == [True, True]
    workers.shutdown()


def test_background_work_holds_a_slot_until_done_even_when_it_fails():
    workers = conductor_workers.Workers('cond-a', 1)
    release = threading.Event()
    future = workers.spawn(release.wait, 30)
    with pytest.raises(exception.NoFreeWorker):
        workers.spawn(lambda: None)
    release.set()
    assert future.result(30) is True
    assert workers.wait_idle(30)
    failing = workers.spawn(lambda: 1 / 0)
    assert isinstance(failing.exception(30), ZeroDivisionError)
    assert workers.wait_idle(30)
    workers.shutdown()


class GraceGate:
    """conductor.service's ``threading`` during a stop: its grace period is ours to end.

    ``stop()`` serves peers for ``grace`` seconds by waiting on a fresh
    Event; here that wait sets ``entered`` and lasts until the test sets
    ``over``, so no step of the test races a clock.  Everything else is the
    real threading module.
    """

    def __init__(self):
        self.entered, self.over = threading.Event(), threading.Event()

    def __getattr__(self, name):
        return getattr(threading, name)

    def Event(self):                  # noqa: N802 - stands in for threading.Event
        gate = self

        class Grace:
            def wait(self, timeout=None):
                gate.entered.set()
                return gate.over.wait()
        return Grace()


def test_graceful_stop_order(conf, transport, monkeypatch):
    """Leave the group, answer stale peers for the grace period, stop, then finish work."""
    ctx = berth_context.admin_context()
    svc = conductor_service.ConductorService(conf, 'cond-a', None, transport=transport)
    svc.start()
    reader = conductor_ring.Ring(conf).start()
    stale_peer = rpcapi.ConductorAPI(conf, transport, StaleRing('cond-a'))
    release = threading.Event()
    in_flight = svc.workers.spawn(release.wait, 60)
    assert stale_peer.ping(ctx, 'k')['host'] == 'cond-a'

    gate = GraceGate()
    monkeypatch.setattr(conductor_service, 'threading', gate)
    stopper = threading.Thread(target=svc.stop, kwargs={'grace': 3}, daemon=True)
    stopper.start()
    try:
        # 1. it left the group before its grace period began ...
        assert gate.entered.wait(60)
        reader.refresh()
        assert 'cond-a' not in reader.members()
        # 2. ... and during it still answers a peer whose ring names it
        assert stale_peer.ping(ctx, 'k')['host'] == 'cond-a'
        # 3. once the grace period is over it stops taking messages ...
        gate.over.set()
        assert _refused_within(stale_peer, ctx, 300)
        # 4. ... and waits for the work in flight before it is done
        assert stopper.is_alive() and not in_flight.done()
        release.set()
        stopper.join(60)
        assert not stopper.is_alive()
        assert in_flight.result() is True
    finally:
        gate.over.set()
        release.set()
        stopper.join(60)
        reader.stop()


def _refused_within(api, ctx, attempts):
    for _ in range(attempts):
        try:
            api.ping(ctx, 'k')
        except exception.ServiceUnavailable:
            return True
        time.sleep(0.05)
    return False


def test_stop_twice_is_harmless(conf, transport):
    svc = conductor_service.ConductorService(conf, 'cond-a', None, transport=transport)
    svc.start()
    svc.stop(grace=0)
    svc.stop(grace=0)
    assert svc.ring.members() == frozenset()


def test_stop_after_a_start_that_failed_while_joining(conf, transport, monkeypatch):
    """The chaos run's second defect: the RPC server was up but the join failed, and
    the clean-up stop raised AttributeError on the periodic tasks that never started."""
    def failing_join(self, capabilities=None):
        raise RuntimeError('the coordination backend refused the join')

    monkeypatch.setattr(conductor_ring.Ring, 'join', failing_join)
    svc = conductor_service.ConductorService(conf, 'cond-a', None, transport=transport)
    with pytest.raises(RuntimeError, match='refused the join'):
        svc.start()
    svc.stop(grace=0)
    assert svc._periodic is None
    assert svc.ring.members() == frozenset()


def test_a_conductor_of_its_own_freezes_its_heap_once_started(conf):
    """berth-conductor opens its own transport: after its start-up (warm-up
    included) its long-lived heap goes out of the collector's way (gc.freeze),
    so full collections no longer walk it during claims."""
    import gc
    rpc.register_opts(conf)
    conf.set_override('transport_url', rpc.EMBEDDED_TRANSPORT_URL)
    gc.unfreeze()
    svc = conductor_service.ConductorService(conf, 'cond-a', None)
    try:
        svc.start()
        assert gc.get_freeze_count() > 0
    finally:
        svc.stop(grace=0)
        gc.unfreeze()


def test_a_conductor_sharing_its_process_leaves_the_heap_alone(conf, transport):
    """berth serve (a transport shared with the API): the heap is the API's to manage."""
    import gc
    gc.unfreeze()
    svc = conductor_service.ConductorService(conf, 'cond-a', None, transport=transport)
    try:
        svc.start()
        assert gc.get_freeze_count() == 0
    finally:
        svc.stop(grace=0)
