"""A long-running command's life: start, serve, reload on SIGHUP, stop in every phase.

The signal handlers are in place before anything can block, and the start
runs in a thread of its own while the main thread waits for either the
start to finish or a stop to be asked for.  So SIGTERM and SIGINT are
honoured in every phase:

* **starting** (opening the database, connecting to the coordination
  backend or the message broker, any of which may retry for minutes when a
  server is unreachable): nothing is served yet and no ring was joined, so
  the process logs what it was waiting for and exits (status 0) at once
  (flushing its logs may take up to :data:`START_STOP_BOUND` seconds);
* **serving**: the command's own stop runs, bounded as before
  (:func:`cli.stacks.bounded_stop`: past its bound the stacks are written
  and the process exits 1).

SIGHUP re-reads the configuration files and applies the mutable options
(oslo.config's ``mutate_config_files``: oslo.log's ``debug`` and
``log_config_append`` among them), as oslo.service does.

Why not oslo.service: its launchers run the service on eventlet (which
berth never monkey patches) or, in the threading backend, in forked worker
processes managed by cotyledon; neither lets ``berth serve`` keep API
servers and conductors in one process, and neither can interrupt a start
that blocks in a driver's connect loop, which is the case this module is for.
"""

import logging
import os
import signal
import sys
import threading
from typing import NoReturn

from cli import stacks, start_errors

LOG = logging.getLogger('berth.' + __name__)

# seconds a stop asked for while starting may take before the process exits
START_STOP_BOUND = 10
# seconds of the interpreter's thread switch interval once a stop began (5 ms before)
STOP_SWITCH_INTERVAL = 0.0005


def leave(status: int) -> NoReturn:
    """Exit with ``status`` now: output flushed, the heap not freed object by object.

    For the end of a server command, after its stop: the interpreter's own
    exit would wait for every non-daemon thread (a request the stop left
    running: api.server.STOP_DRAIN) and free the heap one object at a time
    (seconds for the candidate index of a large region).  The exit status is
    the command's own: 0 after a stop that was asked for, which is the
    outcome a process manager expects of SIGTERM (not 128+15: the signal was
    handled, not fatal).
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    with stacks.bounded_stop(START_STOP_BOUND):
        logging.shutdown()
    os._exit(status)


class Lifecycle:
    """Run ``start`` then serve until SIGTERM/SIGINT, then ``stop``.

    :param name: the command's name, for its messages.
    :param conf: the process's ConfigOpts (reloaded on SIGHUP).
    """

    def __init__(self, name, conf):
        self.name = name
        self.conf = conf
        self.phase = 'starting'
        self.stopping = threading.Event()
        self._started = threading.Event()
        self._start_error = None
        self._expected = ()

    def set_phase(self, phase):
        """Name what the start is doing now (said if a stop arrives meanwhile)."""
        self.phase = phase
        LOG.debug('%s: %s', self.name, phase)

    def install_signals(self):
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        if hasattr(signal, 'SIGHUP'):
            signal.signal(signal.SIGHUP, self._on_reload)
        stacks.dump_on_sigusr2()

    def _on_stop(self, signum, _frame):
        self.stopping.set()

    def _on_reload(self, signum, _frame):
        # not in the handler itself: re-reading files may log, and logging
        # from a signal handler can deadlock on the handler's own lock
        threading.Thread(target=self.reload, name='sighup-reload', daemon=True).start()

    def reload(self):
        """Re-read the config files; apply what changed of the mutable options."""
        try:
            changed = self.conf.mutate_config_files()
        except Exception as exc:  # a broken file must not end a serving process
            LOG.error('%s: SIGHUP: configuration not reloaded: %s', self.name, exc)
            return
        LOG.info('%s: SIGHUP: configuration reloaded (%s)', self.name,
                 ', '.join(sorted('%s.%s' % (g or 'DEFAULT', n) for g, n in changed))
                 if changed else 'no mutable option changed')

    def run(self, start, stop, stop_bound, expected_errors=(), serve=None):
        """Start (``start(self)``), serve, stop (``stop()`` within ``stop_bound`` s).

        ``stop`` must cope with a start that got only part of the way: it
        also runs after a failed start.  ``expected_errors`` are start
        failures an operator can fix (a port in use, a bad option): said in
        one line, without a traceback.  ``serve(self)``, when given, runs in
        the main thread once the start has finished (nothing else runs then:
        it may fork) and returns once :attr:`stopping` is set.  Returns the
        exit status: 0 after a stop, 1 when the start failed.
        """
        self._expected = expected_errors
        self.install_signals()
        starter = threading.Thread(target=self._start, args=(start,),
                                   name='%s-start' % self.name, daemon=True)
        starter.start()
        while not self.stopping.is_set() and not self._started.is_set():
            self.stopping.wait(0.2)
        if not self._started.is_set():
            self._exit_while_starting()
        if self._start_error is not None:
            line = start_errors.describe(self._start_error, self.conf)
            print('%s: cannot start: %s' % (self.name, line or self._start_error),
                  file=sys.stderr, flush=True)
            with stacks.bounded_stop(stop_bound):
                try:
                    stop()
                except Exception:
                    LOG.exception('%s: cleaning up after the failed start', self.name)
            return 1
        if serve is not None:
            starter.join()
            serve(self)
        while not self.stopping.wait(0.5):
            pass
        print('%s: stopping' % self.name, flush=True)
        # a request still computing (an index load) holds the GIL up to the
        # switch interval each time a stopping thread wakes: shorter, the
        # stop's many hand-offs between threads do not add up to seconds
        sys.setswitchinterval(STOP_SWITCH_INTERVAL)
        with stacks.bounded_stop(stop_bound):
            stop()
        return 0

    def _start(self, start):
        try:
            start(self)
        except Exception as exc:
            if (not isinstance(exc, self._expected)
                    and start_errors.describe(exc, self.conf) is None):
                LOG.exception('%s: start failed while %s', self.name, self.phase)
            self._start_error = exc
        finally:
            self._started.set()

    def _exit_while_starting(self):
        """A stop arrived before the start finished: say where it was, then exit.

        The start thread may be inside a driver's connect loop that cannot be
        interrupted, and nothing it made is serving yet (the ring is joined
        last), so the process leaves without it.
        """
        msg = ('%s: stop requested while %s; nothing is served yet, exiting'
               % (self.name, self.phase))
        LOG.warning(msg)
        print(msg, file=sys.stderr, flush=True)
        if self._started.is_set():
            return  # it finished just now: the caller stops it the normal way
        with stacks.bounded_stop(START_STOP_BOUND):
            logging.shutdown()
        os._exit(0)
