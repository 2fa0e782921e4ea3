"""berth-api as one master and ``[api] workers`` forked worker processes.

The master reads the configuration, builds the candidate index (one read of
every provider), closes its database connections, opens the listening
sockets of both APIs and freezes its heap (``gc.freeze``), then forks the
workers.  They inherit the sockets (the kernel hands each connection to one
of the processes accepting) and the index (pages shared copy-on-write until
written); each opens its own database connections, RPC transport and
coordination client after the fork: nothing of those is shared across it.

The master serves nothing.  It replaces a worker that exits (at once after
one that ran a while, with a growing pause after one that died young, so a
crash loop does not spin), passes SIGHUP on to every worker (each reloads the
mutable options, as the single process does), and on SIGTERM/SIGINT stops
every worker and waits for them, bounded, before it exits; a worker whose
master disappears is sent SIGTERM by the kernel (``PR_SET_PDEATHSIG``).

Prometheus: workers write their values to ``PROMETHEUS_MULTIPROC_DIR`` (a
directory the master makes and removes when the operator names none), so
``/metrics`` of any worker counts them all.  prometheus_client picks its
value store when first imported, so the master re-executes itself once with
the variable set.
"""

import ctypes
import gc
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import time

from oslo_config import cfg

from common import metrics

LOG = logging.getLogger('berth.' + __name__)

DEFAULT_THREADS = 16
# a worker that ran this long before it exited is replaced at once
HEALTHY_AFTER = 10.0
# pauses before replacing a worker that died young: doubled each time, up to
BACKOFF_MAX = 30.0
# seconds the workers get to stop (their own bound is cli.stacks.STOP_MARGIN)
WORKER_STOP_BOUND = 35.0
# set by the master for its re-executed self: it made the metrics directory
_OWNED_DIR_ENV = 'BERTH_API_OWNED_METRICS_DIR'
_PR_SET_PDEATHSIG = 1


def _legacy_threads(conf: cfg.ConfigOpts) -> int | None:
    """``[api] workers`` in its old meaning (threads), or None."""
    api = conf.api
    if api.threads is None and api.workers is not None and api.workers > os.cpu_count():
        return api.workers
    return None


def process_count(conf: cfg.ConfigOpts) -> int:
    """Worker processes berth-api runs (1: no fork)."""
    if _legacy_threads(conf) is not None:
        return os.cpu_count() or 1
    return conf.api.workers or os.cpu_count() or 1


def thread_count(conf: cfg.ConfigOpts, warn: bool = True) -> int:
    """Threads per API process; warns when ``[api] workers`` still means threads."""
    legacy = _legacy_threads(conf)
    if legacy is None:
        return conf.api.threads or DEFAULT_THREADS
    if warn:
        LOG.warning('[api] workers = %d is read as threads per process, its old '
                    'meaning, because [api] threads is unset and %d is more than '
                    'the %d CPUs: berth-api runs %d processes of %d threads. '
                    '[api] workers is now the number of processes; set [api] '
                    'threads (and workers) to silence this warning.',
                    legacy, legacy, os.cpu_count(), os.cpu_count(), legacy)
    return legacy


def reexec_with_metrics_dir(argv):
    """Re-execute berth-api with its own PROMETHEUS_MULTIPROC_DIR when none is set."""
    if metrics.multiprocess_dir() is not None:
        return
    path = tempfile.mkdtemp(prefix='berth-api-metrics-')
    os.environ[metrics.MULTIPROC_ENV] = path
    os.environ[_OWNED_DIR_ENV] = path
    sys.stdout.flush()
    sys.stderr.flush()
    # -P: the working directory is not put on sys.path (-m would put it first)
    os.execv(sys.executable, [sys.executable, '-P', '-m', 'cli.api', *argv])


def listen(host: str, port: int, backlog: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` for the workers to inherit."""
    family = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM,
                                0, socket.AI_PASSIVE)[0][0]
    sock = socket.create_server((host, port), family=family, backlog=backlog)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.set_inheritable(True)
    return sock


class Master:
    """Forks, watches and stops the workers.

    :param worker: ``worker(slot)`` runs a worker's whole life in the child
        and returns its exit status (called after the fork).
    :param handshake: optional (``parent(sock)``, ``child(sock)``): each end
        of a socket pair made for one fork, called in the master right after
        it and in the worker before ``worker`` (objects/candidates/preload.py).
    """

    def __init__(self, name, count, worker, handshake=None):
        self.name = name
        self.count = count
        self._worker = worker
        self._handshake = handshake
        self._pid = os.getpid()
        self.children = {}                  # pid -> (slot, started at)
        self._due = dict.fromkeys(range(count), 0.0)   # slot -> when to fork it
        self._pause = dict.fromkeys(range(count), 0.0)
        self._stopping = False

    def serve(self, life):
        """Lifecycle's ``serve``: fork the workers and keep them running until a stop."""
        signal.signal(signal.SIGHUP, self._on_hup(life))
        # values of an earlier run, and the master's own (it serves nothing)
        metrics.clear_multiprocess_dir()
        gc.freeze()       # the loaded index stays out of the collector's writes
        while not life.stopping.is_set():
            self._reap()
            now = time.monotonic()
            for slot, when in sorted(self._due.items()):
                if when <= now and not life.stopping.is_set():
                    del self._due[slot]
                    self._fork(slot)
            life.stopping.wait(0.2)

    def _on_hup(self, life):
        def handler(signum, frame):
            life._on_reload(signum, frame)
            for pid in list(self.children):
                _signal(pid, signal.SIGHUP)
        return handler

    def _fork(self, slot):
        ends = socket.socketpair() if self._handshake else (None, None)
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                if ends[0] is not None:
                    ends[0].close()
                status = self._child(slot, ends[1])
            except BaseException:           # noqa: BLE001  said, then the exit status
                LOG.exception('%s worker %d failed', self.name, slot)
            finally:
                os._exit(status)
        self.children[pid] = (slot, time.monotonic())
        if ends[0] is not None:
            ends[1].close()
            with ends[0]:
                self._handshake[0](ends[0])
        print('%s: worker %d started (pid %d)' % (self.name, slot, pid), flush=True)

    def _child(self, slot: int, sock: socket.socket | None = None) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        die_with_parent()
        if os.getppid() != self._pid:      # the master went before the line above
            return 0
        if sock is not None:
            with sock:
                self._handshake[1](sock)
        return self._worker(slot)

    def _reap(self):
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self._gone(pid, status)

    def _gone(self, pid, status):
        slot, since = self.children.pop(pid, (None, None))
        metrics.mark_process_dead(pid)
        if slot is None or self._stopping:
            return
        lived = time.monotonic() - since
        pause = 0.0 if lived >= HEALTHY_AFTER else min(
            BACKOFF_MAX, max(1.0, 2 * self._pause[slot]))
        self._pause[slot] = pause
        self._due[slot] = time.monotonic() + pause
        LOG.warning('%s: worker %d (pid %d) exited (%s) after %.1f s; replacing it '
                    'in %.0f s', self.name, slot, pid, _how(status), lived, pause)
        print('%s: worker %d (pid %d) exited (%s); replacing it in %.0f s'
              % (self.name, slot, pid, _how(status), pause), flush=True)

    def stop(self, bound=WORKER_STOP_BOUND):
        """SIGTERM every worker, wait up to ``bound`` s, then SIGKILL what is left."""
        self._stopping = True
        self._due.clear()
        for pid in list(self.children):
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + bound
        while self.children and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.05)
        for pid in list(self.children):
            LOG.error('%s: worker pid %d still running %.0f s after SIGTERM: killed',
                      self.name, pid, bound)
            _signal(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            self._gone(pid, 0)


def remove_owned_metrics_dir() -> None:
    """Remove the metrics directory the master made (reexec_with_metrics_dir)."""
    path = os.environ.get(_OWNED_DIR_ENV)
    if path and path == metrics.multiprocess_dir():
        shutil.rmtree(path, ignore_errors=True)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _how(status):
    if os.WIFSIGNALED(status):
        return 'signal %d' % os.WTERMSIG(status)
    return 'status %d' % os.waitstatus_to_exitcode(status)


def die_with_parent() -> None:
    """Linux: the kernel sends this process SIGTERM when its parent dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass
