"""A threaded HTTP server for the WSGI apps (the embedded server and berth-api).

Production deployments may use gunicorn/uwsgi/mod_wsgi with ``api.wsgi``
instead; this one is what ``berth serve`` and ``berth-api`` run.
"""

import logging
import threading

from cheroot import wsgi

LOG = logging.getLogger('berth.' + __name__)

# idle keep-alive connections kept open per server thread
KEEP_ALIVE_PER_THREAD = 16
# connections the kernel queues before a thread accepts them; cheroot's
# default of 5 overflows when many clients connect at once, and they get resets
LISTEN_BACKLOG = 128


class HttpServer:
    """One listening socket serving one WSGI app from a pool of threads."""

    def __init__(self, app, host, port, threads=16, name='berth'):
        self._server = wsgi.Server((host, port), app, numthreads=threads,
                                   server_name=name, shutdown_timeout=5,
                                   request_queue_size=LISTEN_BACKLOG)
        # cheroot closes idle keep-alive connections beyond 10 by default: a
        # client with more connections open then gets a reset on its next
        # request, which it may not retry (a POST).  Idle ones cost a socket.
        self._server.keep_alive_conn_limit = KEEP_ALIVE_PER_THREAD * threads
        self._thread = None
        self.name = name

    def start(self):
        """Bind and serve in a background thread; return the bound (host, port)."""
        self._server.prepare()
        self._thread = threading.Thread(target=self._server.serve,
                                        name='http-%s' % self.name, daemon=True)
        self._thread.start()
        return self._server.bind_addr[:2]

    @property
    def address(self):
        return self._server.bind_addr[:2]

    def stop(self):
        self._server.stop()
        if self._thread is not None:
            self._thread.join(10)
