"""Group commit: claims that wait together are written in one transaction, each in a savepoint.

On the embedded SQLite database every write transaction holds the one write
lock until its commit, and a commit waits for the disk (fsync of the WAL):
measured here at 3-13 ms, i.e. at most ~80-300 commits per second whatever
the CPU does.  Claims arriving while a transaction is being written therefore
queue on this conductor, and the next transaction takes them all (up to
``max_batch``): one lock, one fsync for many claims.

Every claim of a batch is still its own unit: it runs all of its checks
(consumer generation, provider generation compare-and-swap, capacity, quota)
against the state left by the claims before it, and a claim that fails
leaves the others to commit.  The claims are written through one
objects.placement.claim_writer.ClaimWriter.  When its ``split`` ways may
be used (checks that write nothing and raise only once their queries are
done, then the writes), a refused claim has written nothing and the batch
needs no savepoints (two statements per claim fewer); a claim failing in
its writes fails the batch as a whole, and a batch of new consumers is
judged claim by claim but read and written with one statement per step
for all of them (objects.placement.allocation_batch).  Otherwise every
claim runs in a savepoint and a failure rolls back that savepoint only.
A claim that lost a race (ConcurrentUpdate), and every claim of a batch
whose transaction failed as a whole (deadlock, lost connection, commit
error), is run again alone, with the usual retries
(conductor.manager.retrying).  Nobody is answered before the transaction
holding their claim has committed.  A claim whose caller's deadline has passed
(common.deadline) is dropped before its transaction, and a batch that
reaches one of its deadlines while being written rolls back before it
commits (its claims then go alone, each checked on its own).

Batches group all claims on SQLite (writers are serialised anyway) and the
claims of one tree on other databases (where trees are written in parallel
and one tree's claims are serialised by its lock already).  The calls that
carry several claims of any trees (RPC 1.9, claim_together) share one queue
per conductor on every database: calls arriving from several API processes
while a transaction is being written join the next one, instead of each
paying a transaction (a commit, its round trips) of its own.
"""

import contextlib
import logging

from common import deadline, exception, group_queue, metrics
from conductor.manager import retrying

LOG = logging.getLogger('berth.' + __name__)

MAX_BATCH = 32
# the queue key of claim_together's batches (claims of any tree, every caller)
TOGETHER = ('claim_together',)
# the claim metrics' name for a claim's write (as Claims counts it alone)
OPERATION = 'replace'


class _Pending(group_queue.Entry):
    """One claim waiting for its batch; ``lead`` when it must write the next one."""

    __slots__ = ('ctx', 'tree', 'consumers', 'done', 'retry', 'error')

    def __init__(self, ctx, tree, consumers):
        super().__init__()
        self.ctx = ctx
        self.tree = tree
        self.consumers = consumers
        self.done = False       # written and committed
        self.retry = False      # run again alone
        self.error = None       # the claim's own failure (answered as is)


class GroupCommitter:
    """Leader/follower group commit of claims.

    :param writer: the objects.placement.claim_writer.ClaimWriter that
        writes claims (all of its ways run inside the caller's transaction).
    :param locks: the conductor's tree locks; ``locks.hold(tree)`` is a
        context manager serialising a tree (conductor.manager.claims.TreeLocks).
    :param retries: how often a claim run again alone is retried when it
        loses a race (conductor.manager.retrying).
    """

    def __init__(self, writer, locks, retries, max_batch=MAX_BATCH):
        self._writer = writer
        self._locks = locks
        self._retries = retries
        # batch key -> the claims queued for its next transaction
        self._queues = group_queue.GroupQueues(self._write_batch, max_batch)

    @property
    def max_batch(self):
        return self._queues.max_batch

    @max_batch.setter
    def max_batch(self, value):
        self._queues.max_batch = value

    def waiting(self, key=None):
        """Claims queued for the next transaction of ``key`` (None: SQLite's one queue)."""
        return self._queues.waiting(key)

    def claim(self, ctx, tree, consumers):
        """Write one claim, possibly together with others; raise its own error."""
        key = None if ctx.db.is_sqlite else tree
        entry = _Pending(ctx, tree, consumers)
        self._queue_and_wait(key, [entry])
        if entry.retry:
            return self._write_alone(entry.ctx, entry.tree, entry.consumers)
        if entry.error is not None:
            raise entry.error

    def claim_together(self, ctx, claims):
        """Write ``[(tree, consumers)]`` (one RPC message, 1.9) in one transaction.

        Answers a list: per claim None (written and committed) or its own
        error.  The batch holds the locks of all its trees (taken in sorted
        order, so it never deadlocks with a claim holding one of them) and
        is written like a batch of one tree: a claim refused by its checks
        leaves the others to commit; a lost race, or a transaction failing
        as a whole, runs that claim (every claim) again alone with retries.
        (On SQLite this transaction waits for the process's one writer like
        any other.)

        Concurrent calls (several API processes sending to this conductor)
        are merged: while one transaction is being written, the claims of
        the calls arriving meanwhile queue, and the next leader writes them
        all (up to ``max_batch``) in one transaction, each still judged and
        answered on its own, none before its commit.
        """
        batch = [_Pending(ctx, tree, consumers) for tree, consumers in claims]
        if batch:
            self._queue_and_wait(TOGETHER, batch)
        answers = []
        for entry in batch:
            if entry.retry:
                answers.append(_outcome(lambda e=entry: self._write_alone(
                    e.ctx, e.tree, e.consumers)))
            else:
                answers.append(entry.error)
        return answers

    def _queue_and_wait(self, key, batch):
        """Queue ``batch`` for ``key``'s next transactions; return once all are written.

        Leader/follower (common.group_queue): the caller whose claim reaches
        the head of an idle queue writes the next transaction, for whoever queued.
        """
        self._queues.submit(key, batch)

    def _run_trees(self, batch):
        with contextlib.ExitStack() as held:
            # a claim without a tree (providers not found) takes no lock, as alone
            for tree in sorted({e.tree for e in batch if e.tree is not None}):
                held.enter_context(self._locks.hold(tree))
            self._run(None, batch, locked=True)

    def _write_batch(self, key, batch):
        """One transaction for the next ``batch`` of ``key`` (the leader's thread)."""
        if key is TOGETHER:
            self._run_trees(batch)
        else:
            self._run(key, batch)

    def _run(self, key, batch, locked=False):
        batch = _unexpired(batch)
        if not batch:
            return
        ctx = batch[0].ctx
        try:
            if key is None or locked:
                self._transaction(ctx, batch)
            else:
                with self._locks.hold(key):
                    self._transaction(ctx, batch)
        except Exception as exc:
            LOG.info('A batch of %d claims failed as a whole (%s); writing them '
                     'one by one', len(batch), exc)
            for entry in batch:
                entry.done, entry.error, entry.retry = False, None, True
            return
        self._committed(sum(1 for e in batch if e.done))
        for entry in batch:
            if isinstance(entry.error, exception.ConsumerGenerationConflict):
                metrics.claim_conflict(OPERATION, 'consumer_generation')

    def _committed(self, count):
        """``count`` claims of a batch committed."""
        for _ in range(count):
            metrics.claim_done(OPERATION)

    def _write_alone(self, ctx, tree, consumers):
        """One claim in a transaction of its own, under its tree's lock, with retries."""
        with self._locks.hold(tree):
            return retrying.call(OPERATION, self._retries, tree, self._writer.write,
                                 ctx, consumers)

    def _transaction(self, ctx, batch):
        if len(batch) == 1:
            # alone: its transaction is its savepoint (no SAVEPOINT round trips)
            entry = batch[0]
            try:
                with self._begin(ctx):
                    self._writer.write(ctx, entry.consumers)
                    deadline.check(entry.ctx, 'commit')      # else rolled back
                entry.done = True
            except retrying.RETRYABLE:
                entry.retry = True
            except exception.BerthException as exc:
                entry.error = exc
            return
        with self._begin(ctx):
            split = self._writer.split
            if split and self._checked_many(ctx, batch):
                _before_commit(batch)
                return
            for entry in batch:
                if split:
                    self._checked_write(ctx, entry)
                    continue
                try:
                    with ctx.session.begin_nested():
                        self._writer.write(ctx, entry.consumers)
                    entry.done = True
                except retrying.RETRYABLE:
                    entry.retry = True
                except exception.BerthException as exc:
                    entry.error = exc
            _before_commit(batch)

    def _begin(self, ctx):
        """A batch's transaction: on a Core connection when the writer's ways are split.

        Split ways (no quota check) run prebuilt Core statements only, so
        their batch needs no ORM Session (its set-up, flush and close cost
        ~5 % of a conductor's CPU); savepoints and the quota check keep one.
        """
        return ctx.db.core_writer(ctx) if self._writer.split else ctx.db.writer(ctx)

    def _checked_write(self, ctx, entry):
        """One claim of a savepoint-free batch: refused having written nothing, or written.

        A failure while writing (or any error that is not a domain
        exception, e.g. a deadlock that aborted the transaction) propagates
        and fails the batch as a whole.
        """
        try:
            plan = self._writer.check(ctx, entry.consumers)
        except exception.ConcurrentUpdate:
            entry.retry = True
            return
        except exception.BerthException as exc:
            entry.error = exc
            return
        self._writer.apply(ctx, plan)
        entry.done = True

    def _checked_many(self, ctx, batch):
        """The whole batch judged and written at once; False when it does not qualify.

        As :meth:`_checked_write` claim by claim: a refused claim gets its
        error (a lost race: run again alone), a failure while writing fails
        the batch as a whole.
        """
        outcome = self._writer.check_many(ctx, [entry.consumers for entry in batch])
        if outcome is None:
            return False
        plan, errors = outcome
        for entry, error in zip(batch, errors):
            if isinstance(error, exception.ConcurrentUpdate):
                entry.retry = True
            elif error is not None:
                entry.error = error
        self._writer.apply_many(ctx, plan)
        for entry, error in zip(batch, errors):
            entry.done = error is None
        return True


def _unexpired(batch):
    """The claims of ``batch`` still awaited; the others get RequestExpired (dropped)."""
    live = []
    for entry in batch:
        try:
            deadline.check(entry.ctx, 'commit')
        except exception.RequestExpired as exc:
            entry.error = exc
        else:
            live.append(entry)
    return live


def _before_commit(batch):
    """RequestExpired when a claim written in the batch is past its deadline.

    Raised inside the transaction, it rolls the batch back; its claims are
    then written alone, where each is checked (and dropped) on its own.
    """
    for entry in batch:
        if entry.done:
            deadline.check(entry.ctx, 'commit')


def _outcome(write):
    """None when ``write()`` succeeds, else the exception it raised."""
    try:
        write()
    except Exception as exc:        # answered per claim; the others go on
        if not isinstance(exc, exception.BerthException):
            LOG.exception('A claim of a batch failed unexpectedly')
        return exc
    return None
