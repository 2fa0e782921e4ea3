"""Signed replies (common.rpc_reply_sign) and the conductor's start bound (common.rpc_trust).

A conductor signs the reply of a message that verified, with the key that
verified it, bound to that message (its nonce and id) and to the conductor;
the caller's reply poller hands on only such a reply and drops (logs,
counts) every other one.  A message stamped before its conductor started
is refused, whatever the nonces remembered.
"""

import json
import logging
import types

from oslo_messaging._drivers import common as rpc_common
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
import pytest

from common import exception, metrics, rpc_door, rpc_reply_sign, rpc_trust
from conductor.rpcapi import version as rpc_version

KEY = 'k' * 40
NOVA_KEY = 'n' * 40
MESSAGE = {'method': 'ping', 'version': '1.0', 'args': {}}
CALL = ('berth', KEY, 'nonce-1', 'c1')


def _reply(result=None, failure=None, msg_id='m1'):
    """A reply as the rabbit driver's conductor side sends it (enveloped)."""
    return rpc_common.serialize_msg({'result': result, 'failure': failure,
                                     'ending': True, '_msg_id': msg_id,
                                     '_unique_id': 'u1'})


def _received(envelope):
    """What the caller's reply poller gets: decoded, ``_msg_id`` popped."""
    data = rpc_common.deserialize_msg(json.loads(json.dumps(envelope)))
    return data.pop('_msg_id'), data


def _signed(call=CALL, **kwargs):
    key_id, key, nonce, server = call
    return _received(rpc_reply_sign.sign_envelope(_reply(**kwargs), key_id, key, nonce,
                                                  server))


def test_a_signed_reply_verifies_for_its_own_call():
    result = {'host': 'c1', 'members': ['c1', 'c2'], 'n': 1.5, 'nested': [None, True]}
    msg_id, data = _signed(result=result)
    assert rpc_reply_sign.verify(CALL, msg_id, data) is None
    assert rpc_reply_sign.FIELD not in data and data['result'] == result


@pytest.mark.parametrize('result', [2 ** 70, float('nan'), {'b': 1, 'a': [1.25, 'é']}])
def test_what_orjson_does_not_take_still_verifies(result):
    msg_id, data = _signed(result=result)
    assert rpc_reply_sign.verify(CALL, msg_id, data) is None


@pytest.mark.parametrize('call', [
    ('berth', KEY, 'nonce-2', 'c1'),        # another call's nonce
    ('berth', KEY, 'nonce-1', 'c2'),        # another conductor
    ('nova', KEY, 'nonce-1', 'c1'),         # another key id
    ('berth', NOVA_KEY, 'nonce-1', 'c1'),   # another key
])
def test_a_reply_signed_for_another_call_does_not_verify(call):
    msg_id, data = _signed()
    assert rpc_reply_sign.verify(call, msg_id, data) == 'bad_signature'


def test_an_altered_or_moved_or_unsigned_reply_does_not_verify():
    msg_id, data = _signed(result=None)
    data['result'] = {'host': 'evil'}
    assert rpc_reply_sign.verify(CALL, msg_id, data) == 'bad_signature'
    msg_id, data = _signed(failure='{"class": "Conflict"}')
    data['failure'] = None
    assert rpc_reply_sign.verify(CALL, msg_id, data) == 'bad_signature'
    msg_id, data = _signed(msg_id='m1')
    assert rpc_reply_sign.verify(CALL, 'm2', data) == 'bad_signature'
    msg_id, data = _received(_reply())
    assert rpc_reply_sign.verify(CALL, msg_id, data) == 'unsigned'
    data[rpc_reply_sign.FIELD] = 'x'
    assert rpc_reply_sign.verify(CALL, msg_id, data) == 'unsigned'
    assert rpc_reply_sign.verify(CALL, msg_id, ['not', 'a', 'dict']) == 'malformed'


class _Waiters:
    """oslo.messaging's ReplyWaiters, recording."""

    def __init__(self):
        self.put_ = []
        self.added = []

    def add(self, msg_id):
        self.added.append(msg_id)

    def remove(self, msg_id):
        self.added.remove(msg_id)

    def put(self, msg_id, data):
        self.put_.append((msg_id, data))


def _dropped(reason):
    return metrics.RPC_REPLIES_DROPPED.labels(reason)._value.get()


def test_the_guard_hands_on_only_the_reply_signed_for_the_waiting_call(caplog):
    guard = rpc_reply_sign._Guard(_Waiters())
    signer = rpc_reply_sign._RecordingSigner(rpc_trust.Signer('berth', KEY))
    ctxt = signer.sign('c1', {'user': 'u'}, MESSAGE)
    guard.add('m1')                         # the driver listens right after signing
    call = guard.expected['m1']
    assert call == ('berth', KEY, ctxt[rpc_trust.FIELD]['nonce'], 'c1')
    before = _dropped('unsigned'), _dropped('bad_signature')
    with caplog.at_level(logging.WARNING, logger='berth.common.rpc_reply_sign'):
        guard.put(*_received(_reply(result=None)))                       # forged
        guard.put(*_signed(call=('berth', KEY, 'other-nonce', 'c1')))    # misbound
    assert guard.inner.put_ == []
    assert (_dropped('unsigned'), _dropped('bad_signature')) == (before[0] + 1,
                                                                 before[1] + 1)
    assert caplog.text.count('Dropped a reply to RPC message m1 for conductor c1') == 2
    assert guard.dropped['m1'] == 2
    guard.put(*_signed(call=call, result={'host': 'c1'}))                # genuine
    assert guard.inner.put_ == [('m1', {'result': {'host': 'c1'}, 'failure': None,
                                        'ending': True, '_unique_id': 'u1'})]
    guard.remove('m1')
    assert guard.expected == {} and guard.dropped == {}
    # a message id nobody here signed for: oslo.messaging's own handling
    guard.put('m9', {'result': 1})
    assert guard.inner.put_[-1] == ('m9', {'result': 1})


def test_a_call_listens_for_what_it_signed_not_an_earlier_cast():
    guard = rpc_reply_sign._Guard(_Waiters())
    rpc_reply_sign._pending.call = None
    guard.add('m1')                         # nothing signed on this thread
    assert 'm1' not in guard.expected
    signer = rpc_reply_sign._RecordingSigner(rpc_trust.Signer('berth', KEY))
    signer.sign('c1', {}, MESSAGE)
    guard.add('m2')
    guard.add('m3')                         # the next call signs again first
    assert 'm2' in guard.expected and 'm3' not in guard.expected


def test_checking_guards_the_waiters_of_a_broker_driver_only():
    class Driver:
        def __init__(self):
            self._waiter = None

        def _get_reply_q(self):
            if self._waiter is None:
                self._waiter = types.SimpleNamespace(waiters=_Waiters())
            return 'reply_x'

    driver = Driver()
    transport = types.SimpleNamespace(_driver=driver,
                                      signer=rpc_trust.Signer('berth', KEY))
    assert rpc_reply_sign.checking(transport) is transport
    assert isinstance(transport.signer, rpc_reply_sign._RecordingSigner)
    assert driver._get_reply_q() == 'reply_x'
    assert isinstance(driver._waiter.waiters, rpc_reply_sign._Guard)
    rpc_reply_sign.checking(transport)      # idempotent
    driver._get_reply_q()
    assert not isinstance(driver._waiter.waiters.inner, rpc_reply_sign._Guard)
    # unsigned (no signer) or in-process (no reply queue): as they are
    unsigned = types.SimpleNamespace(_driver=Driver())
    assert rpc_reply_sign.checking(unsigned) is unsigned
    inproc = types.SimpleNamespace(_driver=object(), signer=rpc_trust.Signer('b', KEY))
    assert rpc_reply_sign.checking(inproc).signer.__class__ is rpc_trust.Signer


class _Incoming:
    """The rabbit driver's incoming message: ``_send_reply`` sends to ``conn``."""

    def __init__(self, ctxt, message):
        self.ctxt, self.message, self.msg_id, self.client_timeout = ctxt, message, 'm1', None

    def _send_reply(self, conn, reply=None, failure=None, ending=True):
        conn.direct_send('reply_q', rpc_common.serialize_msg(
            {'result': reply, 'failure': failure, 'ending': ending,
             '_msg_id': self.msg_id, '_unique_id': 'u1'}))


class _Conn:
    def __init__(self):
        self.sent = []

    def direct_send(self, queue, msg):
        self.sent.append(msg)


class _Endpoint:
    RPC_METHODS = ('ping',)
    target = None

    def ping(self, ctx):
        return {'host': 'c1'}


def _door(key_id_keys):
    verifier = rpc_trust.Verifier('c1', key_id_keys,
                                  {k: None for k in key_id_keys}, ttl=60)
    return rpc_door.Dispatcher([_Endpoint()], types.SimpleNamespace(
        deserialize_context=lambda c: c, serialize_entity=lambda c, e: e,
        deserialize_entity=lambda c, e: e), verifier)


@pytest.mark.parametrize('key_id,key', [('berth', KEY), ('nova', NOVA_KEY)])
def test_the_conductor_signs_the_replies_of_a_verified_message_with_its_key(key_id, key):
    door = _door({'berth': KEY, 'nova': NOVA_KEY})
    ctxt = rpc_trust.Signer(key_id, key).sign('c1', {'user': 'u'}, MESSAGE)
    incoming = _Incoming(json.loads(json.dumps(ctxt)), dict(MESSAGE))
    assert door.dispatch(incoming) == {'host': 'c1'}
    conn = _Conn()
    incoming._send_reply(conn, {'host': 'c1'})
    msg_id, data = _received(conn.sent[0])
    call = (key_id, key, ctxt[rpc_trust.FIELD]['nonce'], 'c1')
    assert rpc_reply_sign.verify(call, msg_id, data) is None


def test_the_refusal_of_a_message_that_does_not_verify_is_not_signed():
    door = _door({'berth': KEY})
    ctxt = rpc_trust.Signer('berth', 'g' * 40).sign('c1', {'user': 'u'}, MESSAGE)
    incoming = _Incoming(json.loads(json.dumps(ctxt)), dict(MESSAGE))
    with pytest.raises(rpc_dispatcher.ExpectedException):
        door.dispatch(incoming)
    conn = _Conn()
    incoming._send_reply(conn, None, 'Forbidden')
    assert rpc_reply_sign.FIELD not in json.loads(conn.sent[0]['oslo.message'])


def test_a_message_signed_before_the_conductor_started_is_refused():
    now = [1_000_000.0]
    verifier = rpc_trust.Verifier('c1', {'berth': KEY}, {'berth': None}, ttl=60,
                                  clock=lambda: now[0], started=now[0])
    signer = rpc_trust.Signer('berth', KEY)
    import time as time_mod
    real = time_mod.time
    try:
        rpc_trust.time.time = lambda: now[0] - 0.5       # signed before the start
        early = json.loads(json.dumps(signer.sign('c1', {'u': 1}, MESSAGE)))
        rpc_trust.time.time = lambda: now[0] + 0.5
        late = json.loads(json.dumps(signer.sign('c1', {'u': 1}, MESSAGE)))
    finally:
        rpc_trust.time.time = real
    now[0] += 1
    with pytest.raises(exception.Forbidden) as err:
        verifier.verify(early, MESSAGE)
    assert 'signed before this conductor started' in err.value.message
    assert verifier.verify(late, MESSAGE) == {'u': 1}
    # a Verifier made without ``started`` starts at its clock's now
    assert rpc_trust.Verifier('c1', {}, {}, 60, clock=lambda: 5.0).started == 5.0


def test_only_a_cap_of_1_11_or_later_believes_signed_replies_only():
    assert rpc_version.REPLY_SIGNING == rpc_version.RPC_API_VERSION == '1.11'
    assert rpc_version.allows('1.11', '1.11') and rpc_version.allows('1.12', '1.11')
    assert not rpc_version.allows('1.10', '1.11') and not rpc_version.allows('2.0', '1.11')
