"""A conductor's node allocations in flight: started at once, queued when busy, re-driven.

A cast (``create_allocation``) has nobody to answer to, so a busy conductor
must not drop it.  Work that finds every worker slot taken waits in a
bounded backlog that the running allocation workers drain before they give
their slot back (a slot freed by other work is picked up by the re-drive's
:meth:`AllocationQueue.kick`); what overflows the backlog stays in the
database as an ``allocating`` row of ours and the re-drive (a periodic task
every ``[allocation] redrive_interval`` seconds) submits it again.  So time-to-active stays
bounded by the work ahead of it, never by the stale sweep.

Driving a row twice is harmless (every write is conditional on the row
still being ``allocating`` and ours), but wasteful: the queue knows the ids
it holds, queued or running, and ignores a second submission of one.

The API may also wait for the outcome (``create_allocation`` as a call,
RPC 1.4): :meth:`AllocationQueue.run` does the work on the calling thread
when a slot is free, else submits the row like a cast and waits, at most a
bounded time, for the worker that finishes it to hand over what it wrote;
nothing about the work itself changes.  :meth:`AllocationQueue.run_many`
(RPC 1.5, several rows in one call) does the same for the rows together: on
the calling thread under one slot, their first passes in one transaction
(see NodeAllocator.allocate_many), or, with no slot free, on workers (or the
backlog), all waited for against one deadline.
"""

import collections
import datetime
import enum
import logging
import threading
import time

from common import context as berth_context
from common import exception, rpc
from objects.baremetal import allocation as node_alloc

LOG = logging.getLogger('berth.' + __name__)


def _now():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def send_window(conf) -> float:
    """Seconds an API process may still be sending a new row's message.

    Its messages carry a deadline of its RPC timeout (common.deadline), and
    this conductor drops one later than that plus ``[rpc] deadline_grace``;
    so a row older than this whose message never came will get none.
    """
    return float(rpc.call_timeout(conf)) + conf.rpc.deadline_grace


class Admission(enum.StrEnum):
    """What :meth:`AllocationQueue.submit` did with an allocation."""
    STARTED = 'started'   # on a worker now
    QUEUED = 'queued'     # in the backlog, for the next free worker
    HELD = 'held'         # already queued or running here: ignored
    LEFT = 'left'         # the backlog is full: the re-drive will submit it again


class _Waiter:
    """One call waiting for an allocation's outcome."""

    __slots__ = ('done', 'result')

    def __init__(self):
        self.done = threading.Event()
        self.result = None


class AllocationQueue:
    """Admission of one conductor's allocations onto its workers.

    :param workers: the conductor's :class:`conductor.workers.Workers`.
    :param allocator: its :class:`conductor.manager.node_allocations.NodeAllocator`.
    :param bound: how many allocations may wait for a worker; more are left
        to the re-drive.
    """

    def __init__(self, workers, allocator, bound, unseen_age=0.0):
        self.workers = workers
        self.allocator = allocator
        self.bound = bound
        # how old a row this queue never saw must be before the re-drive
        # takes it: until then its API process may still be sending its
        # message, and will delete the row (answering 503) if it cannot
        self.unseen_age = unseen_age
        self._lock = threading.Lock()
        self._backlog: collections.deque[tuple[berth_context.RequestContext, str]] = \
            collections.deque()
        self._held = set()   # ids queued or running here
        self._seen = set()   # allocating ids whose message reached this queue
        self._waiters = {}   # id -> [_Waiter] of calls waiting for its outcome

    @property
    def waiting(self):
        """How many allocations wait in the backlog."""
        with self._lock:
            return len(self._backlog)

    def submit(self, ctx, alloc_id):
        """Start ``alloc_id`` now, or queue it; the :class:`Admission` it got.

        Never raises NoFreeWorker.
        """
        with self._lock:
            self._seen.add(alloc_id)
            if alloc_id in self._held:
                return Admission.HELD
            self._held.add(alloc_id)
        try:
            self.workers.spawn(self._drain, ctx, alloc_id)
            return Admission.STARTED
        except exception.NoFreeWorker:
            pass
        with self._lock:
            if len(self._backlog) >= self.bound:
                self._held.discard(alloc_id)
                LOG.warning('Conductor %s: backlog full (%d); allocation %s waits '
                            'for the re-drive', self.allocator.host, self.bound,
                            alloc_id)
                return Admission.LEFT
            self._backlog.append((ctx, alloc_id))
        self.kick()  # a worker may have finished between the refusal and the append
        return Admission.QUEUED

    def run(self, ctx, alloc_id, wait):
        """Drive ``alloc_id`` and answer what its worker wrote, waiting up to ``wait`` s.

        With a free slot the calling (RPC) thread does the work itself: no
        hand-over to a worker thread and back.  Otherwise the row is
        submitted like a cast (or is already held here) and waited for.
        Returns the result (see NodeAllocator.allocate), or None when it is
        not finished in time, was left to the re-drive, or ended without a
        result of ours; the work goes on either way.
        """
        with self._lock:
            self._seen.add(alloc_id)
            mine = alloc_id not in self._held
            if mine:
                self._held.add(alloc_id)
        if mine:
            try:
                return self._run_here(ctx, alloc_id)
            except exception.NoFreeWorker:
                with self._lock:
                    self._held.discard(alloc_id)
        waiter = _Waiter()
        with self._lock:
            self._waiters.setdefault(alloc_id, []).append(waiter)
        try:
            if self.submit(ctx, alloc_id) != Admission.LEFT and waiter.done.wait(wait):
                return waiter.result
            return None
        finally:
            self._forget(alloc_id, waiter)

    def run_many(self, ctx, alloc_ids, wait):
        """:meth:`run` for several rows at once: a result (or None) per id, in order.

        With a free slot the calling thread drives every row not already
        held here itself (NodeAllocator.allocate_many: with the database
        backend their first passes share one transaction, a savepoint each,
        so one that fails spoils nothing for the others).  Rows held
        elsewhere here, or all of them when no slot is free, are submitted
        like casts and waited for until ``wait`` seconds after the start.
        """
        deadline = time.monotonic() + wait
        with self._lock:
            self._seen.update(alloc_ids)
            mine = [i for i in dict.fromkeys(alloc_ids) if i not in self._held]
            self._held.update(mine)
        done = {}
        if mine:
            try:
                done = self._run_many_here(ctx, mine)
            except exception.NoFreeWorker:
                with self._lock:
                    self._held.difference_update(mine)
        waiters = []
        for alloc_id in dict.fromkeys(alloc_ids):
            if alloc_id in done:
                continue
            waiter = _Waiter()
            with self._lock:
                self._waiters.setdefault(alloc_id, []).append(waiter)
            if self.submit(ctx, alloc_id) == Admission.LEFT:
                waiter.done.set()       # the re-drive finishes it: not known now
            waiters.append((alloc_id, waiter))
        for alloc_id, waiter in waiters:
            try:
                if waiter.done.wait(max(0.0, deadline - time.monotonic())):
                    done[alloc_id] = waiter.result
            finally:
                self._forget(alloc_id, waiter)
        return [done.get(alloc_id) for alloc_id in alloc_ids]

    def _run_many_here(self, ctx, alloc_ids):
        """Drive held ``alloc_ids`` on this thread under one slot: {id: result}."""
        with self.workers.slot():      # NoFreeWorker before anything ran
            results = {}
            try:
                results = dict(zip(alloc_ids,
                                   self.allocator.allocate_many(ctx, alloc_ids)))
            finally:
                with self._lock:
                    for alloc_id in alloc_ids:
                        self._finish_locked(alloc_id, results.get(alloc_id))
        if self.waiting:
            self.kick()                # our slot is free again for the backlog
        return results

    def _forget(self, alloc_id, waiter):
        with self._lock:
            waiting = self._waiters.get(alloc_id, [])
            if waiter in waiting:
                waiting.remove(waiter)
                if not waiting:
                    del self._waiters[alloc_id]

    def _run_here(self, ctx, alloc_id):
        with self.workers.slot():      # NoFreeWorker before anything ran
            result = None
            try:
                result = self.allocator.allocate(ctx, alloc_id)
            finally:
                self._finish(alloc_id, result)
        if self.waiting:
            self.kick()                # our slot is free again for the backlog
        return result

    def kick(self):
        """Start a drainer on every free slot while work waits; how many started."""
        started = 0
        while self.waiting > started:
            try:
                self.workers.spawn(self._drain, None, None)
            except exception.NoFreeWorker:
                break   # the running drainers take it when they are done
            started += 1
        return started

    def _finish(self, done_id, result):
        """``done_id`` is no longer held; hand its result to whoever waits for it."""
        with self._lock:
            self._finish_locked(done_id, result)

    def _finish_locked(self, done_id, result):
        self._held.discard(done_id)
        if result is not None:      # finished: no longer allocating
            self._seen.discard(done_id)
        for waiter in self._waiters.pop(done_id, ()):
            waiter.result = result
            waiter.done.set()

    def _next(self, done_id, result=None):
        with self._lock:
            self._finish_locked(done_id, result)
            if self._backlog:
                return self._backlog.popleft()
            return None, None

    def _drain(self, ctx, alloc_id):
        """Run one allocation, then whatever waits, on the same worker slot."""
        if alloc_id is None:
            ctx, alloc_id = self._next(None)
        while alloc_id is not None:
            result = None
            try:
                result = self.allocator.allocate(ctx, alloc_id)
            finally:
                ctx, alloc_id = self._next(alloc_id, result)

    def redrive(self, ctx, min_age=1.0, unseen_age=None):
        """Submit our ``allocating`` rows that are not held here; how many it submitted.

        A row whose message reached this queue (its work left to the
        backlog's overflow, or dropped at its caller's deadline) is taken
        once older than ``min_age`` s.  A row this queue never saw waits
        until it is older than ``unseen_age`` s (default: the queue's): its
        API process may still be trying to send the message (a broker
        outage), and when it gives up it deletes the row and answers 503;
        driving the row first would turn that 503 into an allocation its
        client was told does not exist.  Rows the backlog cannot take are
        left for the next run.
        """
        self.kick()
        unseen_age = self.unseen_age if unseen_age is None else unseen_age
        now = _now()
        seen_before = now - datetime.timedelta(seconds=min_age)
        unseen_before = now - datetime.timedelta(seconds=max(min_age, unseen_age))
        rows = node_alloc.list_allocating(ctx, affinity=self.allocator.host)
        with self._lock:
            self._seen &= {row.id for row in rows}     # forget the finished ones
            seen = set(self._seen)
        submitted = 0
        for row in rows:
            if row.since >= (seen_before if row.id in seen else unseen_before):
                continue
            outcome = self.submit(berth_context.admin_context(ctx.db), row.id)
            if outcome == Admission.LEFT:
                break
            if outcome != Admission.HELD:
                submitted += 1
        if submitted:
            LOG.info('Conductor %s re-drove %d waiting allocations',
                     self.allocator.host, submitted)
        return submitted
