"""Deadlines of RPC messages (common.deadline): stamped by the client, signed, enforced.

A message leaves with the deadline of its logical call (or now plus its
timeout); the signature covers it; the conductor's door drops a message
past its deadline (plus grace) before any endpoint runs, and a write
checks it again before it commits.
"""

import json
import threading
import types

import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
import pytest

from common import deadline, exception, metrics, rpc, rpc_door, rpc_replies, rpc_trust
from conductor.rpcapi import pings

KEY = 'k' * 40
MESSAGE = {'method': 'claim_resources', 'version': '1.10', 'args': {'tree': 'r1'}}


class Clock:
    def __init__(self, now=1_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(deadline.time, 'time', c)
    monkeypatch.setattr(rpc_trust.time, 'time', c)
    return c


def _expired(method, where):
    return metrics.RPC_EXPIRED.labels(method, where)._value.get()


def test_a_message_without_an_open_call_gets_now_plus_its_timeout(clock):
    assert deadline.stamp({'user': 'u'}, 30)[deadline.FIELD] == clock.now + 30


def test_every_message_of_a_logical_call_carries_its_deadline(clock):
    with deadline.bounded(60) as at:
        clock.now += 5          # a replay, sent later with a shorter attempt timeout
        assert deadline.stamp({}, 2.5)[deadline.FIELD] == at == 1_000_060.0
    assert deadline.current() is None


def test_a_nested_call_keeps_the_earlier_deadline(clock):
    with deadline.bounded(10):
        with deadline.bounded(60) as inner:
            assert inner == clock.now + 10
        with deadline.bounded(3) as inner:
            assert inner == clock.now + 3
        assert deadline.current() == clock.now + 10


def test_a_forwarded_deadline_is_kept(clock):
    assert deadline.stamp({deadline.FIELD: 5.0}, 30)[deadline.FIELD] == 5.0


def test_the_signature_covers_the_deadline(clock):
    signer = rpc_trust.Signer('berth', KEY)
    verifier = rpc_trust.Verifier('c1', {'berth': KEY}, {'berth': None}, ttl=60,
                                  clock=clock)
    signed = json.loads(json.dumps(signer.sign('c1', deadline.stamp({}, 30), MESSAGE)))
    later = dict(signed, **{deadline.FIELD: signed[deadline.FIELD] + 3600})
    with pytest.raises(exception.Forbidden, match='bad signature'):
        verifier.verify(later, MESSAGE)
    assert verifier.verify(signed, MESSAGE)[deadline.FIELD] == clock.now + 30


class Endpoint:
    RPC_METHODS = frozenset({'claim_resources'})
    target = messaging.Target(version='1.10')

    def __init__(self):
        self.seen = []

    def claim_resources(self, ctx, tree):
        self.seen.append((ctx.deadline, tree))
        return 'written'


def _incoming(ctxt):
    return types.SimpleNamespace(ctxt=ctxt, message=dict(MESSAGE), client_timeout=None)


def test_the_door_drops_a_message_past_its_deadline(clock, caplog):
    endpoint = Endpoint()
    door = rpc_door.Dispatcher([endpoint], rpc.RequestContextSerializer(), grace=1.0)
    before = _expired('claim_resources', 'dispatch')
    with pytest.raises(rpc_dispatcher.ExpectedException) as err:
        door.dispatch(_incoming({deadline.FIELD: clock.now - 1.5}))
    assert err.value.exc_info[0] is exception.RequestExpired
    assert isinstance(err.value.exc_info[1], exception.ServiceUnavailable)
    assert endpoint.seen == []
    assert _expired('claim_resources', 'dispatch') == before + 1
    assert [r.getMessage() for r in caplog.records if 'Dropped' in r.getMessage()]


def test_the_grace_lets_a_slightly_late_message_through(clock):
    endpoint = Endpoint()
    door = rpc_door.Dispatcher([endpoint], rpc.RequestContextSerializer(), grace=1.0)
    assert door.dispatch(_incoming({deadline.FIELD: clock.now - 0.5})) == 'written'
    # the endpoint's context carries the deadline it enforces: grace included
    assert endpoint.seen == [(clock.now + 0.5, 'r1')]


def test_a_message_without_a_deadline_never_expires(clock):
    endpoint = Endpoint()
    door = rpc_door.Dispatcher([endpoint], rpc.RequestContextSerializer(), grace=0)
    assert door.dispatch(_incoming({})) == 'written'
    assert endpoint.seen == [(None, 'r1')]


@pytest.mark.parametrize('value', ['soon', True, None, [1]])
def test_a_malformed_deadline_is_none(value):
    assert deadline.effective(value, 1.0) is None


def test_check_raises_once_the_deadline_has_passed(clock):
    ctx = types.SimpleNamespace(deadline=clock.now + 1, rpc_method='reshape')
    deadline.check(ctx, 'commit')
    before = _expired('reshape', 'commit')
    clock.now += 1.001
    with pytest.raises(exception.RequestExpired, match='reshape'):
        deadline.check(ctx, 'commit')
    assert _expired('reshape', 'commit') == before + 1
    deadline.check(types.SimpleNamespace(deadline=None), 'commit')   # never expires


class BlockedDriver:
    """A driver edge whose reply queue set-up blocks until the broker 'returns'."""

    def __init__(self):
        self.conf = None
        self.broker_back = threading.Event()
        self.sent = []

    def _get_reply_q(self):
        self.broker_back.wait(60)
        return 'reply_q'


class Inner:
    """The transport below (the signing one): records what it would send."""

    def __init__(self, driver):
        self._driver = driver

    def _send(self, target, ctxt, message, wait_for_reply=None, timeout=None, **kwargs):
        self._driver.sent.append((ctxt, timeout))
        return 'answer'


def test_a_call_before_the_reply_queue_is_set_up_fails_unsent_within_its_timeout():
    driver = BlockedDriver()
    replies = rpc_replies.ReplyListener(types.SimpleNamespace(_driver=driver)).start()
    stamping = deadline.StampingTransport(Inner(driver), 30, replies)
    try:
        with pytest.raises(messaging.MessageDeliveryFailure, match='broker'):
            stamping._send(None, {}, MESSAGE, wait_for_reply=True, timeout=0.2)
        assert driver.sent == []          # nothing left to be sent later
        # a cast needs no reply queue: it goes (the driver bounds its own retries)
        assert stamping._send(None, {}, MESSAGE) == 'answer'
        driver.broker_back.set()
        assert replies.ready.wait(60), 'the reply queue was never set up'
        assert stamping._send(None, {}, MESSAGE, wait_for_reply=True,
                              timeout=5) == 'answer'
        assert [t for _, t in driver.sent] == [None, 5]
        assert all(deadline.FIELD in ctxt for ctxt, _ in driver.sent)
    finally:
        driver.broker_back.set()
        replies.stop()


def test_a_driver_without_a_reply_queue_is_ready_at_once():
    replies = rpc_replies.ReplyListener(types.SimpleNamespace(_driver=object()))
    assert replies.start().ready.is_set()


class SilentConductors:
    """The RPC client edge: ``silent`` hosts never answer a ping; the others at once."""

    def __init__(self, silent):
        self.silent = silent
        self.release = threading.Event()

    def prepare(self, server, version, timeout):
        def call(ctx, method):
            if server in self.silent:
                self.release.wait(60)
                raise messaging.MessagingTimeout('no answer')
            return {'host': server}
        return types.SimpleNamespace(call=call)


def test_status_pings_answer_within_one_bound_whatever_is_silent():
    client = SilentConductors({'c1', 'c2'})
    try:
        answers = pings.ping_all(client, None, ['c0', 'c1', 'c2'], timeout=0.2)
    finally:
        client.release.set()
    assert answers['c0'][0] is not None and answers['c0'][1] is None
    assert answers['c1'] == answers['c2'] == (None, 'no answer within 0.2s')


# --- the fence: what a conductor was sent before it (re)joined the ring ---

@pytest.fixture
def fence():
    return deadline.Fence('c-test')


def test_every_message_says_when_it_was_sent(clock):
    assert deadline.stamp({}, 30)[deadline.SENT] == clock.now


def test_the_door_drops_a_message_sent_before_the_conductor_joined(clock, fence):
    endpoint = Endpoint()
    door = rpc_door.Dispatcher([endpoint], rpc.RequestContextSerializer(fence=fence),
                               grace=1.0, fence=fence)
    fence.close(clock.now)
    before = _expired('claim_resources', 'dispatch')
    with pytest.raises(rpc_dispatcher.ExpectedException) as err:
        door.dispatch(_incoming({deadline.FIELD: clock.now + 30,
                                 deadline.SENT: clock.now - 0.1}))
    assert err.value.exc_info[0] is exception.RequestExpired
    assert endpoint.seen == []
    assert _expired('claim_resources', 'dispatch') == before + 1
    # one sent after it runs
    assert door.dispatch(_incoming({deadline.FIELD: clock.now + 30,
                                    deadline.SENT: clock.now + 0.1})) == 'written'


def test_a_stalled_conductor_writes_nothing_until_its_ring_thread_ran(monkeypatch, clock,
                                                                     fence):
    now = [100.0]
    monkeypatch.setattr(deadline.time, 'monotonic', lambda: now[0])
    ctx = types.SimpleNamespace(deadline=clock.now + 60, sent=clock.now, rpc_method='m',
                                fence=fence)
    fence.beat(1.5)
    deadline.check(ctx, 'commit')            # beating: it commits
    now[0] += 30                             # SIGSTOP for 30 s, then SIGCONT
    with pytest.raises(exception.RequestExpired):
        deadline.check(ctx, 'commit')        # the ring thread has not run yet
    clock.now += 30
    fence.beat(1.5)                          # it runs: what was sent before is fenced
    with pytest.raises(exception.RequestExpired):
        deadline.check(ctx, 'commit')
    fresh = types.SimpleNamespace(deadline=clock.now + 60, sent=clock.now + 0.01,
                                  rpc_method='m', fence=fence)
    deadline.check(fresh, 'commit')
    # a conductor's own work (no deadline) is never fenced
    deadline.check(types.SimpleNamespace(deadline=None, sent=None, fence=fence), 'commit')


def test_a_conductor_joining_fences_only_its_own_messages(clock):
    """Two conductors in one process (berth serve's embedded ones, or two
    deployments in one test process): one joining drops nothing of the other's."""
    first, second = deadline.fence_of('c-first-%s' % id(clock)), \
        deadline.fence_of('c-second-%s' % id(clock))
    assert deadline.fence_of('c-first-%s' % id(clock)) is first
    endpoint = Endpoint()
    doors = {f: rpc_door.Dispatcher([endpoint], rpc.RequestContextSerializer(fence=f),
                                    grace=1.0, fence=f) for f in (first, second)}
    sent = {deadline.FIELD: clock.now + 30, deadline.SENT: clock.now - 0.1}
    second.close(clock.now)                  # the second one (re)joins its ring
    assert doors[first].dispatch(_incoming(dict(sent))) == 'written'
    with pytest.raises(rpc_dispatcher.ExpectedException):
        doors[second].dispatch(_incoming(dict(sent)))
    ctx = types.SimpleNamespace(deadline=clock.now + 60, sent=clock.now - 0.1,
                                rpc_method='m', fence=first)
    deadline.check(ctx, 'commit')            # the first one's write commits
    with pytest.raises(exception.RequestExpired):
        deadline.check(types.SimpleNamespace(**dict(vars(ctx), fence=second)), 'commit')


def test_a_coalesced_call_carries_exactly_its_requests_deadline(clock):
    with deadline.bounded(1):
        with deadline.exactly(clock.now + 20):
            assert deadline.stamp({}, 30)[deadline.FIELD] == clock.now + 20
        with deadline.exactly(None):
            assert deadline.current() is None
        assert deadline.current() == clock.now + 1
