"""An oslo.messaging driver for one process: messages handed to the server, no polling.

``berth serve`` runs the API and its conductors in one process.  A broker
there only costs time: kombu's in-memory transport wakes every listener in a
polling loop (hundreds of queue reads per call).  This driver keeps the
oslo.messaging API above it unchanged (RPC client and server, serializer,
version pinning, expected exceptions, the server's executor and its bounds)
and replaces the broker by a table of listeners: a call or cast is given to
the chosen listener's callback, which submits it to that server's executor,
and the caller waits on an event for the reply.

As on a real broker, the message and the reply cross as JSON (so nothing is
shared between caller and server by reference), a failure crosses as a
serialized remote exception (re-raised typed only for allowed modules), a
call to a server nobody listens on is not delivered (the caller gets
MessagingTimeout, at once, since nobody can answer), and a cast to it is
dropped.

Transport URL: ``inproc://`` (or ``inproc:///<name>`` for separate brokers
within a process).  Registered as the ``inproc`` entry point of
``oslo.messaging.drivers`` in setup.cfg.
"""

import itertools
import logging
import math
import threading

import orjson
import oslo_messaging as messaging
from oslo_messaging._drivers import base
from oslo_messaging._drivers import common as rpc_common
from oslo_serialization import jsonutils

LOG = logging.getLogger('berth.' + __name__)

SCHEME = 'inproc'


class _Broker:
    """The listeners of one virtual host: by server, by topic (and pool)."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self.by_server = {}     # (exchange, topic, server) -> listener
        self.by_topic = {}      # (exchange, topic) -> {pool: [listener]}
        self.users = 0
        self._turn = itertools.count()

    def add(self, listener):
        with self.lock:
            for exchange, topic, server in listener.keys:
                if server is not None:
                    self.by_server[(exchange, topic, server)] = listener
                pools = self.by_topic.setdefault((exchange, topic), {})
                pools.setdefault(listener.pool, []).append(listener)

    def remove(self, listener):
        with self.lock:
            for exchange, topic, server in listener.keys:
                if server is not None and self.by_server.get(
                        (exchange, topic, server)) is listener:
                    del self.by_server[(exchange, topic, server)]
                pools = self.by_topic.get((exchange, topic), {})
                members = pools.get(listener.pool, [])
                if listener in members:
                    members.remove(listener)
                if not members:
                    pools.pop(listener.pool, None)
                if not pools:
                    self.by_topic.pop((exchange, topic), None)

    def route(self, exchange, topic, server, fanout):
        """The listeners a message goes to: one, one per pool, or all (fanout)."""
        with self.lock:
            if fanout:
                pools = self.by_topic.get((exchange, topic), {})
                return list({id(lsn): lsn for members in pools.values()
                             for lsn in members}.values())
            if server is not None:
                listener = self.by_server.get((exchange, topic, server))
                return [listener] if listener is not None else []
            turn = next(self._turn)
            return [members[turn % len(members)]
                    for members in self.by_topic.get((exchange, topic), {}).values()
                    if members]


_BROKERS: dict[str, '_Broker'] = {}
_BROKERS_LOCK = threading.Lock()


def _attach(name: str) -> _Broker:
    with _BROKERS_LOCK:
        broker = _BROKERS.setdefault(name, _Broker(name))
        broker.users += 1
        return broker


def _detach(broker: _Broker) -> None:
    with _BROKERS_LOCK:
        broker.users -= 1
        if broker.users <= 0 and _BROKERS.get(broker.name) is broker:
            del _BROKERS[broker.name]


_ORJSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def _copy(value):
    """``value`` as the receiver of a JSON message would see it.

    orjson, with oslo's ``to_primitive`` for what it does not write itself
    (datetimes included, so they read as oslo writes them).  What orjson
    refuses (integers beyond 64 bits) or writes differently (it writes NaN
    and infinities as null, jsonutils as NaN/Infinity) goes through
    jsonutils, the reference.
    """
    try:
        text = orjson.dumps(value, default=jsonutils.to_primitive, option=_ORJSON)
    except (TypeError, orjson.JSONEncodeError):
        return jsonutils.loads(jsonutils.dumps(value))
    if b'null' in text and _has_non_finite(value):
        return jsonutils.loads(jsonutils.dumps(value))
    return orjson.loads(text)


def _has_non_finite(value):
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return False


class _Reply:
    """Where the server's answer to one call lands."""

    def __init__(self):
        self.done = threading.Event()
        self.result = None
        self.failure = None

    def set(self, result, failure):
        self.result, self.failure = result, failure
        self.done.set()


class _IncomingMessage(base.RpcIncomingMessage):
    """A delivered call or cast; ``reply`` wakes the caller."""

    def __init__(self, ctxt, message, reply_to):
        super().__init__(ctxt, message)
        self._reply_to = reply_to

    def acknowledge(self):
        """Nothing to acknowledge: delivery is a function call."""

    def requeue(self):
        """Not supported (see InProcessDriver.require_features)."""

    def heartbeat(self):
        """Not needed: the caller is in this process and waits on an event."""

    def reply(self, reply=None, failure=None):
        if self._reply_to is None:
            return
        if failure is not None:
            self._reply_to.set(None, rpc_common.serialize_remote_exception(failure))
        else:
            self._reply_to.set(_copy(reply), None)


class _Listener(base.Listener):
    """One server's (or notification listener's) entry in the broker."""

    def __init__(self, broker, keys, pool, batch_size, batch_timeout):
        super().__init__(batch_size, batch_timeout)
        self.broker = broker
        self.keys = keys
        self.pool = pool

    def start(self, on_incoming_callback):
        super().start(on_incoming_callback)
        self.broker.add(self)

    def stop(self):
        self.broker.remove(self)
        super().stop()

    def cleanup(self):
        """Nothing held besides the broker entry, which stop() removed."""

    def deliver(self, message):
        """Hand ``message`` to the server; False when it no longer takes any."""
        callback = self.on_incoming_callback
        if callback is None:
            return False
        try:
            callback([message])
        except RuntimeError as exc:     # the server's executor is shut down
            LOG.debug('In-process listener %s refused a message: %s', self.keys, exc)
            return False
        return True


class InProcessDriver(base.BaseDriver):
    """oslo.messaging driver delivering by function call within this process."""

    def __init__(self, conf, url, default_exchange=None, allowed_remote_exmods=None):
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._broker = _attach(url.virtual_host or '')
        self._closed = False

    def _exchange(self, target):
        return target.exchange or self._default_exchange

    def _deliver(self, target, ctxt, message, reply_to, topic=None):
        listeners = self._broker.route(self._exchange(target), topic or target.topic,
                                       target.server, target.fanout)
        wire = _copy({'ctxt': ctxt, 'message': message})
        delivered = 0
        for listener in listeners:
            incoming = _IncomingMessage(wire['ctxt'], wire['message'], reply_to)
            delivered += listener.deliver(incoming)
            if reply_to is not None:
                break
        return delivered

    def send(self, target, ctxt, message, wait_for_reply=None, timeout=None,
             call_monitor_timeout=None, retry=None, transport_options=None):
        reply_to = _Reply() if wait_for_reply else None
        delivered = self._deliver(target, ctxt, message, reply_to)
        if reply_to is None:
            if not delivered:
                LOG.debug('Cast to %s dropped: nobody listens', target)
            return None
        if not delivered:
            raise messaging.MessagingTimeout(
                'No server listens on topic %s server %s'
                % (target.topic, target.server))
        if not reply_to.done.wait(timeout):
            raise messaging.MessagingTimeout(
                'Timed out waiting for a reply on topic %s server %s'
                % (target.topic, target.server))
        if reply_to.failure is not None:
            raise rpc_common.deserialize_remote_exception(
                reply_to.failure, self._allowed_remote_exmods)
        return reply_to.result

    def send_notification(self, target, ctxt, message, version, retry=None):
        self._deliver(target, ctxt, message, None)

    def listen(self, target, batch_size, batch_timeout):
        exchange = self._exchange(target)
        keys = [(exchange, target.topic, target.server)]
        return _Listener(self._broker, keys, None, batch_size, batch_timeout)

    def listen_for_notifications(self, targets_and_priorities, pool,
                                 batch_size, batch_timeout):
        keys = [(self._exchange(target), '%s.%s' % (target.topic, priority), None)
                for target, priority in targets_and_priorities]
        return _Listener(self._broker, keys, pool, batch_size, batch_timeout)

    def cleanup(self):
        if not self._closed:
            self._closed = True
            _detach(self._broker)
