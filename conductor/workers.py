"""Bounded work for one conductor: at most ``[conductor] workers`` in flight.

Why an admission semaphore and not only an executor: oslo.messaging runs every
incoming call on its own thread pool, whose queue has no bound.  Each RPC
method therefore takes a slot here before it does any work (:meth:`admit`).
When none is free it waits up to ``[conductor] admission_wait`` for one (a
burst shorter than that queues instead of failing), then fails with
:class:`common.exception.NoFreeWorker`, which crosses RPC typed and becomes a
503 in the API.  The server's pool is sized a little above the slots: the
spare threads are the ones that wait, so at most that many calls wait at a
time and each is answered within ``admission_wait``; nothing waits without
bound.  Background work (``spawn``, for casts) takes a slot only when one is
free at once and runs on a futurist executor of the same size; so does the
allocation queue's work on the calling thread (:meth:`slot`).
"""

import contextlib
import logging
import threading

import futurist

from common import context as berth_context
from common import exception, metrics

LOG = logging.getLogger('berth.' + __name__)

# oslo.messaging threads beyond the slots, left to answer refusals quickly
SPARE_RPC_THREADS = 8


class Workers:
    """Admission control and a background executor for one conductor."""

    def __init__(self, host, size, admission_wait=0.0):
        self.host = host
        self.size = size
        self.admission_wait = admission_wait
        self._slots = threading.BoundedSemaphore(size)
        self._busy = 0
        self._idle = threading.Condition()
        self._executor = futurist.ThreadPoolExecutor(max_workers=size)
        self._depth = metrics.QUEUE_DEPTH.labels(host)
        metrics.WORKER_SLOTS.labels(host).set(size)

    @property
    def rpc_pool_size(self):
        """Threads the RPC server needs so that refusals never wait."""
        return self.size + SPARE_RPC_THREADS

    @property
    def busy(self):
        """Slots taken right now."""
        return self._busy

    def _take(self, wait=0.0):
        if not (self._slots.acquire(blocking=False)
                or (wait > 0 and self._slots.acquire(timeout=wait))):
            metrics.REJECTIONS.labels(self.host).inc()
            raise exception.NoFreeWorker(host=self.host)
        with self._idle:
            self._busy += 1
            busy = self._busy
        self._depth.inc()
        LOG.debug('Conductor %s: work admitted (%d of %d slots busy)', self.host,
                  busy, self.size)

    def _give_back(self):
        self._depth.dec()
        with self._idle:
            self._busy -= 1
            self._idle.notify_all()
        self._slots.release()

    @contextlib.contextmanager
    def slot(self, wait=0.0):
        """Hold a slot for the duration of a call, waiting up to ``wait`` s for one.

        :raises exception.NoFreeWorker: every slot is taken (still, after ``wait``).
        """
        self._take(wait)
        try:
            yield
        finally:
            self._give_back()

    def admit(self):
        """:meth:`slot` for an incoming RPC call: waits up to ``admission_wait``."""
        return self.slot(self.admission_wait)

    def spawn(self, func, *args, **kwargs):
        """Run ``func`` in the background, holding a slot until it returns.

        :raises exception.NoFreeWorker: every slot is taken.
        """
        self._take()
        try:
            # the request's context follows the work, so its log lines keep
            # the request id
            future = self._executor.submit(_in_context, berth_context.current(),
                                           func, *args, **kwargs)
        except Exception:
            self._give_back()
            raise
        future.add_done_callback(self._done)
        return future

    def _done(self, future):
        self._give_back()
        exc = future.exception()
        if exc is not None:
            LOG.error('Background work on %s failed: %s', self.host, exc,
                      exc_info=(type(exc), exc, exc.__traceback__))

    def wait_idle(self, timeout):
        """Wait until no work is in flight; True when idle before ``timeout``."""
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    def shutdown(self, wait=True):
        """Take no more work; ``wait`` for the work in flight (False: leave it to its threads)."""
        self._executor.shutdown(wait=wait)


def _in_context(ctx, func, *args, **kwargs):
    """Run ``func`` with ``ctx`` as this thread's current context (for the logs)."""
    if ctx is not None:
        ctx.update_store()
    try:
        return func(*args, **kwargs)
    finally:
        berth_context.clear()      # the pool thread's next lines are not this request's
