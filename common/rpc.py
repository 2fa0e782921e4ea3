"""oslo.messaging plumbing shared by the API (client) and the conductors (server).

One place decides the transport, how a request context crosses the wire, which
exceptions are re-raised typed on the calling side, and how messaging failures
become :class:`common.exception.ServiceUnavailable` (HTTP 503).
"""

import contextlib
import logging
from typing import Any

from kombu import exceptions as kombu_exc
from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts
from oslo_messaging.rpc import server as rpc_server

from common import context as berth_context
from common import deadline, exception, metrics, rpc_door, rpc_reply_sign, rpc_trust

LOG = logging.getLogger('berth.' + __name__)

# The one topic every conductor listens on (with server=<host>).
TOPIC = 'berth-conductor'

# Modules whose exceptions a conductor may raise to its caller: they are
# re-raised in the API process as (subclasses of) the same classes.
ALLOWED_EXMODS = [exception.__name__]
# a conductor's database errors that mean "unreachable, retry later" (503, not 500)
DATABASE_UNREACHABLE = ('DBConnectionError', 'OperationalError')

# The transport of ``berth serve``: calls handed to the conductor in this
# process without a broker or polling (common.rpc_inproc).  ``kombu+memory:////``
# still works when configured (it polls: ~1 ms and much CPU per call).
EMBEDDED_TRANSPORT_URL = 'inproc://'

# oslo.messaging's own default of [DEFAULT] transport_url (RabbitMQ on localhost)
DEFAULT_TRANSPORT_URL = 'rabbit://'

# [oslo_messaging_rabbit] defaults berth changes.  kombu_reconnect_delay: a
# reply listener whose RabbitMQ node dies retries that node until its poll
# timeout (1 ms, doubling per empty poll) outgrows this delay, about 11 s
# with oslo.messaging's 1 s, and the calls waiting for replies time out (the
# HA tier, tests/ha/test_rabbit_node_loss.py; doc/source/deployment.md).
RABBIT_DEFAULTS = {'kombu_reconnect_delay': 0.1}


# the attribute a ConfigOpts carries once register_opts has run on it
# (ConfigOpts is unhashable: no WeakSet of them)
_REGISTERED = '_berth_messaging_opts'


def register_opts(conf):
    """Register oslo.messaging's options on a private ConfigOpts (once per ConfigOpts).

    oslo.messaging registers its tracing and metrics groups only on the global
    CONF at import time, and a private ConfigOpts without them fails on the
    first call; the rest is registered here so overrides can be set before
    the transport exists.  Registering is not cheap (``list_opts``
    deep-copies every option: ~2 ms of CPU), so a ConfigOpts remembers that it
    has them and a repeat (``get_transport``, ``call_timeout``, the
    notifier, the CLI) costs an attribute lookup.
    """
    if vars(conf).get(_REGISTERED):
        return
    from oslo_messaging._metrics import client as metrics_client
    from oslo_messaging._tracing import client as tracing_client
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)
    conf.register_opts(tracing_client.oslo_messaging_tracing,
                       group='oslo_messaging_tracing')
    conf.register_opts(metrics_client.oslo_messaging_metrics,
                       group='oslo_messaging_metrics')
    for name, value in RABBIT_DEFAULTS.items():
        conf.set_default(name, value, group='oslo_messaging_rabbit')
    vars(conf)[_REGISTERED] = True


def update_sample_defaults():
    """oslo-config-generator hook (``oslo.config.opts.defaults``): berth's defaults.

    Changes the defaults of oslo.messaging's option objects themselves, so
    the generated sample shows what berth runs with; only the generator
    calls it.
    """
    from oslo_messaging._drivers import impl_rabbit
    cfg.set_defaults(impl_rabbit.rabbit_opts, **RABBIT_DEFAULTS)


def call_timeout(conf: cfg.ConfigOpts) -> float:
    """Seconds an RPC call to a conductor waits for its answer.

    ``[conductor] rpc_timeout`` when set, else oslo.messaging's
    ``[DEFAULT] rpc_response_timeout`` (one rule for the API's ConductorAPI
    and ``berth-manage status``).
    """
    if conf.conductor.rpc_timeout is not None:
        return conf.conductor.rpc_timeout
    register_opts(conf)      # once per ConfigOpts; then an attribute lookup
    return conf.rpc_response_timeout


# oslo.messaging's AMQP pollers (amqpdriver.ReplyWaiter.poll, one thread per
# transport of a calling process, and AMQPListener.poll, one per RPC server)
# restart their poll timeout at ACK_REQUEUE_EVERY_SECONDS_MIN (1 ms) after
# every message and double it per empty poll, up to
# ACK_REQUEUE_EVERY_SECONDS_MAX (5 s).  A message is handed on as soon as its
# frames arrive whatever the timeout, so under load a poller mostly woke to
# time out: 2.7 polls per reply at ~190 replies/s (bench.claims), each
# through kombu's ensure/autoretry wrappers and an exception.  Their poll
# timeout starts at this instead; idle it still grows to the 5 s it reaches
# today, and heartbeats are still checked on every empty poll.
POLL_MIN = 0.25


def slow_amqp_polls():
    """Start oslo.messaging's AMQP poll timeouts at POLL_MIN (berth-api, berth-conductor).

    The constant is module-wide: the reply waiter and every RPC server's
    listener of the process.  Neither needs the fast pace: the listener
    runs queued message operations between polls, and only notification
    messages queue any (an RPC message's acknowledge and requeue do
    nothing; its replies go out on a pooled connection), which neither
    process listens to.  A notification listener in the same process would
    acknowledge up to POLL_MIN late.
    """
    from oslo_messaging._drivers import amqpdriver
    # a private constant: should a release rename it, oslo's pace stays
    floor = getattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN', None)
    if isinstance(floor, (int, float)) and floor < POLL_MIN:
        amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN = POLL_MIN


def get_transport(conf: cfg.ConfigOpts, url: str | None = None) -> messaging.Transport:
    """The RPC transport for ``url`` or ``[DEFAULT] transport_url``."""
    register_opts(conf)
    if (url or conf.transport_url or '').startswith('kombu+memory'):
        # the in-memory broker has no heartbeats; this keeps the log quiet
        conf.set_override('heartbeat_timeout_threshold', 0,
                          group='oslo_messaging_rabbit')
    return messaging.get_rpc_transport(conf, url=url,
                                       allowed_remote_exmods=ALLOWED_EXMODS)


# context fields that never cross the bus: bearer credentials.  A conductor
# acts on the identity the message carries (and its signature vouches for,
# common.rpc_trust), never calls Keystone or another service with the
# caller's token, so a queue bound to the exchange learns no token.
SECRET_FIELDS = ('auth_token', 'auth_token_info', 'service_token')


def without_secrets(values):
    """``values`` (a context dict) without the fields of SECRET_FIELDS."""
    return {k: v for k, v in values.items() if k not in SECRET_FIELDS}


class RequestContextSerializer(messaging.NoOpSerializer):
    """Sends a RequestContext as its dict, tokens left out; the receiver attaches
    its own database."""

    def __init__(self, db=None, fence=None):
        self.db = db
        self.fence = fence      # a conductor's (common.deadline.Fence): its contexts carry it

    def serialize_context(self, ctxt):
        return without_secrets(ctxt.to_dict())

    def deserialize_context(self, ctxt):
        ctxt = without_secrets(ctxt)
        # request_id and global_request_id travel in the dict; the endpoint
        # makes the context the thread's current one for the call's log lines
        # (conductor.manager), and forgets it after
        ctx = berth_context.RequestContext.from_dict(ctxt, db=self.db,
                                                     overwrite=False)
        # the deadline the conductor's door made effective (grace included)
        ctx.deadline = deadline.effective(ctxt.get(deadline.FIELD), 0)
        ctx.sent = ctxt.get(deadline.SENT)     # for the fence (common.deadline)
        ctx.fence = self.fence
        return ctx


def get_client(transport: messaging.Transport, version: str, version_cap: str,
               timeout: float, retry: int | None, replies: Any = None,
               verify_replies: bool = True) -> messaging.RPCClient:
    """An RPC client for the conductor topic; callers ``prepare(server=...)``.

    ``replies``: the process's common.rpc_replies.ReplyListener, whose
    queue a call waits for within its timeout (None: set up on first call).

    Its messages carry their deadline (common.deadline) and are signed with
    this process's key (common.rpc_trust), the deadline included; with
    ``verify_replies`` (every conductor signs its replies, RPC 1.11) a call
    believes only a reply signed for it (common.rpc_reply_sign).
    """
    target = messaging.Target(topic=TOPIC, version=version)
    transport = rpc_trust.signing(transport)      # every message leaves signed
    if verify_replies:
        transport = rpc_reply_sign.checking(transport)
    transport = deadline.StampingTransport(transport, timeout, replies)   # stamped first
    return messaging.get_rpc_client(transport, target, version_cap=version_cap,
                                    serializer=RequestContextSerializer(),
                                    timeout=timeout, retry=retry)


def get_server(transport, host, endpoints, db):
    """The RPC server of one conductor: only the methods its endpoints publish
    (their ``RPC_METHODS``) dispatch (common.rpc_door), for messages whose
    signature verifies (common.rpc_trust)."""
    target = messaging.Target(topic=TOPIC, server=host)
    verifier = rpc_trust.verifier(transport.conf, transport, host)
    fence = deadline.fence_of(host)     # this conductor's, moved by its ring
    door = rpc_door.Dispatcher(endpoints, RequestContextSerializer(db, fence), verifier,
                               grace=transport.conf.rpc.deadline_grace, fence=fence)
    return rpc_server.RPCServer(transport, target, door)


@contextlib.contextmanager
def translate_errors(server, method):
    """Turn messaging failures of one call into ServiceUnavailable (503).

    Also times the call (``berth_rpc_duration_seconds``) and counts its
    timeouts, by RPC method.
    """
    try:
        with metrics.Timer(metrics.RPC_LATENCY.labels(method)):
            yield
    except exception.BerthException:
        raise
    except messaging.MessagingTimeout:
        metrics.RPC_TIMEOUTS.labels(method).inc()
        LOG.warning('Conductor %s did not answer %s in time', server, method)
        raise exception.ServiceUnavailable(
            reason='conductor %s did not answer in time' % server)
    except (messaging.MessageDeliveryFailure, messaging.MessagingServerError,
            messaging.InvalidTarget, kombu_exc.KombuError, OSError) as exc:
        # the rabbit driver lets kombu's (and the socket's) errors out when
        # it cannot even open a connection (e.g. "No route to host")
        LOG.warning('Cannot reach conductor %s for %s: %s', server, method, exc)
        raise exception.ServiceUnavailable(
            reason='the message broker cannot be reached')
    except messaging.MessagingException as exc:
        if (isinstance(exc, messaging.RemoteError)
                and exc.exc_type in DATABASE_UNREACHABLE):
            LOG.warning('Conductor %s cannot reach the database for %s', server, method)
            raise exception.ServiceUnavailable(reason='the database cannot be reached')
        if isinstance(exc, (messaging.RemoteError, messaging.UnsupportedVersion)):
            raise
        LOG.warning('Messaging failure calling %s on %s: %s', method, server, exc)
        raise exception.ServiceUnavailable(reason='messaging failure: %s' % exc)
