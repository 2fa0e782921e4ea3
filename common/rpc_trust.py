"""Who sent an RPC message: HMAC signatures made by the clients, verified by the conductors.

A message on the bus says who its caller is (the context's user, project,
roles and scope); anyone holding broker credentials could say anything.
So every client signs what it sends, at the last step before the driver
(:class:`SigningTransport`): HMAC-SHA256 with its key over the method, the
arguments, the context, the conductor it is for, a timestamp and a nonce.
The conductor (:class:`Verifier`, called by common.rpc_door before any
dispatch) recomputes the HMAC over what arrived and refuses, Forbidden, a
message with no signature, an unknown key, a wrong HMAC, a timestamp out of
``[rpc] signature_ttl``, a nonce already seen, or another conductor's name.

Keys (``[rpc]``, doc/source/rpc.md "Authentication"): ``signing_key`` is berth's
own, held by its processes; a message signed with it acts with the context
as sent (berth-api forwards its caller's, checked by Keystone and by the
API's policy).  ``service_keys`` are other services' keys; their messages
act with at most the roles ``service_roles`` gives them, never system scope.

Trust modes (each process logs its own once): ``signed`` (a key is set),
``embedded`` (no key, the in-process transport: a key of the process's own,
so only its threads can send), ``unsigned`` (no key and a broker, only with
``[rpc] allow_unsigned``: nothing is signed and the conductor believes the
bus, as before; a WARNING).  Without a key and without ``allow_unsigned`` a
broker process refuses to start (common.rpc_keys).
"""

import collections
import hashlib
import hmac
import logging
import math
import secrets
import threading
import time

from oslo_messaging import transport as msg_transport
from oslo_serialization import jsonutils

from common import exception, rpc_keys
from common.conf import rpc as rpc_conf

LOG = logging.getLogger('berth.' + __name__)

# the context field that carries the signature (oslo.context ignores it)
FIELD = 'berth_auth'
# the key id of berth's own processes
BERTH = 'berth'
# context fields a driver adds on the way (the rabbit driver's reply timeout)
TRANSIENT = ('client_timeout', FIELD)
# the message fields signed (a driver's own bookkeeping is not)
MESSAGE_FIELDS = ('method', 'args', 'version', 'namespace')
# shortest key accepted, in characters
MIN_KEY = 32
# most nonces a conductor remembers within the window (the oldest go first)
NONCES = 200000

SIGNED, EMBEDDED, UNSIGNED = 'signed', 'embedded', 'unsigned'

# the key of a process without [rpc] signing_key on the in-process transport
_PROCESS_KEY = secrets.token_hex(32)
_LOGGED: set[tuple[str, str]] = set()
_LOGGED_LOCK = threading.Lock()


def _conf_group(conf):
    try:
        return conf.rpc
    except Exception:       # a ConfigOpts built without berth's options
        rpc_conf.register_opts(conf)
        return conf.rpc


def in_process(transport):
    """Whether ``transport`` only reaches this process (inproc://, kombu+memory, fake)."""
    driver = getattr(transport, '_driver', None)
    module = type(driver).__module__
    return (module == 'common.rpc_inproc' or module.endswith('impl_fake')
            or (getattr(transport, 'conf', None) is not None
                and str(getattr(transport.conf, 'transport_url', '') or '')
                .startswith('kombu+memory')))


def mode(conf, transport):
    """``(mode, key_id, key)`` of this process (see the module docstring).

    Raises common.rpc_keys.Refused (one line) for a key too short or known
    from berth's docs, and for no key on a broker without ``[rpc]
    allow_unsigned``.
    """
    group = _conf_group(conf)
    local = in_process(transport)
    rpc_keys.check(group, local)
    if group.signing_key:
        return SIGNED, group.signing_key_id, group.signing_key
    if local:
        return EMBEDDED, BERTH, _PROCESS_KEY
    return UNSIGNED, None, None


def log_mode(role, trust):
    """Say once per process and role which trust mode it runs in."""
    with _LOGGED_LOCK:
        if (role, trust) in _LOGGED:
            return
        _LOGGED.add((role, trust))
    if trust == UNSIGNED:
        LOG.warning('RPC %s trust mode: unsigned ([rpc] signing_key is unset, '
                    'allow_unsigned = true): the conductors believe any context on '
                    'the message bus; make a key with "%s" and set it in every '
                    'berth process (doc/source/rpc.md)', role, rpc_keys.GENERATE)
    else:
        LOG.info('RPC %s trust mode: %s', role, trust)


def canonical(key_id, stamp, nonce, server, ctxt, message):
    """The bytes a signature covers: one JSON text, keys sorted, no spaces."""
    context = {k: v for k, v in ctxt.items() if k not in TRANSIENT}
    return jsonutils.dump_as_bytes(
        [key_id, stamp, nonce, server or '', context,
         [message.get(name) for name in MESSAGE_FIELDS]],
        sort_keys=True, separators=(',', ':'))


def signature(key, data):
    return hmac.new(key.encode('utf-8'), data, hashlib.sha256).hexdigest()


class Signer:
    """Signs the messages of one client as ``key_id``."""

    def __init__(self, key_id, key):
        self.key_id = key_id
        self.key = key

    def sign(self, server, ctxt, message):
        """``ctxt`` with its signature for ``message`` to conductor ``server``."""
        stamp, nonce = round(time.time(), 3), secrets.token_hex(12)
        data = canonical(self.key_id, stamp, nonce, server, ctxt, message)
        ctxt = {k: v for k, v in ctxt.items() if k != FIELD}
        ctxt[FIELD] = {'key': self.key_id, 'ts': stamp, 'nonce': nonce,
                       'sig': signature(self.key, data)}
        return ctxt


class SigningTransport(msg_transport.RPCTransport):
    """An RPC transport whose messages leave signed (the driver of ``transport``)."""

    def __init__(self, transport, signer):
        super().__init__(transport._driver)
        self.signer = signer
        self.inner = transport

    def _send(self, target, ctxt, message, *args, **kwargs):
        ctxt = self.signer.sign(target.server, ctxt, message)
        return super()._send(target, ctxt, message, *args, **kwargs)

    def cleanup(self):
        self.inner.cleanup()


def signing(transport):
    """``transport`` for a client: signing when this process has a key."""
    conf = transport.conf
    trust, key_id, key = mode(conf, transport)
    log_mode('client', trust)
    if trust == UNSIGNED:
        return transport
    return SigningTransport(transport, Signer(key_id, key))


class _Nonces:
    """The nonces seen within the window (bounded; the oldest go first)."""

    def __init__(self, ttl, size=NONCES):
        self.ttl = ttl
        self.size = size
        self._seen = collections.OrderedDict()     # nonce -> when seen
        self._lock = threading.Lock()

    def first(self, key, now):
        """Whether ``key`` is new (and remember it)."""
        with self._lock:
            seen = self._seen
            while seen:
                oldest, when = next(iter(seen.items()))
                if now - when <= 2 * self.ttl and len(seen) < self.size:
                    break
                del seen[oldest]
            if key in seen:
                return False
            seen[key] = now
            return True


def _refuse(reason):
    return exception.Forbidden('The RPC message was refused: %s.' % reason,
                               rule='rpc:signature')


class Verifier:
    """Checks the signature of each message to conductor ``server``.

    :param keys: key id -> key (berth's own and the services').
    :param roles: key id -> the roles it may act with (None: any, berth's own).
    """

    def __init__(self, server, keys, roles, ttl, clock=time.time, started=None):
        self.server = server
        self.keys = keys
        self.roles = roles
        self.ttl = ttl
        self._clock = clock
        self._nonces = _Nonces(ttl)
        # the nonces seen die with the process: a message stamped before
        # this conductor started is refused (doc/source/rpc.md "Replays")
        # (to the millisecond below: a stamp is rounded to milliseconds)
        self.started = math.floor((clock() if started is None else started) * 1000) / 1000

    def verify(self, ctxt, message):
        """The context to act with (Forbidden when the message does not verify)."""
        auth = ctxt.get(FIELD) if isinstance(ctxt, dict) else None
        if not isinstance(auth, dict):
            raise _refuse('it is not signed')
        key_id, stamp, nonce, sig = (auth.get(n) for n in ('key', 'ts', 'nonce', 'sig'))
        key = self.keys.get(key_id) if isinstance(key_id, str) else None
        if key is None:
            raise _refuse('unknown signing key %r' % str(key_id)[:40])
        if not (isinstance(stamp, (int, float)) and isinstance(nonce, str)
                and isinstance(sig, str) and 0 < len(nonce) <= 64):
            raise _refuse('malformed signature')
        expected = signature(key, canonical(key_id, stamp, nonce, self.server, ctxt,
                                            message))
        if not hmac.compare_digest(expected, sig):
            raise _refuse('bad signature (for another conductor, or altered)')
        now = self._clock()
        if abs(now - stamp) > self.ttl:
            raise _refuse('signature expired')
        if stamp < self.started:
            raise _refuse('signed before this conductor started')
        if not self._nonces.first((key_id, nonce), now):
            raise _refuse('replayed message')
        return self._identity(key_id, ctxt)

    def _identity(self, key_id, ctxt):
        ctxt = {k: v for k, v in ctxt.items() if k not in TRANSIENT}
        allowed = self.roles.get(key_id)
        if allowed is None:
            return ctxt
        roles = ctxt.get('roles')
        ctxt['roles'] = [r for r in roles if r in allowed] if isinstance(roles, list) else []
        for scope in ('system_scope', 'domain', 'domain_id'):
            ctxt.pop(scope, None)
        # a project name is the sender's word, not Keystone's: Ironic's
        # service_role rule matches the service project by name, so a service
        # key naming project ``service`` would act on every project's nodes
        ctxt['project_name'] = None
        ctxt['is_admin'] = False
        return ctxt


def verifier(conf, transport, server):
    """The Verifier of conductor ``server``, or None in trust mode ``unsigned``."""
    trust, key_id, key = mode(conf, transport)
    log_mode('server', trust)
    if trust == UNSIGNED:
        return None
    group = _conf_group(conf)
    keys = {BERTH: key}
    roles: dict[str, frozenset[str] | None] = {BERTH: None}
    if key_id != BERTH:
        LOG.warning('[rpc] signing_key_id is %r on a conductor: its own messages '
                    'verify as berth\'s key', key_id)
    for name, service_key in (group.service_keys or {}).items():
        if name == BERTH or not service_key:
            continue
        keys[name] = service_key
        allowed = (group.service_roles or {}).get(name) or ''
        roles[name] = frozenset(r for r in allowed.split('+') if r)
    for name, value in keys.items():
        if trust == SIGNED and len(value) < MIN_KEY:
            raise ValueError('[rpc] key of %s is shorter than %d characters'
                             % (name, MIN_KEY))
    return Verifier(server, keys, roles, group.signature_ttl)
