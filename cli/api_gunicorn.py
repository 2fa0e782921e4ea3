"""berth-api on gunicorn (``[api] server = gunicorn``), through its public interface.

gunicorn's arbiter is the master: it binds both APIs' ports, runs
:meth:`BerthApplication.load` once (``preload_app``: the database opened,
the candidate index loaded, the driver modules imported, the heap frozen),
then forks ``[api] workers`` asyncio ASGI workers that share those pages
copy-on-write.  A worker reading a request's headers holds no thread; each
worker runs berth's two WSGI apps in a pool of ``[api] threads`` threads
(a2wsgi), chosen by the port the request arrived on.  Each worker opens its
own RPC client after the fork (``post_fork``), and takes the index on as
current when the master saw no commit since it was built
(objects/candidates/preload.py).

Signals are the arbiter's: TERM drains (requests in flight finish within
``graceful_timeout``, then the workers exit), INT/QUIT stop at once, HUP
re-reads the configuration files (berth's mutable options) and replaces the
workers gracefully.  Prometheus: every process writes to
``PROMETHEUS_MULTIPROC_DIR`` (made, and removed at the end, when the operator
names none), emptied when the arbiter starts; a worker that exits is marked
dead, so ``/metrics`` and the status page count the live workers.
"""

import gc
import logging
import os
import socket
import threading
import time
from typing import Any

import a2wsgi
from gunicorn.app import base

from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from cli import api_workers, metrics_once, stacks
from common import metrics, rpc
from conductor import rpcapi
from objects import database
from objects.candidates import preload

LOG = logging.getLogger('berth.' + __name__)

# above berth's write bound ([conductor] rpc_timeout plus the broker's
# retries): a worker is never killed mid-request (etc/berth/gunicorn.conf.py)
WORKER_TIMEOUT = 90


class _ByPort:
    """The ASGI app of a worker: each request to the app of the port it came in on."""

    def __init__(self, ports: dict[int, str]) -> None:
        self.ports = ports           # listening port -> API name
        self.apps: dict[str, Any] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope['type'] != 'http':
            return
        port = (scope.get('server') or (None, None))[1]
        name = 'placement' if port is None else self.ports.get(port, 'placement')
        await self.apps[name](scope, receive, send)


class _WSGIByPort(_ByPort):
    """The WSGI app of a gthread worker: the same choice, by the connection's local port."""

    def __call__(self, environ: dict, start_response: Any) -> Any:  # type: ignore[override]
        port = environ['gunicorn.socket'].getsockname()[1]
        return self.apps[self.ports.get(port, 'placement')](environ, start_response)


class BerthApplication(base.BaseApplication):
    """gunicorn's application for berth-api: settings from berth's own options."""

    def __init__(self, conf: Any, processes: int, threads: int) -> None:
        self.conf = conf
        self.processes = processes
        self.threads = threads
        self.parts: dict[str, Any] = {}
        self.gthread = conf.api.server == 'gunicorn-gthread'
        self._loaded = False
        super().__init__()

    def _settings(self) -> dict[str, Any]:
        api = self.conf.api
        binds = ['%s:%d' % (_bracket(api.host), port)
                 for port in (api.placement_port, api.baremetal_port)]
        runtime = os.environ.get('XDG_RUNTIME_DIR') or os.path.join(
            os.path.expanduser('~'), '.gunicorn')
        return {
            'bind': binds, 'workers': self.processes, 'threads': self.threads,
            'worker_class': 'gthread' if self.gthread else 'asgi',
            'asgi_lifespan': 'off', 'preload_app': True, 'proc_name': 'berth-api',
            'timeout': WORKER_TIMEOUT, 'graceful_timeout': stacks.STOP_MARGIN,
            'control_socket': os.path.join(runtime, 'berth-api-%d.ctl' % api.placement_port),
            'on_starting': _on_starting, 'when_ready': self._when_ready,
            'pre_fork': self._pre_fork, 'post_fork': self._post_fork,
            'child_exit': _child_exit,
        }

    def load_config(self) -> None:
        if self._loaded:
            # SIGHUP: the arbiter reloads; berth re-reads its files first
            try:
                changed = self.conf.mutate_config_files()
            except Exception as exc:   # noqa: BLE001 -- a broken file keeps serving
                LOG.error('berth-api: SIGHUP: configuration not reloaded: %s', exc)
            else:
                LOG.info('berth-api: SIGHUP: configuration reloaded (%s)', ', '.join(
                    sorted('%s.%s' % (g or 'DEFAULT', n) for g, n in changed))
                    if changed else 'no mutable option changed')
        for key, value in self._settings().items():
            self.cfg.set(key, value)

    def load(self) -> _ByPort:
        """The master's start (once, before any fork): database, index, drivers."""
        from cli import api
        self._loaded = True
        db = self.parts['db'] = database.open_database(self.conf)
        began = time.monotonic()
        preload.load_index(db)
        LOG.info('berth-api: candidate index loaded in %.1f s', time.monotonic() - began)
        self.parts['handshake'] = preload.handshake(db)
        api.preimport_drivers(self.conf)
        db.dispose(keep_watcher=db.is_sqlite)
        gc.freeze()       # the loaded index stays out of the collector's writes
        self.parts['asgi'] = (_WSGIByPort if self.gthread else _ByPort)(
            {self.conf.api.placement_port: 'placement',
             self.conf.api.baremetal_port: 'baremetal'})
        return self.parts['asgi']

    def _when_ready(self, server: Any) -> None:
        for title, port in (('Placement API', self.conf.api.placement_port),
                            ('Bare metal API', self.conf.api.baremetal_port)):
            print('berth-api: %s on http://%s:%d' % (title, self.conf.api.host, port),
                  flush=True)
        print('berth-api: %d worker processes of %d threads (gunicorn)'
              % (self.processes, self.threads), flush=True)

    def _pre_fork(self, server: Any, worker: Any) -> None:
        """The master's end of the index handshake, answered from a thread."""
        ends = socket.socketpair()
        worker.berth_ends = ends

        def parent() -> None:
            try:
                self.parts['handshake'][0](ends[0])
            finally:      # the worker has its copies by now (or never asked)
                ends[0].close()
                ends[1].close()
        threading.Thread(target=parent, name='index-handshake', daemon=True).start()

    def _post_fork(self, server: Any, worker: Any) -> None:
        """A worker's start: its end of the handshake, its RPC client, both apps."""
        ends = worker.berth_ends
        ends[0].close()
        with ends[1]:
            self.parts['handshake'][1](ends[1])
        rpc.slow_amqp_polls()
        db = self.parts['db']
        conductor = rpcapi.APIConductorClient(self.conf)
        apps = self.parts['asgi'].apps
        apps['placement'] = placement_app.loadapp(self.conf, db, conductor=conductor)
        apps['baremetal'] = metrics_once.PointToPlacement(
            baremetal_app.loadapp(self.conf, db, conductor=conductor), self.conf)
        if not self.gthread:     # the WSGI apps in a thread pool of the ASGI worker
            for name, app in apps.items():
                apps[name] = a2wsgi.WSGIMiddleware(app, workers=self.threads)
        metrics.API_WORKER.set(1)       # serving
        print('berth-api: worker started (pid %d)' % os.getpid(), flush=True)


def _bracket(host: str) -> str:
    return '[%s]' % host if ':' in host else host


def _on_starting(server: Any) -> None:
    """Forget the values of a previous run: the master starts before any worker."""
    metrics.clear_multiprocess_dir()


def _child_exit(server: Any, worker: Any) -> None:
    metrics.mark_process_dead(worker.pid)


def run(conf: Any, processes: int, threads: int) -> int:
    """Serve until the arbiter stops; the exit status."""
    try:
        BerthApplication(conf, processes, threads).run()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    finally:
        api_workers.remove_owned_metrics_dir()
    return 0
