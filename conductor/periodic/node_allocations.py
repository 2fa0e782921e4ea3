"""Recovery of node allocations: resume at start, orphan takeover, stale sweep.

Nothing is left ``allocating``: a conductor resumes its own rows when it
starts; the ring owner of a row whose conductor left the group takes it over
with a compare-and-swap on ``conductor_affinity`` (never from itself); and a
conductor re-drives its own rows older than ``[allocation] stale_timeout``
(a cast lost to a broker restart, a worker that could not save its result).

The takeover bound: a dead conductor's rows are claimed within its tooz
membership timeout + ``[coordination] ring_refresh_interval`` +
``[allocation] orphan_check_interval`` (doc/source/operations.md): each check
claims every orphan before driving any, on a thread of its own
(conductor/periodic/__init__.py), so no other task delays it.
"""

import datetime
import logging

from futurist import periodics

from common import context as berth_context
from common import exception, metrics
from objects.baremetal import allocation as node_alloc
from objects.baremetal import node as node_obj

LOG = logging.getLogger('berth.' + __name__)


def _now():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def resume_own(ctx, allocator, before=None):
    """Drive every ``allocating`` row whose affinity is this conductor; return the count.

    ``before``: only the rows last written before then (this conductor's
    start).  A row created since belongs to an API request whose message is
    on its way here: driving it now would race that request for it.  A row
    whose message never comes is the stale sweep's.
    """
    rows = node_alloc.list_allocating(ctx, affinity=allocator.host, older_than=before)
    for row in rows:
        allocator.allocate(ctx, row.id)
    if rows:
        LOG.info('Conductor %s resumed %d allocations', allocator.host, len(rows))
    return len(rows)


def mirror_nodes(ctx):
    """Mirror every node as a provider (placement backend, at start); the count mirrored.

    One transaction per node: a conductor starting beside another may lose a
    race on a node, which that other conductor has then mirrored.
    """
    done = 0
    for node in node_obj.list_nodes(ctx):
        try:
            node_obj.mirror(ctx, node.id)
            done += 1
        except (exception.Conflict, exception.NotFound) as exc:
            LOG.debug('Not mirroring node %s now: %s', node.uuid, exc)
    return done


def take_over_orphans(ctx, allocator, ring, queue=None):
    """Take over the rows of departed conductors that the ring gives us; how many.

    Every such row is claimed first (one compare-and-swap each), then the
    rows are driven: on this conductor's workers through ``queue`` (its
    backlog, else its re-drive, takes what finds no free worker), or here
    one after the other without a queue.  So one check claims every orphan
    it finds, however slow driving one is; a row whose claim fails (the
    database) is left for the next check, never the rows after it.
    """
    me = allocator.host
    live = ring.members()
    if me not in live:
        return 0   # leaving (or not yet joined): taking work now would be wrong
    taken = []
    for row in node_alloc.list_allocating(ctx):
        old = row.conductor_affinity
        if old == me or old in live:
            continue
        try:
            if ring.owner(row.uuid) != me or not node_alloc.take_over(ctx, row.id, old, me):
                continue
        except Exception as exc:      # the database: the next check tries again
            LOG.warning('Conductor %s could not take over allocation %s from %s '
                        '(%s: %s)', me, row.uuid, old, type(exc).__name__, exc)
            continue
        LOG.info('Conductor %s took over allocation %s from %s', me, row.uuid, old)
        metrics.ORPHAN_TAKEOVERS.labels(me).inc()
        taken.append(row.id)
    for alloc_id in taken:
        if queue is not None:
            queue.submit(berth_context.admin_context(ctx.db), alloc_id)
        else:
            allocator.allocate(ctx, alloc_id)
    return len(taken)


def sweep_stale(ctx, allocator, timeout):
    """Re-drive our own rows left ``allocating`` for more than ``timeout`` seconds."""
    cutoff = _now() - datetime.timedelta(seconds=timeout)
    swept = 0
    for row in node_alloc.list_allocating(ctx, affinity=allocator.host,
                                          older_than=cutoff):
        if node_alloc.touch(ctx, row.id, allocator.host):
            LOG.warning('Allocation %s was left allocating; driving it again', row.uuid)
            metrics.STALE_REDRIVES.labels(allocator.host).inc()
            swept += 1
            allocator.allocate(ctx, row.id)
    return swept


def tasks(conf, db, allocator, ring, queue=None):
    """``[(callable, spacing)]`` for the conductor's periodic worker."""
    a = conf.allocation
    started = _now()

    def resume_node_allocations():
        ctx = berth_context.admin_context(db)
        if allocator.mirror:
            mirror_nodes(ctx)
        resume_own(ctx, allocator, before=started)
        raise periodics.NeverAgain()  # once, right after the conductor joined

    def take_over_orphan_allocations():
        take_over_orphans(berth_context.admin_context(db), allocator, ring, queue)

    def sweep_stale_allocations():
        sweep_stale(berth_context.admin_context(db), allocator, a.stale_timeout)

    def redrive_waiting_allocations():
        queue.redrive(berth_context.admin_context(db))

    found = [(resume_node_allocations, 0.5),
             (take_over_orphan_allocations, a.orphan_check_interval),
             (sweep_stale_allocations, a.sweep_interval)]
    if queue is not None:
        found.append((redrive_waiting_allocations, a.redrive_interval))
    return found
