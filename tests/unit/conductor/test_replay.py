"""Replayed write calls (RPC 1.8): the conductor's ledger and the client's resends."""

import threading
from unittest import mock

import oslo_messaging as messaging
import pytest

from common import context as berth_context
from common import exception, metrics
from conductor.manager import replay as ledger_mod
from conductor.rpcapi import replay as client_replay


class Counted:
    """A call that counts its runs and answers ``answer`` (or raises ``error``)."""

    def __init__(self, answer='written', error=None):
        self.runs = 0
        self.answer = answer
        self.error = error

    def __call__(self):
        self.runs += 1
        if self.error is not None:
            raise self.error
        return self.answer


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


# --- the conductor's ledger ---

def test_unknown_id_runs():
    ledger = ledger_mod.CallLedger()
    call = Counted()
    assert ledger.run('id-1', 'claim_resources', call) == 'written'
    assert call.runs == 1
    assert ('id-1', 'claim_resources') in ledger


def test_no_id_runs_every_time_and_records_nothing():
    ledger = ledger_mod.CallLedger()
    call = Counted()
    ledger.run(None, 'claim_resources', call)
    ledger.run(None, 'claim_resources', call)
    assert call.runs == 2
    assert len(ledger) == 0


def test_replay_after_the_end_answers_the_recorded_answer():
    ledger = ledger_mod.CallLedger()
    first, replay = Counted({'consumer': 'c-1'}), Counted('second answer')
    assert ledger.run('id-1', 'schedule_and_claim', first) == {'consumer': 'c-1'}
    assert ledger.run('id-1', 'schedule_and_claim', replay) == {'consumer': 'c-1'}
    assert (first.runs, replay.runs) == (1, 0)


def test_same_id_of_another_method_is_another_call():
    ledger = ledger_mod.CallLedger()
    first, other = Counted('a'), Counted('b')
    ledger.run('id-1', 'claim_resources', first)
    assert ledger.run('id-1', 'delete_allocations', other) == 'b'
    assert other.runs == 1


def test_replay_after_a_failure_raises_the_recorded_error_typed():
    ledger = ledger_mod.CallLedger()
    error = exception.AllocationNotFound(allocation='a-1')
    first, replay = Counted(error=error), Counted()
    with pytest.raises(exception.AllocationNotFound):
        ledger.run('id-1', 'destroy_allocation', first)
    with pytest.raises(exception.AllocationNotFound) as raised:
        ledger.run('id-1', 'destroy_allocation', replay)
    assert raised.value.message == error.message
    assert raised.value.kwargs == {'allocation': 'a-1'}
    assert (first.runs, replay.runs) == (1, 0)


def test_the_ledger_keeps_no_traceback_of_the_first_attempt():
    ledger = ledger_mod.CallLedger()
    with pytest.raises(exception.Conflict):
        ledger.run('id-1', 'claim_resources', Counted(error=exception.Conflict(reason='x')))
    stored = ledger._entries[('id-1', 'claim_resources')].error
    assert isinstance(stored, exception.Conflict) and stored.__traceback__ is None
    with pytest.raises(exception.Conflict) as first_replay:
        ledger.run('id-1', 'claim_resources', Counted())
    with pytest.raises(exception.Conflict) as second_replay:
        ledger.run('id-1', 'claim_resources', Counted())
    assert first_replay.value is not second_replay.value
    assert stored.__traceback__ is None


def test_replay_while_running_waits_for_the_first_attempt(monkeypatch):
    """Single flight: the replay joins the running first attempt, which runs once."""
    ledger = ledger_mod.CallLedger()
    release, started, joined = threading.Event(), threading.Event(), threading.Event()
    runs = []

    def first():
        runs.append('first')
        started.set()
        release.wait()
        return 'claimed once'

    log = mock.Mock()
    log.info.side_effect = lambda *args: joined.set()
    monkeypatch.setattr(ledger_mod, 'LOG', log)
    answers = {}
    original = threading.Thread(target=lambda: answers.setdefault(
        'first', ledger.run('id-1', 'schedule_and_claim', first)))
    original.start()
    started.wait()
    second = threading.Thread(target=lambda: answers.setdefault(
        'replay', ledger.run('id-1', 'schedule_and_claim', lambda: runs.append('replay'))))
    second.start()
    joined.wait()                  # the replay logged that it waits for the first
    assert 'once it ends' in log.info.call_args.args[0] % log.info.call_args.args[1:]
    release.set()
    original.join()
    second.join()
    assert runs == ['first']
    assert answers == {'first': 'claimed once', 'replay': 'claimed once'}


def test_the_oldest_entry_goes_beyond_the_size():
    ledger = ledger_mod.CallLedger(size=2)
    for call_id in ('id-1', 'id-2', 'id-3'):
        ledger.run(call_id, 'reshape', Counted())
    assert len(ledger) == 2
    assert ('id-1', 'reshape') not in ledger
    again = Counted()
    ledger.run('id-1', 'reshape', again)       # forgotten: runs again
    assert again.runs == 1
    kept = Counted()
    ledger.run('id-3', 'reshape', kept)
    assert kept.runs == 0


def test_an_entry_expires_after_the_ttl():
    clock = Clock()
    ledger = ledger_mod.CallLedger(ttl=300, clock=clock)
    ledger.run('id-1', 'reshape', Counted())
    clock.now += 299
    kept = Counted()
    ledger.run('id-1', 'reshape', kept)
    assert kept.runs == 0
    clock.now += 2
    expired = Counted()
    ledger.run('id-1', 'reshape', expired)
    assert expired.runs == 1


# --- the client's resends ---

class Calls:
    """A prepared client whose calls time out ``timeouts`` times, then answer."""

    def __init__(self, timeouts, answer='answer', error=None):
        self.timeouts = timeouts
        self.answer = answer
        self.error = error
        self.seen = []          # (server, version, timeout, call_id)

    def prepare(self, server, version, timeout):
        outer = self

        class Prepared:
            def call(self, ctx, method, call_id, **kwargs):
                outer.seen.append((server, version, timeout, call_id))
                if len(outer.seen) <= outer.timeouts:
                    raise messaging.MessagingTimeout('lost')
                if outer.error is not None:
                    raise outer.error
                return outer.answer
        return Prepared()


def _replays(method):
    return metrics.RPC_REPLAYS.labels(method)._value.get()


def test_a_timed_out_attempt_is_sent_again_with_the_same_call_id():
    calls = Calls(timeouts=1)
    before = _replays('replay_probe')
    answer = client_replay.call(calls, berth_context.admin_context(), 'c1', 'replay_probe',
                                '1.8', attempt_timeout=2.5, budget=60, tree=None)
    assert answer == 'answer'
    assert [(s, v, t) for s, v, t, _ in calls.seen] == [('c1', '1.8', 2.5)] * 2
    assert calls.seen[0][3] == calls.seen[1][3]
    assert _replays('replay_probe') == before + 1


def test_every_logical_call_has_its_own_id():
    calls = Calls(timeouts=0)
    for _ in range(2):
        client_replay.call(calls, berth_context.admin_context(), 'c1', 'm', '1.8',
                           attempt_timeout=2.5, budget=60)
    assert calls.seen[0][3] != calls.seen[1][3]


def test_the_budget_used_up_is_service_unavailable(monkeypatch):
    """No answer within rpc_timeout: 503 as before 1.8, after the attempts it allowed."""
    now = [0.0]
    monkeypatch.setattr(client_replay.time, 'monotonic', lambda: now[0])
    calls = Calls(timeouts=100)
    original = calls.prepare

    def prepare(server, version, timeout):
        now[0] += timeout               # each attempt waits its whole timeout
        return original(server, version, timeout)
    calls.prepare = prepare
    with pytest.raises(exception.ServiceUnavailable) as raised:
        client_replay.call(calls, berth_context.admin_context(), 'c2', 'schedule_probe',
                           '1.8', attempt_timeout=2.5, budget=10)
    assert 'conductor c2 did not answer in time' in str(raised.value)
    assert [t for _, _, t, _ in calls.seen] == [2.5, 2.5, 2.5, 2.5]


def test_a_typed_error_is_not_replayed():
    calls = Calls(timeouts=0, error=exception.NoValidHost(reason='full'))
    with pytest.raises(exception.NoValidHost):
        client_replay.call(calls, berth_context.admin_context(), 'c1', 'm', '1.8',
                           attempt_timeout=2.5, budget=60)
    assert len(calls.seen) == 1


def test_a_conductor_refusing_1_8_is_an_old_conductor():
    calls = Calls(timeouts=0, error=messaging.RemoteError('UnsupportedVersion', 'no 1.8'))
    with pytest.raises(client_replay.OldConductor):
        client_replay.call(calls, berth_context.admin_context(), 'c1', 'm', '1.8',
                           attempt_timeout=2.5, budget=60)


def test_an_attempt_that_times_out_at_once_is_waited_out(monkeypatch):
    """A driver that times out at once (nobody listens) does not make a busy loop."""
    now = [0.0]
    monkeypatch.setattr(client_replay.time, 'monotonic', lambda: now[0])
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds
    monkeypatch.setattr(client_replay.time, 'sleep', sleep)
    calls = Calls(timeouts=100)
    with pytest.raises(exception.ServiceUnavailable):
        client_replay.call(calls, berth_context.admin_context(), 'c3', 'm', '1.8',
                           attempt_timeout=2.5, budget=10)
    assert len(calls.seen) == 4
    assert sum(slept) == pytest.approx(10)    # in slices: the ring is checked between
    assert max(slept) <= 0.25


# --- the ring dropped the conductor; the broker went after an attempt ---

def test_a_conductor_the_ring_dropped_is_left_at_once(monkeypatch):
    """The wait ends as soon as the ring drops it: Moved, saying an attempt went out."""
    now = [0.0]
    monkeypatch.setattr(client_replay.time, 'monotonic', lambda: now[0])

    def sleep(seconds):
        now[0] += seconds
    monkeypatch.setattr(client_replay.time, 'sleep', sleep)
    calls = Calls(timeouts=100)
    alive = {'c1': True}

    def is_alive(host):
        if now[0] >= 1.0:
            alive[host] = False
        return alive[host]
    with pytest.raises(client_replay.Moved) as raised:
        client_replay.call(calls, berth_context.admin_context(), 'c1', 'm', '1.8',
                           attempt_timeout=2.5, budget=60, alive=is_alive)
    assert raised.value.sent and raised.value.server == 'c1'
    assert len(calls.seen) == 1 and now[0] < 2.5


def test_a_conductor_already_dropped_gets_nothing():
    calls = Calls(timeouts=0)
    with pytest.raises(client_replay.Moved) as raised:
        client_replay.call(calls, berth_context.admin_context(), 'gone', 'm', '1.8',
                           attempt_timeout=2.5, budget=60, alive=lambda host: False)
    assert not raised.value.sent and calls.seen == []


def test_moved_goes_to_the_new_owner_or_says_what_berth_knows():
    sent, unsent = client_replay.Moved('c1', True), client_replay.Moved('c1', False)
    assert client_replay.moved_to(sent, 'm', lambda: 'c2') == 'c2'
    with pytest.raises(exception.OutcomeUnknown):
        client_replay.moved_to(sent, 'm', None)
    with pytest.raises(exception.ServiceUnavailable) as raised:
        client_replay.moved_to(unsent, 'm', None)
    assert not isinstance(raised.value, exception.OutcomeUnknown)

    def nobody():
        raise exception.ServiceUnavailable(reason='no conductor is alive')
    with pytest.raises(exception.OutcomeUnknown) as raised:
        client_replay.moved_to(sent, 'm', nobody)
    assert 'no conductor is alive' not in str(raised.value)


def test_the_broker_gone_after_an_attempt_went_out_is_outcome_unknown():
    """A resend that cannot be sent does not promise that nothing was written."""
    calls = Calls(timeouts=1, error=messaging.MessageDeliveryFailure('broker gone'))
    with pytest.raises(exception.OutcomeUnknown) as raised:
        client_replay.call(calls, berth_context.admin_context(), 'c1', 'm', '1.8',
                           attempt_timeout=0.2, budget=60)
    assert 'may have been written' in str(raised.value)
    assert 'cannot be reached' not in str(raised.value)


def test_the_broker_gone_before_any_attempt_is_nothing_written():
    calls = Calls(timeouts=0, error=messaging.MessageDeliveryFailure('broker gone'))
    with pytest.raises(exception.ServiceUnavailable) as raised:
        client_replay.call(calls, berth_context.admin_context(), 'c1', 'm', '1.8',
                           attempt_timeout=0.2, budget=60)
    assert not isinstance(raised.value, exception.OutcomeUnknown)
    assert 'the message broker cannot be reached' in str(raised.value)


def test_the_wait_ends_at_the_requests_deadline(monkeypatch):
    """The budget counts from the request's arrival (deadline.bounded opened then)."""
    from common import deadline
    calls = Calls(timeouts=0)
    with deadline.bounded(3):
        client_replay.call(calls, berth_context.admin_context(), 'c1', 'm', '1.8',
                           attempt_timeout=10, budget=60)
    assert calls.seen[0][2] <= 3
