"""The conductor's side of node allocations: pick a node and reserve it, or fail.

A conductor only works on allocations whose ``conductor_affinity`` is its own
host; every write of the allocation is conditional on that (see
objects/baremetal/reservation.py), so a row taken over by a peer is never
written by two conductors.  ``allocate`` never raises: the allocation ends
``active`` or ``error``, or stays ``allocating`` only when it is not ours.
Every step that finds the allocation cannot be satisfied raises
objects.baremetal.node_choice.CannotAllocate with the reason (the first pass
in the database hands its failure back as itself); ``allocate`` alone catches
it, once, and records ``error`` with that reason as ``last_error``.

With ``[allocation] backend = placement`` the reservation of a node also
writes the Placement claim (consumer = the allocation uuid, one unit of the
node's provider; objects.baremetal.mirror.Claimant), quota included, in the
same transaction, which runs under the conductor's lock of the node's
provider tree (the one its claims take); a node whose claim Placement
refuses is skipped.
"""

import collections
import contextlib
import dataclasses
import logging
import threading
import time
from typing import Any

from oslo_db import exception as db_exc

from common import deadline, exception, retries
from conductor.manager import claims as conductor_claims
from conductor.manager import first_passes, retrying
from conductor.rpcapi import payloads
from objects.baremetal import allocation as node_alloc
from objects.baremetal import deallocation, node_choice, reservation
from objects.baremetal import mirror as node_mirror
from objects.baremetal import node as node_obj

LOG = logging.getLogger('berth.' + __name__)


def written(alloc):
    """What a finished allocation looks like to the API (the reply of a call)."""
    return payloads.AllocationOutcome.of(alloc).to_primitive()


def _failure(alloc, reason):
    return exception.AllocationFailed(uuid=alloc.uuid, error=reason).message


# an allocation whose work fails unexpectedly this many times ends ``error``
MAX_FAILURES = 3
# how many allocations' failure counts a conductor remembers (oldest dropped)
_FAILURES_KEPT = 1024
# the most of an exception's text that reaches a log line or last_error
SHORT_ERROR = 200


def short_error(exc):
    """``exc`` in one short line: its class and the first line of its text, cut.

    A database error's text goes on with the whole statement; that (and any
    parameter in it) never reaches the log or ``last_error``.
    """
    text = (str(exc).splitlines() or [''])[0]
    if len(text) > SHORT_ERROR:
        text = text[:SHORT_ERROR] + '...'
    return '%s: %s' % (type(exc).__name__, text) if text else type(exc).__name__


# what Placement may answer to a claim that the allocator skips the node for
# (a lost race, retrying.RETRYABLE, is worth the node's next lock attempt)
_CLAIM_SKIP = (exception.InvalidAllocation, exception.AllocationProviderNotFound,
               exception.AllocationClassNotFound)


class _Flight:
    """One call driving an allocation; others wait on ``done`` for ``result``."""

    def __init__(self, thread):
        self.thread = thread
        self.depth = 0
        self.done = threading.Event()
        self.result = None


class NodeAllocator:
    """Runs node allocations for one conductor host.

    :param notifier: the conductor's
        :class:`conductor.notifications.AllocationNotifier` (None: nothing sent).
    :param claimant: an :class:`objects.baremetal.mirror.Claimant` with the
        placement backend, None with the database backend.
    :param locks: the conductor's tree locks (conductor.manager.claims.TreeLocks,
        those of its claims); a node's Placement claim is written under the
        lock of the node's provider tree, taken before its transaction.
    """

    def __init__(self, host, notifier=None, claimant=None, locks=None,
                 lock_attempts=3, lock_interval=0.1):
        self.host = host
        self.notifier = notifier
        self.lock_attempts = max(1, lock_attempts)
        self.lock_interval = lock_interval
        self.claimant = claimant
        self.locks = locks if locks is not None else conductor_claims.TreeLocks()
        self._failures = collections.OrderedDict()
        # allocation id -> _Flight of the call driving it now (in this process)
        self._flights = {}
        self._flights_lock = threading.Lock()
        self._first_passes = first_passes.FirstPasses(host)

    @property
    def mirror(self):
        """Whether nodes are mirrored as resource providers (placement backend)."""
        return self.claimant is not None

    @classmethod
    def from_conf(cls, conf, host, claims=None, notifier=None):
        """The allocator of ``host``; ``claims`` (conductor.manager.claims.Claims)
        is the claims path of the placement backend (its quota source and
        tree locks), ``notifier`` the conductor's AllocationNotifier."""
        a = conf.allocation
        claimant = None
        if a.backend == 'placement':
            claimant = node_mirror.Claimant(
                conf.placement.incomplete_consumer_project_id,
                conf.placement.incomplete_consumer_user_id,
                enforce_quota=conf.quota.enforce,
                quota_source=claims.quota_source if claims is not None else None)
        return cls(host, notifier, claimant,
                   locks=claims.locks if claims is not None else None,
                   lock_attempts=a.node_locked_retry_attempts,
                   lock_interval=a.node_locked_retry_interval)

    @contextlib.contextmanager
    def tree_locked(self, ctx, node_ident):
        """Hold the lock of ``node_ident``'s provider tree (placement backend only).

        A node's provider is a root whose uuid is the node's, so this is the
        lock every claim on that tree takes (conductor.manager.claims); taken
        before the transaction that writes the node's Placement claim, as
        claims take it, never inside one.  Raises NodeNotFound.
        """
        if self.claimant is None:
            yield
            return
        with self.locks.hold(node_obj.get(ctx, node_ident).uuid):
            yield

    def allocate_many(self, ctx, alloc_ids):
        """:meth:`allocate` for several rows; a result per id, in order; never raises.

        With the database backend their first passes share one transaction
        (objects.baremetal.reservation.reserve_many) with those of the calls
        running beside this one (conductor/manager/first_passes.py); what is
        left (a failure to save, a retry node by node) goes row by row.
        """
        firsts = [None] * len(alloc_ids)
        if self.claimant is None:
            firsts = self._first_passes.reserve(ctx, alloc_ids)
        return [self.allocate(ctx, alloc_id, first)
                for alloc_id, first in zip(alloc_ids, firsts)]

    def _notify_row(self, ctx, alloc_id, phase):
        """Send ``baremetal.allocation.create.<phase>`` for a row of ours; never raises.

        ``start`` only for a row still ``allocating``: one another path of
        this conductor already finished (the resume at start, the re-drive)
        got its start and its end then.  None when nothing was sent.
        """
        try:
            alloc = node_alloc.get_by_id(ctx, alloc_id)
        except Exception:
            return None
        if alloc.conductor_affinity != self.host or (
                phase == 'start' and alloc.state != node_alloc.ALLOCATING):
            return None
        self.notifier.emit(ctx, 'create', phase, alloc)
        return alloc

    def allocate(self, ctx, alloc_id, first=None):
        """Drive ``alloc_id`` once in this process; a result like :meth:`_allocate_row`.

        Several callers may ask for the same row at once (the cast or call of
        the API, the resume at start, the stale sweep, an orphan takeover):
        the first drives it, the others wait for it and get its result, so
        the row is worked on, and its ``create.start`` sent, once.
        """
        me = threading.get_ident()
        with self._flights_lock:
            flight = self._flights.get(alloc_id)
            if flight is None:
                flight = self._flights[alloc_id] = _Flight(me)
        if flight.thread != me:
            flight.done.wait()
            return flight.result
        if flight.depth:        # the same thread again (an id twice in one batch)
            return self._allocate_notified(ctx, alloc_id, first)
        flight.depth += 1
        try:
            flight.result = self._allocate_notified(ctx, alloc_id, first)
        finally:
            with self._flights_lock:
                del self._flights[alloc_id]
            flight.done.set()
        return flight.result

    def _allocate_notified(self, ctx, alloc_id, first=None):
        """:meth:`_allocate_row`, notified (create.start, then .end or .error)."""
        if self.notifier is None or not self.notifier.enabled:
            return self._allocate_row(ctx, alloc_id, first)
        started = self._notify_row(ctx, alloc_id, 'start')
        written = self._allocate_row(ctx, alloc_id, first)
        if started is not None and written is not None:
            self._notify_row(ctx, alloc_id, 'end' if written['state'] == node_alloc.ACTIVE
                             else 'error')
        return written

    def _allocate_row(self, ctx, alloc_id, first=None):
        """Finish the ``allocating`` row ``alloc_id`` if it is ours; never raises.

        Returns what this call wrote, ``{'state', 'node_uuid', 'last_error',
        'updated_at'}`` (``updated_at`` in ISO 8601), or None when it wrote
        nothing it can vouch for (not ours, gone, or its result not saved).
        ``first``: what a shared first pass (``allocate_many``) already did.
        """
        if deadline.dropped(ctx, 'commit'):
            # its caller gave up: the API deletes the row it answered 503 for,
            # and the stale sweep finishes one it answered 201
            return None
        failed = None
        try:
            alloc, todo = self._first_pass(ctx, alloc_id, first)
        except node_choice.CannotAllocate as exc:
            alloc, todo, failed = exc.alloc, [], exc
        except exception.AllocationNotFound:
            return None  # deleted before we got to it
        except Exception as exc:
            return self._failed_read(ctx, alloc_id, exc)
        if alloc is not None and alloc.state == node_alloc.ACTIVE:
            return written(alloc)   # reserved by the first pass
        if (alloc is None or alloc.state != node_alloc.ALLOCATING
                or alloc.conductor_affinity != self.host):
            return None
        if failed is not None:
            return self._record_failure(ctx, alloc, str(failed))
        try:
            self._allocate(ctx, alloc, todo)
        except node_choice.CannotAllocate as exc:
            return self._record_failure(ctx, alloc, str(exc))
        except Exception as exc:
            LOG.error('Unexpected exception during allocation %s: %s', alloc.uuid,
                      short_error(exc))
            LOG.debug('Unexpected exception during allocation %s', alloc.uuid,
                      exc_info=not isinstance(exc, db_exc.DBError))
            return self._record_failure(
                ctx, alloc, 'Unexpected exception during allocation: %s' % short_error(exc))
        return written(alloc) if alloc.state == node_alloc.ACTIVE else None

    def _record_failure(self, ctx, alloc, reason):
        """Set ``alloc`` (ours, ``allocating``) ``error`` with ``reason``; what was written."""
        LOG.info('Allocation %s failed: %s', alloc.uuid, reason)
        message = _failure(alloc, reason)
        try:
            now = node_alloc.set_error(ctx, alloc.id, self.host, message)
            if now is not None:
                return written(dataclasses.replace(
                    alloc, state=node_alloc.ERROR, node_id=None, node_uuid=None,
                    last_error=message, updated_at=now))
        except Exception:
            LOG.error('Cannot save the error of allocation %s; the sweep will retry '
                      'it', alloc.uuid)
        return None

    def _failed_read(self, ctx, alloc_id, exc):
        """A first pass that failed unexpectedly: the sweep retries it, up to
        MAX_FAILURES times in all; then the allocation ends ``error`` (a poison
        row, one whose query fails every time, is not re-driven forever)."""
        tries = self._failures.pop(alloc_id, 0) + 1
        reason = short_error(exc)
        if tries < MAX_FAILURES:
            self._failures[alloc_id] = tries
            while len(self._failures) > _FAILURES_KEPT:
                self._failures.popitem(last=False)
            LOG.warning('Cannot read allocation %s (try %d of %d); the sweep will '
                        'retry: %s', alloc_id, tries, MAX_FAILURES, reason)
            return None
        LOG.error('Allocation %s failed %d times, giving up: %s', alloc_id, tries,
                  reason)
        try:
            uuid = node_alloc.get_by_id(ctx, alloc_id).uuid
        except Exception:
            uuid = alloc_id
        message = exception.AllocationFailed(
            uuid=uuid, error='Unexpected exception during allocation (%d tries): %s'
            % (tries, reason)).message
        try:
            node_alloc.set_error(ctx, alloc_id, self.host, message)
        except Exception as save_exc:
            LOG.error('Cannot save the error of allocation %s: %s', alloc_id,
                      short_error(save_exc))
        return None

    def _first_pass(self, ctx, alloc_id, first=None):
        """(allocation or None, the candidates still to try).

        Nothing is left to try when the first pass finished the row (it
        shows ``active``) or it is not ours (None).  Raises
        node_choice.CannotAllocate (with the allocation) when no node can
        take it.

        With the database backend the first pass over the candidates runs in
        the transaction that reads them (objects.baremetal.reservation.reserve);
        the Placement claim needs a transaction per node, so that backend (and
        a first pass lost to a unique constraint) goes node by node.
        """
        if self.claimant is None:
            try:
                if first is None:
                    first = reservation.reserve(ctx, alloc_id, self.host)
                elif isinstance(first, Exception):
                    raise first
            except (exception.NodeAssociated, db_exc.DBError) as exc:
                # the whole first pass rolled back: node by node below
                LOG.debug('First pass of allocation %s rolled back: %s', alloc_id,
                          short_error(exc))
            else:
                if first.outcome == reservation.RESERVED:
                    return first.alloc, []   # updated in place: active on its node
                if first.outcome == reservation.NOT_OURS:
                    return None, []
                if first.failure is not None:
                    raise first.failure
                if not first.locked:
                    raise node_choice.CannotAllocate(
                        'all nodes were filtered out during reservation', first.alloc)
                return first.alloc, first.locked
        return reservation.prepare(ctx, alloc_id)

    def _allocate(self, ctx: Any, alloc: Any, nodes: list[Any]) -> None:
        """Reserve one of ``nodes`` (done too when the row is no longer ours).

        Raises node_choice.CannotAllocate when none can be reserved.
        """
        nodes = node_choice.order(alloc, nodes)
        total = len(nodes)
        policy = retries.node_lock(self.lock_attempts, self.lock_interval,
                                   sleep=lambda seconds: time.sleep(seconds))
        try:
            for attempt in policy:
                with attempt:
                    try:
                        if self._reserve_one_of(ctx, alloc, nodes):
                            return
                    except retries.Again as locked:
                        nodes = locked.left     # the next pass tries these only
                        raise
        except retries.Again:
            pass
        raise node_choice.CannotAllocate(
            'could not reserve any of %d suitable nodes' % total, alloc)

    def _reserve_one_of(self, ctx: Any, alloc: Any, nodes: list[Any]) -> bool:
        """One pass over ``nodes``: True once one is reserved (or the row is no
        longer ours, or the caller stopped waiting); retries.Again with the
        nodes that were locked (common.retries.node_lock runs the passes)."""
        locked = []
        for node in nodes:
            if deadline.dropped(ctx, 'commit'):
                return True     # left allocating: as above
            outcome = self._try_node(ctx, alloc, node)
            if outcome == reservation.LOCKED:
                locked.append(node)
            elif outcome in (reservation.RESERVED, reservation.NOT_OURS):
                return True
        if not locked:
            raise node_choice.CannotAllocate(
                'all nodes were filtered out during reservation', alloc)
        raise retries.Again(locked)

    def _try_node(self, ctx, alloc, node):
        """A reservation.Outcome: RESERVED, NOT_OURS, LOCKED (retry later) or SKIPPED.

        Raises node_choice.CannotAllocate when the claim was over quota: no
        other node would do better.  With the placement backend the node's
        tree lock is held around the reservation's transaction, whose last
        step writes the Placement claim (mirror.Claimant.hold); a claim that
        lost a race (retrying.RETRYABLE) makes the node LOCKED: it is tried
        again after ``lock_interval``.
        """
        try:
            with (self.locks.hold(node.uuid) if self.claimant is not None
                  else contextlib.nullcontext()):
                outcome = reservation.claim(ctx, alloc, node.id, self.host,
                                            claimant=self.claimant)
        except (exception.NodeAssociated, exception.NodeNotFound):
            return reservation.SKIPPED
        except (exception.QuotaExceeded, exception.QuotaLimitsUnavailable) as exc:
            raise node_choice.CannotAllocate(exc.message.rstrip('.'), alloc)
        except _CLAIM_SKIP as exc:
            LOG.info('Placement refused node %s for allocation %s: %s', node.uuid,
                     alloc.uuid, exc)
            return reservation.SKIPPED
        except retrying.RETRYABLE:
            return reservation.LOCKED
        if outcome == reservation.NOT_OURS:
            LOG.info('Allocation %s is no longer ours; leaving it', alloc.uuid)
        return outcome

    def destroy(self, ctx, ident):
        """Delete an allocation (NodeLocked / NodeInvalidState / AllocationNotFound)."""
        deadline.check(ctx, 'commit')
        with self.notified(ctx, 'delete', node_alloc.get(ctx, ident)):
            deallocation.destroy_allocation(ctx, ident, self.host, mirror=self.mirror)

    @contextlib.contextmanager
    def notified(self, ctx, action, alloc):
        """``<action>.start``, then ``.end`` after the block or ``.error`` (re-raised)."""
        notifier = self.notifier
        if notifier is None or not notifier.enabled or alloc is None:
            yield
            return
        notifier.emit(ctx, action, 'start', alloc)
        try:
            yield
        except Exception as exc:
            notifier.emit(ctx, action, 'error', dataclasses.replace(
                alloc, last_error=getattr(exc, 'message', None) or str(exc))
                if dataclasses.is_dataclass(alloc) and not isinstance(alloc, type) else alloc)
            raise
        if action != 'delete':
            try:
                alloc = node_alloc.get(ctx, alloc.uuid)
            except exception.AllocationNotFound:
                pass
        notifier.emit(ctx, action, 'end', alloc)
