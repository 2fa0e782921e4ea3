"""The conductor's periodic tasks, run by a futurist PeriodicWorker.

Spacings are read from the conf object when the worker is built (at service
start), never at import: tasks are plain callables wrapped here.
"""

from concurrent import futures
import logging
import threading
import time

from futurist import periodics

from common import context as berth_context

LOG = logging.getLogger('berth.' + __name__)


class PeriodicRunner:
    """A PeriodicWorker in its own thread over ``[(callable, spacing)]``.

    Each task runs on a pool thread of its own (never two runs of one task
    at once), so the tasks do not wait for each other.
    """

    def __init__(self, tasks, name='periodic'):
        callables = []
        for func, spacing in tasks:
            if spacing is None or spacing <= 0:
                LOG.info('Periodic task %s is disabled', getattr(func, '__name__', func))
                continue
            callables.append((periodics.periodic(spacing=spacing)(_named(func)),
                              None, None))
        # a thread per task: one that is slow (a stale sweep driving many
        # rows, a database that hangs) never delays another, above all the
        # orphan takeover, whose bound is the documented recovery time.  The
        # standard library's pool: its idle threads leave at once on shutdown,
        # where futurist's poll their queue up to a second (every stop of a
        # conductor, and so of every embedded berth, waited for that)
        size = max(1, len(callables))
        self._worker = periodics.PeriodicWorker(
            callables, executor_factory=lambda: futures.ThreadPoolExecutor(
                size, thread_name_prefix='periodic'))
        self._thread = threading.Thread(target=self._worker.start,
                                        kwargs={'allow_empty': True},
                                        daemon=True, name=name)

    def start(self):
        self._thread.start()

    def stop(self, timeout=10):
        """Stop scheduling and wait for the tasks running now, ``timeout`` s at most."""
        deadline = time.monotonic() + timeout
        self._worker.stop()
        self._worker.wait(timeout)
        self._thread.join(max(0.0, deadline - time.monotonic()))

    def watchers(self):
        """``[(name, runs, successes, failures)]`` for every task."""
        return [(w.work.name, w.runs, w.successes, w.failures)
                for w in self._worker.iter_watchers()]


def _named(func):
    """A plain function around ``func`` (futurist tags the callable it gets).

    Each run logs under a request id of its own, never under one left on
    the thread by earlier work, and leaves none behind.
    """
    def task():
        berth_context.bind_new_request()
        try:
            return func()
        finally:
            berth_context.clear()
    task.__name__ = getattr(func, '__name__', 'task')
    task.__qualname__ = getattr(func, '__qualname__', task.__name__)
    return task
