"""AllocationBatcher: concurrent waiting allocation calls to one conductor share a message."""

import threading

import pytest

from common import exception
from conductor.rpcapi import allocation_batch


class GatedSend:
    """A send that records its batches; the first one blocks until released."""

    def __init__(self, fail=None):
        self.batches = []
        self.first_started = threading.Event()
        self.release = threading.Event()
        self.fail = fail

    def __call__(self, ctx, host, ids, wait):
        self.batches.append((host, list(ids), wait))
        if len(self.batches) == 1:
            self.first_started.set()
            self.release.wait(30)
        if self.fail is not None and len(self.batches) > 1:
            raise self.fail
        return [{'id': i} for i in ids]


def _start(batcher, host, alloc_id, out):
    def run():
        try:
            out[alloc_id] = batcher.run(None, host, alloc_id, 2.0)
        except Exception as exc:
            out[alloc_id] = exc
    t = threading.Thread(target=run)
    t.start()
    return t


def _queued(batcher, host, count):
    for _ in range(3000):
        with batcher._lock:
            if len(batcher._hosts[(host, None)].pending) == count:
                return
        threading.Event().wait(0.001)
    raise AssertionError('not queued')


def _sending(batcher, host):
    for _ in range(3000):
        with batcher._lock:
            state = batcher._hosts.get((host, None))
            if state is not None and state.sending:
                return
        threading.Event().wait(0.001)
    raise AssertionError('nobody sending')


def test_calls_arriving_while_one_is_out_go_in_one_batch():
    send = GatedSend()
    batcher = allocation_batch.AllocationBatcher(send)
    out = {}
    threads = [_start(batcher, 'c1', 1, out)]
    assert send.first_started.wait(30)
    threads += [_start(batcher, 'c1', i, out) for i in (2, 3, 4)]
    _queued(batcher, 'c1', 3)
    other = _start(batcher, 'c2', 9, out)     # another conductor is not held up
    other.join(30)
    assert out[9] == {'id': 9}
    send.release.set()
    for t in threads:
        t.join(30)
    assert out == {i: {'id': i} for i in (1, 2, 3, 4, 9)}
    assert [b[1] for b in send.batches if b[0] == 'c1'] == [[1], [2, 3, 4]]
    assert all(b[2] == 2.0 for b in send.batches)
    assert batcher._hosts == {}     # nothing kept for an idle host


def test_batches_are_bounded_and_the_turn_passes_on():
    send = GatedSend()
    batcher = allocation_batch.AllocationBatcher(send, max_batch=2)
    out = {}
    threads = [_start(batcher, 'c1', 1, out)]
    assert send.first_started.wait(30)
    threads += [_start(batcher, 'c1', i, out) for i in (2, 3, 4, 5, 6)]
    _queued(batcher, 'c1', 5)
    send.release.set()
    for t in threads:
        t.join(30)
    assert out == {i: {'id': i} for i in range(1, 7)}
    assert [len(b[1]) for b in send.batches] == [1, 2, 2, 1]
    assert batcher._hosts == {}


def test_a_batch_not_sent_fails_each_of_its_requests():
    unavailable = exception.ServiceUnavailable(reason='the message broker cannot be '
                                                      'reached')
    send = GatedSend(fail=unavailable)
    batcher = allocation_batch.AllocationBatcher(send)
    out = {}
    threads = [_start(batcher, 'c1', 1, out)]
    assert send.first_started.wait(30)
    threads += [_start(batcher, 'c1', i, out) for i in (2, 3)]
    _queued(batcher, 'c1', 2)
    send.release.set()
    for t in threads:
        t.join(30)
    assert out[1] == {'id': 1}
    assert out[2] is unavailable and out[3] is unavailable
    # the host is free again for the next request
    send.fail = None
    assert batcher.run(None, 'c1', 7, 1.0) == {'id': 7}


def test_nothing_waits_when_calls_do_not_overlap():
    calls = []
    batcher = allocation_batch.AllocationBatcher(
        lambda ctx, host, ids, wait: calls.append(ids) or [None] * len(ids))
    assert batcher.run(None, 'c1', 1, 1.0) is None
    assert batcher.run(None, 'c1', 2, 1.0) is None
    assert calls == [[1], [2]]


@pytest.mark.parametrize('in_flight', [2])
def test_several_batches_may_be_out_per_host(in_flight):
    send = GatedSend()
    batcher = allocation_batch.AllocationBatcher(send, in_flight=in_flight)
    out = {}
    first = _start(batcher, 'c1', 1, out)
    assert send.first_started.wait(30)
    second = _start(batcher, 'c1', 2, out)
    second.join(30)                 # sent at once: a second call may be out
    assert out[2] == {'id': 2}
    send.release.set()
    first.join(30)
    assert out[1] == {'id': 1}


class _Ctx:
    def __init__(self, project):
        self.project = project

    def to_policy_values(self):
        return {'project_id': self.project, 'roles': ['member']}


def test_only_one_callers_requests_share_a_call():
    """The conductor checks the rules on the message's context: no other caller's rows in it."""
    send = GatedSend()
    batcher = allocation_batch.AllocationBatcher(send)
    out = {}
    a, b = _Ctx('pa'), _Ctx('pb')

    def start(ctx, alloc_id):
        t = threading.Thread(target=lambda: out.__setitem__(
            alloc_id, batcher.run(ctx, 'c1', alloc_id, 2.0)))
        t.start()
        return t

    threads = [start(a, 1)]
    assert send.first_started.wait(30)
    threads += [start(a, 2), start(b, 3), start(a, 4), start(b, 5)]
    for _ in range(3000):
        with batcher._lock:
            key_a = ('c1', allocation_batch.caller_key(a))
            if key_a in batcher._hosts and len(batcher._hosts[key_a].pending) == 2:
                break
        threading.Event().wait(0.001)
    send.release.set()
    for t in threads:
        t.join(30)
    assert out == {i: {'id': i} for i in range(1, 6)}
    batches = sorted(sorted(b[1]) for b in send.batches)
    assert [1] in batches and [2, 4] in batches
    assert all(set(b) <= {1, 2, 4} or set(b) <= {3, 5} for b in batches)


def _answered_then_handed_over(linger, linger_below=0):
    """Call 1 out alone; 2 and 3 wait; 1 is answered: 2 takes the turn with 3 pending."""
    send = GatedSend()
    batcher = allocation_batch.AllocationBatcher(send, linger=linger,
                                                 linger_below=linger_below)
    out = {}
    threads = [_start(batcher, 'c1', 1, out)]
    assert send.first_started.wait(30)
    threads += [_start(batcher, 'c1', i, out) for i in (2, 3)]
    _queued(batcher, 'c1', 2)
    return send, batcher, out, threads


def test_a_sender_taking_over_waits_for_as_many_as_the_call_before_answered():
    """Linger (no timing: a long one, ended by the arrival it waits for)."""
    send, batcher, out, threads = _answered_then_handed_over(linger=30)
    send.release.set()
    _queued(batcher, 'c1', 1)          # 2 took the turn; it lingers with 3 pending
    assert [b[1] for b in send.batches] == [[1]]
    threads.append(_start(batcher, 'c1', 4, out))   # the one it waits for
    for t in threads:
        t.join(30)
    assert [b[1] for b in send.batches] == [[1], [2, 3, 4]]
    assert out == {i: {'id': i} for i in (1, 2, 3, 4)}
    assert batcher._hosts == {}


def test_the_first_request_after_a_call_went_idle_waits_for_its_callers():
    """[2, 3, 4] answered with nothing queued; 5 is first: it waits for 2 more (no timing)."""
    send, batcher, out, threads = _answered_then_handed_over(linger=600)
    send.release.set()
    _queued(batcher, 'c1', 1)
    threads.append(_start(batcher, 'c1', 4, out))
    for t in threads:
        t.join(30)
    assert [b[1] for b in send.batches] == [[1], [2, 3, 4]]
    assert batcher._hosts == {}
    threads = [_start(batcher, 'c1', 5, out)]
    _sending(batcher, 'c1')            # 5 leads
    threads.append(_start(batcher, 'c1', 6, out))
    _queued(batcher, 'c1', 1)          # 5 lingers for two: had it gone, 6 would follow it
    threads.append(_start(batcher, 'c1', 7, out))
    for t in threads:
        t.join(30)
    assert [b[1] for b in send.batches] == [[1], [2, 3, 4], [5, 6, 7]]
    assert out == {i: {'id': i} for i in range(1, 8)}


def test_a_lone_caller_never_waits_for_itself():
    """A call of one request leaves nothing to wait for (a long linger would hang here)."""
    calls = []
    batcher = allocation_batch.AllocationBatcher(
        lambda ctx, host, ids, wait: calls.append(ids) or [None] * len(ids), linger=600)
    for i in range(3):
        assert batcher.run(None, 'c1', i, 1.0) is None
    assert calls == [[0], [1], [2]]
    assert batcher._idle == {}


def test_a_lingering_sender_sends_what_it_has_when_nobody_comes():
    send, batcher, out, threads = _answered_then_handed_over(linger=0.01)
    send.release.set()
    for t in threads:
        t.join(30)
    assert [b[1] for b in send.batches] == [[1], [2, 3]]
    assert out == {i: {'id': i} for i in (1, 2, 3)}
    assert batcher._hosts == {}


def test_a_call_as_large_as_linger_below_is_not_lingered_after():
    """Call 1 carried 1 request, not fewer than ``linger_below`` 1: 2 and 3 go at once."""
    # a linger far beyond the joins: had it lingered, 2 and 3 would still be waiting
    send, batcher, out, threads = _answered_then_handed_over(linger=600, linger_below=1)
    send.release.set()
    for t in threads:
        t.join(30)
    assert [b[1] for b in send.batches] == [[1], [2, 3]]
    assert out == {i: {'id': i} for i in (1, 2, 3)}


def test_a_call_smaller_than_linger_below_is_lingered_after():
    send, batcher, out, threads = _answered_then_handed_over(linger=30, linger_below=2)
    send.release.set()
    _queued(batcher, 'c1', 1)          # 2 took the turn; it lingers with 3 pending
    threads.append(_start(batcher, 'c1', 4, out))
    for t in threads:
        t.join(30)
    assert [b[1] for b in send.batches] == [[1], [2, 3, 4]]


def test_without_linger_the_next_batch_goes_at_once():
    send, batcher, out, threads = _answered_then_handed_over(linger=0)
    send.release.set()
    for t in threads:
        t.join(30)
    late = _start(batcher, 'c1', 4, out)
    late.join(30)
    assert [b[1] for b in send.batches] == [[1], [2, 3], [4]]


def test_the_first_request_to_an_idle_conductor_never_lingers():
    """No call out, nothing answered: it goes at once (a long linger would hang here)."""
    calls = []
    batcher = allocation_batch.AllocationBatcher(
        lambda ctx, host, ids, wait: calls.append(ids) or [None] * len(ids), linger=30)
    assert batcher.run(None, 'c1', 1, 1.0) is None
    assert batcher.run(None, 'c1', 2, 1.0) is None
    assert calls == [[1], [2]]


def test_a_request_past_its_deadline_while_queued_is_not_sent(monkeypatch):
    """Queued time counts: expired in the queue, RequestExpired; a batch carries the earliest."""
    from common import deadline
    send = GatedSend()
    carried = []
    original = send.__call__

    def recording(ctx, host, ids, wait):
        carried.append(deadline.current())
        return original(ctx, host, ids, wait)
    batcher = allocation_batch.AllocationBatcher(recording)
    out, stamped = {}, {}
    threads = [_start(batcher, 'c1', 1, out)]
    assert send.first_started.wait(30)

    def run_with(alloc_id, seconds):
        def run():
            with deadline.bounded(seconds) as stamped[alloc_id]:
                try:
                    out[alloc_id] = batcher.run(None, 'c1', alloc_id, 2.0)
                except Exception as exc:
                    out[alloc_id] = exc
        t = threading.Thread(target=run)
        t.start()
        return t
    threads += [run_with(2, 0.05), run_with(3, 30), run_with(4, 20)]
    _queued(batcher, 'c1', 3)
    threading.Event().wait(0.1)         # request 2's deadline passes in the queue
    send.release.set()
    for t in threads:
        t.join(30)
    assert isinstance(out[2], exception.RequestExpired)
    assert out[3] == {'id': 3} and out[4] == {'id': 4}
    assert [b[1] for b in send.batches] == [[1], [3, 4]]
    # the batch of 3 and 4 carried 4's deadline, the earlier of the two
    assert carried == [None, stamped[4]]
