"""Signed RPC replies: a conductor signs each answer, its caller believes only one that verifies.

A request is signed (common.rpc_trust); its reply used to be believed as it
came.  Anyone able to publish to a caller's reply queue (a broker user
that reads the exchange learns the queue and the message id of every call)
could answer first: berth-api then returned 204 for claims never written.

Now the conductor signs every reply of a message that verified
(:func:`sign_replies`, called by common.rpc_door): HMAC-SHA256, with the
key that verified the request (berth's, or the calling service's: the
only key that caller holds), over the request's nonce, the conductor's
name, the message id and the whole reply (result, failure, ending, unique
id).  The signature travels as the reply field ``berth_reply``; a client
that does not check it (an older one) ignores the field.

The caller (:func:`checking`, on the signing transport of
common.rpc.get_client) checks each reply in the driver's reply poller,
before oslo.messaging hands the first reply of a message id to the waiting
call: a reply that is unsigned, signed with another key, for another call
or another conductor, or altered is dropped (a WARNING and
``berth_rpc_replies_dropped``) and the call waits on for the genuine one;
when none comes in time, the call ends as an unanswered one does (a write
is sent again with its call id, conductor.rpcapi.replay; then 503).

A conductor's refusal of a message that did not verify (unsigned, unknown
key, bad signature, expired, replayed, sent before the conductor started)
is not signed: nothing proves it answers the caller's own message, and a
replayed copy of a genuine request must not be able to answer for it.

The in-process transport (``berth serve``, common.rpc_inproc) is exempt:
its replies are handed to the waiting thread in memory, never on a bus
anyone else can publish to; its driver has no reply poller to check in.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from typing import Any

import orjson
from oslo_serialization import jsonutils

from common import metrics

LOG = logging.getLogger('berth.' + __name__)

# the reply field that carries the signature
FIELD = 'berth_reply'
# the request context field with the request's signature (common.rpc_trust.FIELD)
AUTH = 'berth_auth'
# oslo.messaging's envelope key holding the message as JSON text
_MESSAGE_KEY = 'oslo.message'

_pending = threading.local()       # the call this thread is sending: see _Guard.add
_install_lock = threading.Lock()


def canonical(key_id: str, nonce: str, server: str | None, msg_id: str | None,
              reply: dict[str, Any]) -> bytes:
    """The bytes a reply's signature covers (the reply as its caller decodes it)."""
    body = {k: v for k, v in reply.items() if k not in (FIELD, '_msg_id')}
    signed = ['reply', key_id, nonce, server or '', msg_id or '', body]
    try:
        # both sides hold the same decoded JSON, so both take the same branch
        return orjson.dumps(signed, option=orjson.OPT_SORT_KEYS)
    except TypeError:       # what orjson does not encode (an int over 64 bits)
        return jsonutils.dump_as_bytes(signed, sort_keys=True, separators=(',', ':'))


def signature(key: str, key_id: str, nonce: str, server: str | None,
              msg_id: str | None, reply: dict[str, Any]) -> str:
    return hmac.new(key.encode('utf-8'), canonical(key_id, nonce, server, msg_id, reply),
                    hashlib.sha256).hexdigest()


# --- the conductor's side ---

def _dumps(body: Any) -> str:
    try:
        return orjson.dumps(body).decode('utf-8')
    except TypeError:       # an int over 64 bits
        return jsonutils.dumps(body)


def _loads(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:      # NaN, an int over 64 bits: as the caller decodes
        return jsonutils.loads(text)


class _SigningConnection:
    """A driver connection whose ``direct_send`` (a reply) leaves signed."""

    def __init__(self, conn: Any, sign: Any) -> None:
        self._conn = conn
        self._sign = sign

    def direct_send(self, msg_id: Any, msg: Any) -> Any:
        return self._conn.direct_send(msg_id, self._sign(msg))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def sign_envelope(msg: Any, key_id: str, key: str, nonce: str, server: str) -> Any:
    """``msg`` (a reply as the driver sends it, enveloped or not) with its signature."""
    enveloped = isinstance(msg, dict) and isinstance(msg.get(_MESSAGE_KEY), str)
    body = _loads(msg[_MESSAGE_KEY]) if enveloped else msg
    if not isinstance(body, dict):
        return msg
    # signed as the caller will decode it (keys and values after a JSON trip)
    body[FIELD] = {'sig': signature(key, key_id, nonce, server, body.get('_msg_id'),
                                    body)}
    if enveloped:
        return dict(msg, **{_MESSAGE_KEY: _dumps(body)})
    return body


def sign_replies(incoming: Any, key_id: str, key: str, nonce: str, server: str) -> bool:
    """Make the replies of ``incoming`` (a verified request) leave signed.

    False, nothing changed, for a message of a driver without a reply
    queue (the in-process transport: exempt, see the module docstring).
    """
    send_reply = getattr(incoming, '_send_reply', None)
    if send_reply is None:
        return False

    def sign(msg: Any) -> Any:
        return sign_envelope(msg, key_id, key, nonce, server)

    def signed_send_reply(conn: Any, *args: Any, **kwargs: Any) -> Any:
        return send_reply(_SigningConnection(conn, sign), *args, **kwargs)

    incoming._send_reply = signed_send_reply
    return True


# --- the caller's side ---

class _RecordingSigner:
    """A common.rpc_trust.Signer that tells this thread's next call what it signed."""

    def __init__(self, signer: Any) -> None:
        self.inner = signer
        self.key_id = signer.key_id
        self.key = signer.key

    def sign(self, server: Any, ctxt: dict[str, Any], message: Any) -> dict[str, Any]:
        ctxt = self.inner.sign(server, ctxt, message)
        auth = ctxt.get(AUTH) or {}
        _pending.call = (self.key_id, self.key, auth.get('nonce'), server)
        return ctxt


class _Guard:
    """The reply waiters of an AMQP driver (oslo.messaging's ReplyWaiters), checking.

    ``add`` (the calling thread, right after it signed the message) notes
    what the reply of that message id must be signed for; ``put`` (the
    reply poller) hands on only a reply whose signature verifies for it.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.expected: dict[str, tuple[str, str, str, str]] = {}
        self.dropped: dict[str, int] = {}

    def add(self, msg_id: str) -> None:
        self.inner.add(msg_id)
        call = getattr(_pending, 'call', None)
        _pending.call = None
        if call is not None:
            self.expected[msg_id] = call

    def remove(self, msg_id: str) -> None:
        self.expected.pop(msg_id, None)
        self.dropped.pop(msg_id, None)
        self.inner.remove(msg_id)

    def get(self, msg_id: str, timeout: float) -> Any:
        return self.inner.get(msg_id, timeout)

    def put(self, msg_id: str, data: Any) -> None:
        call = self.expected.get(msg_id)
        if call is not None:
            why = verify(call, msg_id, data)
            if why is not None:
                self.dropped[msg_id] = self.dropped.get(msg_id, 0) + 1
                metrics.RPC_REPLIES_DROPPED.labels(why).inc()
                LOG.warning('Dropped a reply to RPC message %s for conductor %s: %s '
                            '(not its conductor\'s answer; waiting for that)',
                            msg_id, call[3], why)
                return
        self.inner.put(msg_id, data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def verify(call: tuple[str, str, str, str], msg_id: str, data: Any) -> str | None:
    """None when ``data`` is the signed reply ``call`` expects; else why not."""
    key_id, key, nonce, server = call
    if not isinstance(data, dict):
        return 'malformed'
    auth = data.pop(FIELD, None)
    sig = auth.get('sig') if isinstance(auth, dict) else None
    if not isinstance(sig, str):
        return 'unsigned'
    expected = signature(key, key_id, nonce, server, msg_id, data)
    if not hmac.compare_digest(expected, sig):
        return 'bad_signature'
    return None


def _guard(driver: Any) -> None:
    """Put a _Guard around ``driver``'s reply waiters once they exist (idempotent)."""
    waiter = getattr(driver, '_waiter', None)
    if waiter is None or isinstance(waiter.waiters, _Guard):
        return
    with _install_lock:
        if not isinstance(waiter.waiters, _Guard):
            waiter.waiters = _Guard(waiter.waiters)


def checking(transport: Any) -> Any:
    """``transport`` (a common.rpc_trust.SigningTransport) whose calls believe signed replies only.

    A transport that does not sign (trust mode ``unsigned``) or whose driver
    has no reply poller (the in-process one) is returned as it is.
    """
    driver: Any = getattr(transport, '_driver', None)
    setup = getattr(driver, '_get_reply_q', None)
    signer = getattr(transport, 'signer', None)
    if signer is None or setup is None or not hasattr(driver, '_waiter'):
        return transport
    if not isinstance(signer, _RecordingSigner):
        transport.signer = _RecordingSigner(signer)
    if getattr(setup, '_berth_checking', False):
        return transport

    def get_reply_q() -> Any:
        # every call passes here before it listens for its message id
        reply_q = setup()
        _guard(driver)
        return reply_q

    get_reply_q._berth_checking = True     # type: ignore[attr-defined]
    driver._get_reply_q = get_reply_q
    return transport

