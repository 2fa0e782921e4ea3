"""Every Prometheus metric berth exports, and how a process exposes them.

The metrics live in prometheus_client's default registry, so the API and the
conductors of one process (``berth serve``) share one ``/metrics``.  With the
``PROMETHEUS_MULTIPROC_DIR`` environment variable set before the process
starts (gunicorn with several workers), every process writes its values to
files there and any of them answers ``/metrics`` for all; the gauges say how
values of several processes combine (``multiprocess_mode``).
"""

import errno
import os
import time
from typing import Any

import prometheus_client as prom
from prometheus_client import multiprocess

from common import version

MULTIPROC_ENV = 'PROMETHEUS_MULTIPROC_DIR'
CONTENT_TYPE = prom.CONTENT_TYPE_LATEST

BUILD_INFO = prom.Gauge(
    'berth_build_info', 'Always 1; the version label is the running berth version.',
    ['version'], multiprocess_mode='livemax')
BUILD_INFO.labels(version.version_string()).set(1)

# --- API processes ---

API_WORKER = prom.Gauge(
    'berth_api_worker', 'Always 1, one sample per live berth-api process (its pid '
    'label when berth-api runs several workers).', multiprocess_mode='liveall')

API_REQUESTS = prom.Counter(
    'berth_api_requests', 'HTTP requests answered, by API, method, route template '
    'and status code.', ['api', 'method', 'route', 'status'])
API_LATENCY = prom.Histogram(
    'berth_api_request_duration_seconds', 'Time to answer an HTTP request, by API, '
    'method and route template.', ['api', 'method', 'route'])
RPC_LATENCY = prom.Histogram(
    'berth_rpc_duration_seconds', 'Time of a conductor RPC as seen by the caller: '
    'until the answer for a call, until sent for a cast; by RPC method.',
    ['method'])
RPC_TIMEOUTS = prom.Counter(
    'berth_rpc_timeouts', 'RPC calls a conductor did not answer within '
    'the RPC timeout (the client got 503), by RPC method.', ['method'])
RPC_EXPIRED = prom.Counter(
    'berth_rpc_expired', 'RPC requests a conductor dropped because their '
    'deadline (the caller\'s RPC timeout plus [rpc] deadline_grace) had passed: '
    'nothing was written; by RPC method and where (dispatch, commit).',
    ['method', 'where'])
RPC_MOVES = prom.Counter(
    'berth_rpc_moves', 'Write calls sent to the new owner of their key because the '
    'ring dropped the conductor they were sent to, by RPC method.',
    ['method'])
RPC_REPLAYS = prom.Counter(
    'berth_rpc_replays', 'Write calls sent again with the same call id after an '
    'attempt was not answered within [conductor] rpc_attempt_timeout (RPC 1.8; '
    'the conductor answers a replay with the first outcome), by RPC method.',
    ['method'])
RPC_REPLIES_DROPPED = prom.Counter(
    'berth_rpc_replies_dropped', 'RPC replies a caller dropped because they did '
    'not verify as its conductor\'s signed answer to its own message (forged, '
    'unsigned, for another call or conductor), by reason; the call waited on.',
    ['reason'])
NODE_ALLOCATIONS = prom.Gauge(
    'berth_node_allocations', 'Node allocations by state (read from the database '
    'when /metrics is scraped).', ['state'], multiprocess_mode='livemostrecent')
OLDEST_ALLOCATING = prom.Gauge(
    'berth_node_allocation_oldest_allocating_seconds', 'Age of the oldest node '
    'allocation still allocating (0: none); read when /metrics is scraped.',
    multiprocess_mode='livemostrecent')
RESOURCE_CAPACITY = prom.Gauge(
    'berth_resource_capacity', 'Capacity of a resource class summed over every '
    'provider: (total - reserved) * allocation_ratio; read when /metrics is '
    'scraped.', ['resource_class'], multiprocess_mode='livemostrecent')
RESOURCE_USED = prom.Gauge(
    'berth_resource_used', 'Units of a resource class held by allocations, '
    'every provider; read when /metrics is scraped.', ['resource_class'],
    multiprocess_mode='livemostrecent')
RESOURCE_FREE = prom.Gauge(
    'berth_resource_free', 'Capacity minus used of a resource class, every '
    'provider (free units may be scattered: GET /capacity says how many of '
    'one request fit); read when /metrics is scraped.', ['resource_class'],
    multiprocess_mode='livemostrecent')
PROVIDER_CAPACITY = prom.Gauge(
    'berth_provider_resource_capacity', 'Capacity of a resource class on one '
    'provider, for the [metrics] fullest_providers fullest providers of each '
    'class only.', ['resource_class', 'provider', 'provider_name'],
    multiprocess_mode='livemostrecent')
PROVIDER_USED = prom.Gauge(
    'berth_provider_resource_used', 'Used units of a resource class on one of '
    'the fullest providers of the class.', ['resource_class', 'provider', 'provider_name'],
    multiprocess_mode='livemostrecent')
PROVIDER_FREE = prom.Gauge(
    'berth_provider_resource_free', 'Free units of a resource class on one of '
    'the fullest providers of the class.', ['resource_class', 'provider', 'provider_name'],
    multiprocess_mode='livemostrecent')
BAREMETAL_NODES = prom.Gauge(
    'berth_baremetal_nodes', 'Bare-metal nodes by node resource class and state: '
    'free (a new allocation may take it), allocated, unavailable (maintenance, '
    'not available, no power state); read when /metrics is scraped.',
    ['resource_class', 'state'], multiprocess_mode='livemostrecent')

# --- conductors ---

CLAIMS = prom.Counter(
    'berth_claims', 'Allocation writes a conductor finished, by operation '
    '(replace, delete_consumer, reshape) and outcome (success, conflict).',
    ['operation', 'outcome'])
CLAIM_RETRIES = prom.Counter(
    'berth_claim_retries', 'Allocation writes tried again after losing a race '
    '(provider generation swap, database deadlock), by operation.', ['operation'])
CLAIM_CONFLICTS = prom.Counter(
    'berth_claim_conflicts', 'Allocation writes answered 409, by operation and '
    'reason (consumer_generation: the client\'s own stale view; '
    'retries_exhausted: kept losing races).', ['operation', 'reason'])
ORPHAN_TAKEOVERS = prom.Counter(
    'berth_orphan_takeovers', 'Allocating node allocations of a departed conductor '
    'taken over, by the conductor that took them.', ['conductor'])
STALE_REDRIVES = prom.Counter(
    'berth_stale_allocations_redriven', 'Own node allocations left allocating past '
    '[allocation] stale_timeout and driven again, by conductor.', ['conductor'])
RING_MEMBERS = prom.Gauge(
    'berth_ring_members', 'Live conductors on the hash ring as one ring sees them '
    '(ring: the conductor host, or "reader" in an API process).', ['ring'],
    multiprocess_mode='livemostrecent')
RING_REBALANCES = prom.Counter(
    'berth_ring_rebalances', 'Ring rebuilds after the set of members changed '
    '(a conductor joined or left), by ring.', ['ring'])
QUEUE_DEPTH = prom.Gauge(
    'berth_conductor_queue_depth', 'Work holding one of a conductor\'s worker '
    'slots: RPC calls running and background tasks queued or running.',
    ['conductor'], multiprocess_mode='livesum')
WORKER_SLOTS = prom.Gauge(
    'berth_conductor_worker_slots', 'Worker slots of a conductor ([conductor] '
    'workers).', ['conductor'], multiprocess_mode='livesum')
REJECTIONS = prom.Counter(
    'berth_conductor_rejections', 'Work a conductor refused because every worker '
    'slot was taken (the client got 503), by conductor.', ['conductor'])


_SHOWN: dict = {}      # gauge: the label tuples replace_series() set last


def replace_series(gauge: Any, values: dict[tuple[str, ...], float]) -> None:
    """Make ``gauge`` show exactly ``values`` ({label tuple: value}).

    A series set before and missing now goes away.  In multiprocess mode
    (gunicorn) prometheus_client cannot remove a series from the value
    files, so it is set to NaN instead: it stays (until the worker exits)
    but never matches an alert's comparison.
    """
    multi = multiprocess_dir() is not None
    before = _SHOWN.get(gauge, set())
    gone = before - set(values)
    for labels in gone:
        if multi:
            gauge.labels(*labels).set(float('nan'))
        else:
            gauge.remove(*labels)
    for labels, value in values.items():
        gauge.labels(*labels).set(value)
    _SHOWN[gauge] = set(values) | (gone if multi else set())


def _operation(name):
    return name.lstrip('_')


def claim_done(operation):
    """An allocation write (``operation``: the function's name) succeeded."""
    CLAIMS.labels(_operation(operation), 'success').inc()


def claim_retry(operation):
    """An allocation write lost a race and is tried again."""
    CLAIM_RETRIES.labels(_operation(operation)).inc()


def claim_conflict(operation, reason):
    """An allocation write ends in 409 for ``reason``."""
    CLAIMS.labels(_operation(operation), 'conflict').inc()
    CLAIM_CONFLICTS.labels(_operation(operation), reason).inc()


class Timer:
    """``with Timer(histogram.labels(...)):`` observes the block's duration."""

    def __init__(self, child):
        self._child = child
        self._start = 0.0               # set again by __enter__

    def __enter__(self):
        self._start = time.monotonic()
        return self

    def __exit__(self, *exc_info):
        self._child.observe(time.monotonic() - self._start)
        return False


def multiprocess_dir():
    """The multiprocess directory of this process, or None (single process)."""
    return os.environ.get(MULTIPROC_ENV) or None


def registry():
    """The registry to expose: every process's files in multiprocess mode."""
    path = multiprocess_dir()
    if path is None:
        return prom.REGISTRY
    reg = prom.CollectorRegistry()
    multiprocess.MultiProcessCollector(reg, path=path)
    return reg


def exposition():
    """The text exposition of every metric: ``(body bytes, content type)``."""
    # again in this process: a gunicorn worker forked after the import has no value file yet
    BUILD_INFO.labels(version.version_string()).set(1)
    return prom.generate_latest(registry()), CONTENT_TYPE


def clear_multiprocess_dir():
    """Remove the value files of earlier processes (call before any worker starts)."""
    path = multiprocess_dir()
    if path is None:
        return
    for name in os.listdir(path):
        if name.endswith('.db'):
            os.unlink(os.path.join(path, name))


def mark_process_dead(pid):
    """Drop the live gauges of a dead worker (gunicorn's ``child_exit`` hook)."""
    if multiprocess_dir() is not None:
        multiprocess.mark_process_dead(pid)


def start_listener(host, port):
    """Serve ``/metrics`` on ``host:port`` from a daemon thread.

    Returns the server: ``server.server_port`` is the bound port (``port`` 0
    picks a free one), ``server.shutdown()`` stops it.
    """
    server, _thread = prom.start_http_server(port, addr=host, registry=registry())
    return server


def start_listener_in_range(host: str, first: int, count: int) -> Any:
    """:func:`start_listener` on the first free port of ``first`` .. ``first + count - 1``.

    Several conductors on one host sharing one configuration each get a
    port of a range the operator wrote into the scrape configuration in
    advance.  ``first`` 0 is one free port, whatever ``count``.  Raises
    OSError naming the range when every port of it is taken.
    """
    if first == 0:
        return start_listener(host, 0)
    last = min(first + count - 1, 65535)
    for port in range(first, last + 1):
        try:
            return start_listener(host, port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
    raise OSError(errno.EADDRINUSE, 'every metrics port of %s:%d-%d is in use '
                  '([metrics] conductor_port, conductor_port_count)' % (host, first, last))
