"""One ``/metrics`` per process: the Placement port's.

``berth serve`` and ``berth-api`` serve both APIs from one process, and the
process has one Prometheus registry.  Exposing it on both ports would make a
scraper that scrapes both count every sum twice, so the bare-metal port of
such a process answers ``/metrics`` with a 404 that points at the Placement
port.  A process that serves only the bare-metal app (``api.wsgi:
baremetal_application`` under gunicorn) keeps its own ``/metrics``.
"""

MESSAGE = ('/metrics of this process is served on its Placement API port '
           '(one registry per process: scraping both ports would count '
           'everything twice). See doc/source/operations.md.\n')


class PointToPlacement:
    """Answers ``/metrics`` with a 404 pointer; everything else goes to ``app``."""

    def __init__(self, app, conf):
        self.app = app
        self.enabled = conf.metrics.api_access != 'disabled'

    def __call__(self, environ, start_response):
        if self.enabled and environ.get('PATH_INFO') == '/metrics':
            body = MESSAGE.encode('utf-8')
            start_response('404 Not Found',
                           [('Content-Type', 'text/plain; charset=utf-8'),
                            ('Content-Length', str(len(body)))])
            return [body]
        return self.app(environ, start_response)
