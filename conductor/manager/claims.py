"""Placement allocation writes on a conductor: one tree at a time, lost races retried here.

Claims are routed to the conductor owning the root of the first provider in
the request, which runs the claims of one tree one after another (a lock per
root inside the process), so they rarely race each other.  The database still
decides: every write is a generation compare-and-swap, so a claim that loses
to a writer elsewhere (another conductor after a ring change, an inventory
change, a claim routed by another tree) fails its swap, rolls back, and is
retried here up to ``[placement] allocation_conflict_retry_count`` times.  A
client therefore sees 409 ``placement.concurrent_update`` only for its own
stale consumer generation (or when the retries run out).
"""

import contextlib
import threading

from common import deadline
from conductor.manager import claim_batch, retrying
from objects.placement import allocation as placement_alloc
from objects.placement import claim_writer, quota_keystone
from objects.placement import reshaper as reshaper_obj


class TreeLocks:
    """One lock per tree (root provider uuid), dropped when nobody holds or waits."""

    def __init__(self):
        self._guard = threading.Lock()
        self._locks = {}

    @contextlib.contextmanager
    def hold(self, key):
        with self._guard:
            entry = self._locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._guard:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._locks[key]


class Claims:
    """The allocation writes of one conductor process."""

    def __init__(self, conf):
        self.retries = conf.placement.allocation_conflict_retry_count
        self.enforce_quota = conf.quota.enforce
        # berth's table or Keystone unified limits ([quota] limits_source)
        self.quota_source = quota_keystone.source_for(conf)
        if self.enforce_quota:
            self.quota_source.warm_up()
        self.locks = TreeLocks()
        # with the quota check in the write, batched claims keep savepoints
        self.writer = claim_writer.Writer(self.enforce_quota, self.quota_source)
        self.batches = claim_batch.GroupCommitter(self.writer, self.locks, self.retries)

    def _write(self, ctx, tree, fn, *args):
        """Run ``fn(ctx, *args)`` under the tree's lock, retrying lost races."""
        with self.locks.hold(tree):
            return retrying.call(fn.__name__, self.retries, tree, fn, ctx, *args)

    def _prefetch(self, consumers):
        """Read the projects' limits before the transaction (no HTTP under its locks).

        Raises QuotaLimitsUnavailable when Keystone is needed and unreadable.
        """
        if self.enforce_quota:
            self.quota_source.prefetch(c.project_id for c in consumers)

    def claim_resources(self, ctx, tree, consumers):
        """Replace the allocations of ``consumers`` (see objects.placement.allocation.replace).

        Claims waiting together are written in one transaction, each in a
        savepoint (conductor.manager.claim_batch).  With ``[quota] enforce``
        the limits are checked in the same transaction; limits from
        Keystone are read (or found cached) before it starts.
        """
        self._prefetch(consumers)
        return self.batches.claim(ctx, tree, consumers)

    def claim_many(self, ctx, claims):
        """:meth:`claim_resources` for ``[(tree, consumers)]`` at once (RPC 1.9).

        Answers per claim None (committed) or its own exception; the claims
        share one transaction (conductor.manager.claim_batch.claim_together).
        """
        self._prefetch([c for _, consumers in claims for c in consumers])
        return self.batches.claim_together(ctx, claims)

    def try_claim(self, ctx, tree, consumers):
        """One attempt at :meth:`claim_resources`, under the tree's lock, no retry.

        For callers that move on to another candidate when they lose a race.
        """
        self._prefetch(consumers)
        with self.locks.hold(tree):
            deadline.check(ctx, 'commit')      # its caller no longer waits: drop
            return self.writer.write(ctx, consumers)

    def delete_allocations(self, ctx, tree, consumer_uuid):
        """Remove every allocation of one consumer, and the consumer."""
        return self._write(ctx, tree, placement_alloc.delete_consumer, consumer_uuid)

    def reshape(self, ctx, tree, inventories, consumers):
        """Move inventory and allocations atomically (objects.placement.reshaper.reshape).

        A retry re-checks the client's provider generations, so a stale
        client view still ends in 409.
        """
        return self._write(ctx, tree, reshaper_obj.reshape, inventories, consumers)
