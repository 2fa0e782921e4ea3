"""berth-api on granian (``[api] server = granian``), through its public interface.

granian binds one address per server, and its server's ``serve()`` owns the
main thread and its process's signals, so berth-api runs one granian server
per API, each in a process of its own, under one preloaded parent:

    berth-api (parent: database opened, candidate index loaded, heap frozen)
      +- granian server of the Placement API  (its port)
      |    +- [api] workers worker processes
      +- granian server of the bare-metal API (its port)
           +- [api] workers worker processes

The parent loads the index before it forks the two servers, and granian
forks its workers (multiprocessing's fork start method), so every worker
shares the index's pages copy-on-write.  A worker builds its app after the
fork (granian's ``target_loader``, called in the worker): its end of the
index handshake (objects/candidates/preload.py, answered by the parent over
a Unix socket in a directory of mode 0700, since granian has no pre-fork
hook), its own RPC
client, one API's WSGI app run by granian in ``[api] threads`` blocking
threads.  A connection still sending its headers holds no thread (hyper reads
it).  This is the thinnest arrangement granian's public interface allows: no
third process kind, one server object per port, nothing of granian
subclassed; it costs one more process per API than one server for both.

Signals: the parent passes SIGTERM/SIGINT and SIGHUP on to both servers.
TERM: granian stops accepting, its workers finish the requests in flight
(``workers_kill_timeout``: berth's stop margin, then killed), the parent
exits 0 once both servers have.  HUP: each server re-reads berth's
configuration files (an ``on_reload`` hook: the mutable options) and then
replaces its workers one at a time (granian's graceful respawn: a new worker
forked from the server process, with the re-read options, then the old one
stopped after its requests).  A worker that dies is respawned
(``respawn_failed_workers``; granian gives up, and so berth-api, on a crash
loop).  Prometheus: every process writes to ``PROMETHEUS_MULTIPROC_DIR``
(as with gunicorn), emptied at the start; granian has no worker-exit hook,
so the parent marks the value files of exited processes dead every few
seconds.

HTTP: hyper merges two identical Content-Length fields into one value (RFC
9110 8.6 lets a recipient do so; differing ones are 400 and a close) and
joins repeated fields with ','; :class:`RepeatGuard` refuses what berth's own
server refuses that way: two Host fields, a Transfer-Encoding list.
"""

import gc
import logging
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from typing import Any

from api import server as http_server
from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from cli import api_workers, metrics_once, stacks
from common import metrics, rpc
from conductor import rpcapi
from objects import database
from objects.candidates import preload

LOG = logging.getLogger('berth.' + __name__)

# seconds between the parent's sweeps of exited processes' metric files
SWEEP_EVERY = 5.0
_METRIC_FILE = re.compile(r'_(\d+)\.db$')
# the pid of the process that loaded the candidate index (set before the fork)
PRELOADED_BY: int | None = None


class RepeatGuard:
    """400 and a close for a request hyper lets through that berth's server refuses.

    Repeated fields reach the app joined by ',': a comma in ``HTTP_HOST`` is
    two Host fields (RFC 9112 3.2: 400), one in ``HTTP_TRANSFER_ENCODING`` a
    coding list or the field twice (the built-in server refuses both).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if ',' in environ.get('HTTP_HOST', ''):
            return _refuse(start_response, 'More than one Host header.')
        if ',' in environ.get('HTTP_TRANSFER_ENCODING', ''):
            return _refuse(start_response, 'Transfer-Encoding other than chunked once.')
        return self.app(environ, start_response)


def _refuse(start_response: Any, detail: str) -> list[bytes]:
    body = ('{"errors": [{"status": 400, "title": "Bad Request", "detail": "%s", '
            '"code": "berth.bad_framing"}]}' % detail).encode()
    start_response('400 Bad Request', [('Content-Type', 'application/json'),
                                       ('Content-Length', str(len(body))),
                                       ('Connection', 'close')])
    return [body]


def handshake_listener() -> tuple[socket.socket, str]:
    """The parent's end of the index handshake and its path.

    A Unix socket in a new directory only berth-api's user may enter (mode
    0700): another local user can neither take its name first (an abstract
    name can be bound by anyone who guesses it, and berth-api would then not
    start) nor connect and hold the parent's handshake threads.
    """
    path = os.path.join(tempfile.mkdtemp(prefix='berth-api-index-'), 'socket')
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    return listener, path


class _Parent:
    """The preloaded parent: loads, forks one granian server per API, relays signals."""

    def __init__(self, conf: Any, processes: int, threads: int) -> None:
        self.conf = conf
        self.processes = processes
        self.threads = threads
        self.children: dict[int, str] = {}      # pid -> API name
        self.stopping = False

    def load(self) -> None:
        from cli import api
        metrics.clear_multiprocess_dir()
        db = self.db = database.open_database(self.conf)
        began = time.monotonic()
        preload.load_index(db)
        global PRELOADED_BY
        PRELOADED_BY = os.getpid()
        LOG.info('berth-api: candidate index loaded in %.1f s', time.monotonic() - began)
        self.ends = preload.handshake(db)
        api.preimport_drivers(self.conf)
        db.dispose(keep_watcher=db.is_sqlite)
        self.listener, self.address = handshake_listener()
        gc.freeze()       # the loaded index stays out of the collector's writes

    def fork_servers(self) -> None:
        api = self.conf.api
        for name, port in (('placement', api.placement_port),
                           ('baremetal', api.baremetal_port)):
            pid = os.fork()
            if pid == 0:
                status = 1
                try:
                    status = _serve_one(self, name, port)
                except SystemExit as exc:
                    status = exc.code if isinstance(exc.code, int) else 1
                except BaseException:     # noqa: BLE001 -- a child never returns
                    LOG.exception('berth-api: the %s server failed', name)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(status)
            self.children[pid] = name

    def answer_handshakes(self) -> None:
        """The parent's end of each worker's index handshake, one thread each."""
        def serve() -> None:
            while True:
                try:
                    conn, _ = self.listener.accept()
                except OSError:
                    return
                threading.Thread(target=self._answer, args=(conn,), daemon=True).start()
        threading.Thread(target=serve, name='index-handshake', daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            self.ends[0](conn)

    def relay(self, signum: int, frame: Any) -> None:
        if signum in (signal.SIGTERM, signal.SIGINT):
            self.stopping = True
        for pid in list(self.children):
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    def wait(self) -> int:
        """Reap both servers; stop the other when one exits unasked.  The exit status."""
        status = 0
        last_sweep = 0.0
        while self.children:
            pid, how = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                if time.monotonic() - last_sweep >= SWEEP_EVERY:
                    last_sweep = time.monotonic()
                    _sweep_dead_metrics()
                time.sleep(0.2)
                continue
            name = self.children.pop(pid, None)
            if name is None:
                continue
            code = os.waitstatus_to_exitcode(how)
            if code or not self.stopping:
                LOG.error('berth-api: the %s server exited (%s)', name, code)
                status = status or code or 1
                if not self.stopping:
                    self.relay(signal.SIGTERM, None)
        _sweep_dead_metrics()
        return status


def _serve_one(parent: _Parent, name: str, port: int) -> int:
    """A granian server process: one API's port, [api] workers workers."""
    from granian import http as granian_http
    from granian import server as granian_server
    from granian.constants import HTTPModes, Interfaces
    from granian.log import LogLevels

    api_workers.die_with_parent()
    parent.listener.close()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # granian sets its own in serve()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    conf = parent.conf
    server = granian_server.Server(
        'berth-api:%s' % name, address=conf.api.host, port=port,
        interface=Interfaces.WSGI, http=HTTPModes.http1, websockets=False,
        workers=parent.processes, blocking_threads=parent.threads,
        backlog=http_server.LISTEN_BACKLOG,
        http1_settings=granian_http.HTTP1Settings(
            header_read_timeout=int(conf.api.request_header_timeout * 1000)),
        respawn_failed_workers=True, workers_kill_timeout=stacks.STOP_MARGIN,
        log_level=LogLevels.warning)
    server.on_reload(lambda: _reread(conf))
    server.serve(target_loader=lambda _target: _worker_app(parent, name))
    return 0


def _reread(conf: Any) -> None:
    """SIGHUP in a server process, before granian respawns its workers."""
    try:
        changed = conf.mutate_config_files()
    except Exception as exc:   # noqa: BLE001 -- a broken file keeps serving
        LOG.error('berth-api: SIGHUP: configuration not reloaded: %s', exc)
        return
    print('berth-api: SIGHUP: configuration reloaded (%s)' % (', '.join(
        sorted('%s.%s' % (g or 'DEFAULT', n) for g, n in changed))
        if changed else 'no mutable option changed'), flush=True)


def _worker_app(parent: _Parent, name: str) -> Any:
    """A worker's start, after the fork: the handshake, its RPC client, its app."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(preload.HANDSHAKE_TIMEOUT)
            sock.connect(parent.address)
            parent.ends[1](sock)
    except OSError as exc:
        LOG.warning('index handshake failed (%s): refreshed by the first search', exc)
    rpc.slow_amqp_polls()
    conf, db = parent.conf, parent.db
    conductor = rpcapi.APIConductorClient(conf)
    if name == 'placement':
        app = placement_app.loadapp(conf, db, conductor=conductor)
    else:
        app = metrics_once.PointToPlacement(
            baremetal_app.loadapp(conf, db, conductor=conductor), conf)
    metrics.API_WORKER.set(1)       # serving
    print('berth-api: %s worker started (pid %d, index of %s)'
          % (name, os.getpid(), PRELOADED_BY), flush=True)
    return RepeatGuard(app)


def _sweep_dead_metrics() -> None:
    """Mark the value files of exited processes dead (granian has no exit hook)."""
    path = metrics.multiprocess_dir()
    if path is None:
        return
    try:
        names = os.listdir(path)
    except OSError:
        return
    pids = {int(m.group(1)) for n in names if (m := _METRIC_FILE.search(n))}
    for pid in pids:
        if pid != os.getpid() and not os.path.exists('/proc/%d' % pid):
            metrics.mark_process_dead(pid)


def run(conf: Any, processes: int, threads: int) -> int:
    """Serve until SIGTERM/SIGINT; the exit status."""
    parent = _Parent(conf, processes, threads)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, parent.relay)      # a HUP while loading is nothing to pass on
    try:
        parent.load()
        if parent.stopping:                   # asked to stop while loading
            return 0
        parent.fork_servers()
        parent.answer_handshakes()
        for title, port in (('Placement API', conf.api.placement_port),
                            ('Bare metal API', conf.api.baremetal_port)):
            print('berth-api: %s on http://%s:%d' % (title, conf.api.host, port), flush=True)
        print('berth-api: %d worker processes of %d threads per API (granian)'
              % (processes, threads), flush=True)
        return parent.wait()
    finally:
        if getattr(parent, 'listener', None) is not None:
            parent.listener.close()
            shutil.rmtree(os.path.dirname(parent.address), ignore_errors=True)
        if getattr(parent, 'db', None) is not None:
            parent.db.dispose()
        api_workers.remove_owned_metrics_dir()
