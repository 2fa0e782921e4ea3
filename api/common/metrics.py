"""``/metrics`` on the API ports, and the count and latency of every answer.

The outermost middleware of both apps: it times each request and labels it by
the route template the router matched (``/allocations/{consumer_uuid}``, never
the raw path, so the number of series stays bounded), and answers
``GET /metrics`` itself, before authentication and microversions, as
``[metrics] api_access`` allows.
"""

import ipaddress
import logging
import time

from common import context as berth_context
from common import metrics
from objects import status as status_obj
from objects.baremetal import fullness as node_fullness
from objects.placement import fullness

LOG = logging.getLogger('berth.' + __name__)

PATH = '/metrics'
UNMATCHED = 'unmatched'
_METHODS = frozenset(('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'))


def _is_loopback(environ):
    """A client on this host, talking to us directly (not through a proxy)."""
    if 'HTTP_X_FORWARDED_FOR' in environ or 'HTTP_FORWARDED' in environ:
        return False     # a local reverse proxy makes every client look local
    try:
        addr = ipaddress.ip_address((environ.get('REMOTE_ADDR') or '').split('%')[0])
    except ValueError:
        return False
    return addr.is_loopback


def _plain(start_response, status, text, headers=()):
    body = text.encode('utf-8')
    start_response(status, [('Content-Type', 'text/plain; charset=utf-8'),
                            ('Content-Length', str(len(body)))] + list(headers))
    return [body]


class MetricsMiddleware:
    """Counts and times every answer of ``app``; serves ``/metrics``.

    :param api: the API's name, the ``api`` label (placement, baremetal).
    :param db: the process's database, to read node allocations by state
        when scraped (None: those gauges are not refreshed).
    """

    def __init__(self, app, conf, api, db=None):
        self.app = app
        self.api = api
        self.db = db
        self.access = conf.metrics.api_access
        self.fullest = conf.metrics.fullest_providers

    def __call__(self, environ, start_response):
        if self.access != 'disabled' and environ.get('PATH_INFO') == PATH:
            return self.serve(environ, start_response)
        method = environ.get('REQUEST_METHOD', '')
        method = method if method in _METHODS else 'other'
        status = []

        def _start(code, headers, exc_info=None):
            status.append(code.split(' ', 1)[0])
            return start_response(code, headers, exc_info)

        start = time.monotonic()
        try:
            return self.app(environ, _start)
        finally:
            route = environ.get('berth.route') or UNMATCHED
            metrics.API_LATENCY.labels(self.api, method, route).observe(
                time.monotonic() - start)
            metrics.API_REQUESTS.labels(self.api, method, route,
                                        status[0] if status else '500').inc()

    def serve(self, environ, start_response):
        """The text exposition; 403 off loopback when access is ``loopback``."""
        if environ.get('REQUEST_METHOD') not in ('GET', 'HEAD'):
            return _plain(start_response, '405 Method Not Allowed',
                          'Only GET and HEAD are allowed on /metrics.\n',
                          [('Allow', 'GET, HEAD')])
        if self.access == 'loopback' and not _is_loopback(environ):
            return _plain(start_response, '403 Forbidden',
                          '/metrics is served to loopback clients only '
                          '([metrics] api_access = loopback).\n')
        self._refresh_gauges()
        body, content_type = metrics.exposition()
        start_response('200 OK', [('Content-Type', content_type),
                                  ('Content-Length', str(len(body)))])
        return [b''] if environ.get('REQUEST_METHOD') == 'HEAD' else [body]

    def _refresh_gauges(self):
        """Set the gauges read from the database; a failed read keeps the old values."""
        if self.db is None:
            return
        try:
            summary = status_obj.node_allocation_summary(
                berth_context.admin_context(self.db))
        except Exception as exc:  # the scrape must answer even with the DB down
            LOG.warning('Cannot read node allocations for /metrics: %s', exc)
            return
        for state, count in summary.counts.items():
            metrics.NODE_ALLOCATIONS.labels(state).set(count)
        metrics.OLDEST_ALLOCATING.set(summary.oldest_allocating_age or 0)
        try:
            self._refresh_capacity(berth_context.admin_context(self.db))
        except Exception as exc:  # as above: the scrape answers with what it has
            LOG.warning('Cannot read capacity for /metrics: %s', exc)

    def _refresh_capacity(self, ctx: berth_context.RequestContext) -> None:
        """Capacity gauges: per class, the fullest providers, nodes (three reads)."""
        classes = fullness.by_class(ctx)
        fullest = fullness.fullest(ctx, self.fullest)
        nodes = node_fullness.nodes_by_class(ctx)
        # a class or provider that left (or left the top N) leaves /metrics too
        per_class = {(row.resource_class,): row for row in classes}
        for gauge, field in ((metrics.RESOURCE_CAPACITY, 'capacity'),
                             (metrics.RESOURCE_USED, 'used'), (metrics.RESOURCE_FREE, 'free')):
            metrics.replace_series(gauge, {k: getattr(row, field)
                                           for k, row in per_class.items()})
        per_provider = {(row.resource_class, row.provider or '', row.name or ''): row
                        for row in fullest}
        for gauge, field in ((metrics.PROVIDER_CAPACITY, 'capacity'),
                             (metrics.PROVIDER_USED, 'used'), (metrics.PROVIDER_FREE, 'free')):
            metrics.replace_series(gauge, {k: getattr(row, field)
                                           for k, row in per_provider.items()})
        metrics.replace_series(metrics.BAREMETAL_NODES, {
            (rc, state): count for rc, counts in nodes.items()
            for state, count in counts.items()})


def wrap(app, conf, api, db=None):
    """``app`` inside the metrics middleware."""
    return MetricsMiddleware(app, conf, api, db)
