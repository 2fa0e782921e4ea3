"""Reserving a node for an allocation and releasing it (backfills: backfill.py).

The steps a conductor takes (see conductor/manager/node_allocations.py):
with the database backend first ``reserve`` (``reserve_many`` for a batch):
a node chosen and reserved in one statement with the allocation's writes
(PostgreSQL: node_choice.pick_and_reserve), or chosen and given the
allocation in one (SQLite: node_choice.pick_and_hold) and the allocation
activated next, in one transaction; else (MySQL), or when none is found,
``prepare`` (the row and its candidates), then per node ``claim``: in one
transaction the lock (a conditional UPDATE of ``reservation`` that also
re-checks that the node still fits), the traits re-check and the
reservation (the node's instance and allocation, the allocation's node and
state), which also frees the lock.  The unique constraints on
``nodes.instance_uuid``, ``nodes.allocation_id`` and
``node_allocations.node_id`` make a node held twice impossible whatever
the routing did.  With the placement backend the conductor passes its
``claimant`` (objects/baremetal/mirror.py), which writes the Placement claim
in that same transaction, and releases and backfills pass ``mirror=True``.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from db import api as db_api
from db import models
from objects.baremetal import allocation as node_alloc
from objects.baremetal import mirror as node_mirror
from objects.baremetal import node as node_obj
from objects.baremetal import node_batch, node_choice

_ALLOC = models.NodeAllocation.__table__
_NODE = models.Node.__table__
_TRAIT = models.NodeTrait.__table__

# how many candidates one query hands to the first pass (more are read on demand)
CANDIDATE_BATCH = 8




@db_api.reader
def prepare(ctx: Any, alloc_id: int) -> tuple[Any, list[node_choice.Candidate]]:
    """(allocation, candidates) in one read; no candidates unless it is ``allocating``."""
    alloc = node_alloc.get_by_id(ctx, alloc_id)
    if alloc.state != node_alloc.ALLOCATING:
        return alloc, []
    return alloc, node_choice.find_candidates(ctx, alloc)


class Outcome(enum.StrEnum):
    """What one reservation step did (``claim``, ``reserve``)."""
    LOCKED = 'locked'      # another operation holds the node: try it again later
    SKIPPED = 'skipped'    # the node no longer fits (or was taken): never again
    RESERVED = 'reserved'  # the allocation is active on the node
    NOT_OURS = 'not ours'  # the allocation was taken over or deleted meanwhile


LOCKED, SKIPPED, RESERVED, NOT_OURS = Outcome


class FirstPass(NamedTuple):
    """What :func:`reserve` did: ``outcome`` RESERVED, NOT_OURS or None (nothing
    reserved: ``locked`` lists the candidates another operation held, worth
    another try; ``failure`` is the CannotAllocate node_choice.order raised
    when it found none to try)."""
    alloc: Any
    outcome: Outcome | None
    locked: list
    failure: node_choice.CannotAllocate | None = None


@db_api.writer
def reserve(ctx: Any, alloc_id: int, host: str) -> FirstPass:
    """:func:`_reserve` in one write transaction."""
    return _reserve(ctx, alloc_id, host)


@db_api.writer
def reserve_many(ctx: Any, alloc_ids: list[int], host: str
                 ) -> list[FirstPass | Exception]:
    """:func:`_reserve` for several allocations in one transaction, rows read at once.

    An allocation that is gone has nothing written: its entry is its
    AllocationNotFound and the others go on.  Anything raised once writes
    began (NodeAssociated: a unique constraint refused a reservation; a
    deadlock) rolls the whole transaction back and is raised: no savepoints
    (two statements per allocation fewer), the caller redoes each row alone.
    The most constrained go first: a named allocation alone (its namesake
    before any other takes it), then those of one shape together, one
    statement for all of them on PostgreSQL (:func:`_reserve_together`;
    those with a candidate list first); those left without a node, and the
    others, one by one in the order given.
    Returns one ``reserve`` result (or exception) per id, in order.
    """
    allocs = node_alloc.get_many_in_txn(ctx, alloc_ids)
    done = {a.id: _reserve_row(ctx, a, host) for a in allocs.values() if a.name}
    done.update(_reserve_together(ctx, [a for a in allocs.values() if a.id not in done],
                                  host))
    results: list[FirstPass | Exception] = []
    for alloc_id in alloc_ids:
        alloc = allocs.get(alloc_id)
        if alloc is None:
            results.append(exception.AllocationNotFound(allocation=alloc_id))
            continue
        if alloc_id not in done:
            done[alloc_id] = _reserve_row(ctx, alloc, host)
        results.append(done[alloc_id])
    return results


def _reserve_together(ctx, allocs, host):
    """``{id: FirstPass}`` of the allocations that node_batch reserved by shape.

    Only ``allocating`` rows of ``host``'s, two or more of a shape; one
    given no node is not in the answer (it goes alone).  On RESERVED the
    allocation is updated in place.
    """
    done: dict[int, FirstPass] = {}
    ours = [a for a in allocs
            if a.state == node_alloc.ALLOCATING and a.conductor_affinity == host]
    for group in node_batch.groups(ours):
        now = node_alloc.stamp(ctx)
        rows = node_batch.pick_and_reserve_many(ctx, group, host, now)
        if rows is None:        # no batch statement on this database
            return done
        for alloc in group:
            row = rows.get(alloc.id)
            if row is None:
                continue
            if not row.ours:
                done[alloc.id] = FirstPass(alloc, NOT_OURS, [])
                continue
            alloc.state, alloc.node_id, alloc.node_uuid = node_alloc.ACTIVE, row.id, row.uuid
            alloc.last_error, alloc.updated_at = None, now
            done[alloc.id] = FirstPass(alloc, RESERVED, [])
    return done


def _reserve(ctx, alloc_id, host):
    """Read an allocation and its candidates and reserve one, all in one transaction.

    First the one-statement pick (:func:`_pick`); when it cannot decide,
    ``node_choice.order(alloc, candidates)`` returns the candidates to try in
    order, or raises CannotAllocate saying why there are none.  Candidates
    are read a few at a time (``CANDIDATE_BATCH``, drawn at random by the
    database), the next few only when those were taken meanwhile, so a node
    is found without reading every usable node.  A lock that fails holds
    nothing, so the candidates are tried one after the other in this
    transaction.  Returns a :class:`FirstPass` (NOT_OURS: not ``allocating``
    or not ``host``'s; ``failure``: what node_choice.order raised).  Raises
    AllocationNotFound, and NodeAssociated (everything rolled back) when a
    unique constraint refused the reservation.
    """
    return _reserve_row(ctx, node_alloc.get_by_id_in_txn(ctx, alloc_id), host)


def _reserve_row(ctx, alloc, host):
    """:func:`_reserve` of an allocation read in this transaction."""
    if alloc.state != node_alloc.ALLOCATING or alloc.conductor_affinity != host:
        return FirstPass(alloc, NOT_OURS, [])
    outcome, node = _pick(ctx, alloc, host)
    if outcome is not None:
        return FirstPass(alloc, outcome, [])
    # one by one: a few candidates at a time, or, when the pick found no free
    # node that fits, every usable one (held ones to retry, or why none fits)
    batch = ([] if node is None
             else node_choice.candidates(ctx, alloc, limit=CANDIDATE_BATCH))
    if not batch:   # none fits: node_choice.order says why (from every usable node)
        try:
            batch = node_choice.order(alloc, node_choice.candidates(ctx, alloc))
        except node_choice.CannotAllocate as exc:
            return FirstPass(alloc, None, [], exc)
    tried, locked = set(), []
    while batch:
        for node in node_choice.order(alloc, batch):
            tried.add(node.id)
            outcome = _claim(ctx, alloc, node.id, host)
            if outcome == LOCKED:
                locked.append(node)
            elif outcome in (RESERVED, NOT_OURS):
                return FirstPass(alloc, outcome, locked)
        # the batch was taken meanwhile: the next untried ones, until none is left
        batch = node_choice.candidates(ctx, alloc, limit=CANDIDATE_BATCH, exclude=tried)
    return FirstPass(alloc, None, locked)


def _pick(ctx, alloc, host):
    """The one-statement way: ``(RESERVED or NOT_OURS, None)`` when it decided,
    else ``(None, node)``: node None when no free node fits, NO_PICK where
    the database has no such statement.

    PostgreSQL chooses, activates and holds in one statement
    (node_choice.pick_and_reserve); SQLite chooses and holds in one
    (node_choice.pick_and_hold), then activates.  On RESERVED ``alloc`` is
    updated in place.
    """
    now = node_alloc.stamp(ctx)
    done = node_choice.pick_and_reserve(ctx, alloc, host, now)
    if done is None:
        return None, None
    if done is not node_choice.NO_PICK:
        if not done.ours:
            return NOT_OURS, None
        alloc.state, alloc.node_id, alloc.node_uuid = node_alloc.ACTIVE, done.id, done.uuid
        alloc.last_error, alloc.updated_at = None, now
        return RESERVED, None
    held = node_choice.pick_and_hold(ctx, alloc, host, now)
    if held is None or held is node_choice.NO_PICK:
        return None, held
    return _activate_held(ctx, alloc, held, host, now), None


def _activate_held(ctx, alloc, node, host, now):
    """Activate ``alloc`` on the ``node`` that node_choice.pick_and_hold gave it: RESERVED.

    The allocation was read in this transaction as ``allocating`` and
    ``host``'s, so the conditional UPDATE holds; should it not, NodeAssociated
    rolls the whole transaction back, the node's write with it (the caller
    then goes node by node, where the lock tells a lost allocation apart).
    """
    res = ctx.session.execute(_ACTIVATE, {
        'alloc_id': alloc.id, 'host': host, 'node_id': node.id, 'now': now})
    if res.rowcount != 1:
        raise exception.NodeAssociated(node=node.uuid, instance='an allocation not ours')
    alloc.state, alloc.node_id, alloc.node_uuid = node_alloc.ACTIVE, node.id, node.uuid
    alloc.last_error, alloc.updated_at = None, now
    return RESERVED


# the two writes of a reservation, built once (they run for every allocation)
_ACTIVATE = _ALLOC.update().where(
    _ALLOC.c.id == sa.bindparam('alloc_id'), _ALLOC.c.state == node_alloc.ALLOCATING,
    _ALLOC.c.conductor_affinity == sa.bindparam('host')).values(
        node_id=sa.bindparam('node_id'), state=node_alloc.ACTIVE, last_error=None,
        updated_at=sa.bindparam('now'))
_HOLD = _NODE.update().where(
    _NODE.c.id == sa.bindparam('node_id'), _NODE.c.reservation == sa.bindparam('host')
).values(instance_uuid=sa.bindparam('instance_uuid'),
         allocation_id=sa.bindparam('alloc_id'),
         instance_info=sa.bindparam('info', type_=_NODE.c.instance_info.type),
         reservation=None, updated_at=sa.bindparam('now'))


@db_api.writer
def claim(ctx: Any, alloc: Any, node_id: int, host: str,
          claimant: node_mirror.Claimant | None = None) -> Outcome:
    """:func:`_claim` in its own write transaction (or the caller's)."""
    return _claim(ctx, alloc, node_id, host, claimant)


def _claim(ctx, alloc, node_id, host, claimant=None):
    """Lock, re-check and reserve one node for ``alloc`` in one transaction.

    The lock is the conditional UPDATE of ``reservation``; the re-check reads
    the node and its traits under it; the reservation sets the node's
    instance, allocation and ``instance_info.traits`` and the allocation's
    node and state (only while its affinity is still ``host``), and frees the
    lock.  ``claimant.hold(ctx, alloc, node)`` (objects.baremetal.mirror),
    when a claimant is given, runs last in the same transaction (the
    Placement claim); whatever it raises rolls everything back and reaches
    the caller, who holds the node's tree lock around the transaction.
    Returns one of LOCKED, SKIPPED, RESERVED, NOT_OURS; on RESERVED
    ``alloc`` is updated in place to what was written (state, node,
    ``updated_at``), valid once the transaction commits.
    """
    outcome, node = _lock(ctx, alloc, node_id, host)
    if outcome is not None:
        return outcome
    if claimant is not None:
        node = node_obj.get_by_id(ctx, node_id)
    elif node is None:
        node = ctx.session.execute(sa.select(*node_choice.LOCKED_COLUMNS).where(
            _NODE.c.id == node_id)).first()
    return _reserve_locked(ctx, alloc, node, host, claimant)


def _reserve_locked(ctx, alloc, node, host, claimant=None):
    """The re-check and the reservation of ``node`` (node_choice.LOCKED_COLUMNS
    at least), locked by this transaction: RESERVED, NOT_OURS or SKIPPED (_claim)."""
    node_id = node.id
    if alloc.traits and not set(alloc.traits) <= _traits(ctx, node_id):
        _release(ctx, node_id, host)
        return SKIPPED
    now = node_alloc.stamp(ctx)
    res = ctx.session.execute(_ACTIVATE, {
        'alloc_id': alloc.id, 'host': host, 'node_id': node.id, 'now': now})
    if res.rowcount != 1:
        _release(ctx, node_id, host)
        return NOT_OURS
    info = dict(node.instance_info or {}, traits=list(alloc.traits))
    try:
        # no savepoint: a refusal here rolls the whole transaction back
        ctx.session.execute(_HOLD, {
            'node_id': node.id, 'host': host, 'instance_uuid': alloc.uuid,
            'alloc_id': alloc.id, 'info': info, 'now': now})
    except db_exc.DBDuplicateEntry:
        # the unique constraints refuse a second holder: undo the allocation side
        raise exception.NodeAssociated(node=node.uuid, instance='another allocation')
    if claimant is not None:
        claimant.hold(ctx, alloc, node)
    alloc.state, alloc.node_id, alloc.node_uuid = node_alloc.ACTIVE, node.id, node.uuid
    alloc.last_error, alloc.updated_at = None, now
    return RESERVED


def _lock(ctx, alloc, node_id, host):
    """Take the node's lock iff it still fits: (None, node or None) when taken,
    else (LOCKED or SKIPPED, None).

    The lock is a conditional UPDATE carrying the fit conditions; where the
    database can, it also returns the node's id, uuid and instance_info.  On
    PostgreSQL a node row another transaction is writing (a concurrent claim)
    is skipped at once (SKIP LOCKED) rather than waited for.
    """
    bind = ctx.session.get_bind()
    q = _lock_statement(bind.dialect)
    params = {'node_id': node_id, 'host': host, 'rc': alloc.resource_class}
    if bind.dialect.update_returning:
        node = ctx.session.execute(q, params).first()
        if node is not None:
            return None, node
    elif ctx.session.execute(q, params).rowcount == 1:
        return None, None
    row = ctx.session.execute(sa.select(_NODE.c.reservation, *[
        c.label('fit%d' % i) for i, c in enumerate(node_choice.fit_clauses(alloc))]).where(
            _NODE.c.id == node_id)).first()
    if row is None or not all(row[1:]):
        return SKIPPED, None
    return LOCKED, None   # held by another operation, or row-locked by a concurrent writer


# the lock's conditional UPDATE, built once per dialect
_LOCK: dict[str, sa.Update] = {}


def _lock_statement(dialect):
    q = _LOCK.get(dialect.name)
    if q is not None:
        return q
    node_id: sa.BindParameter[int] = sa.bindparam('node_id')
    q = _NODE.update().where(_NODE.c.id == node_id, _NODE.c.reservation.is_(None),
                             *node_choice.fit_clauses(sa.bindparam('rc')))
    if dialect.name == 'postgresql':
        q = q.where(_NODE.c.id.in_(sa.select(_NODE.c.id).where(_NODE.c.id == node_id)
                                   .with_for_update(skip_locked=True)))
    q = q.values(reservation=sa.bindparam('host'))
    if dialect.update_returning:
        q = q.returning(*node_choice.LOCKED_COLUMNS)
    _LOCK[dialect.name] = q
    return q


def _traits(ctx, node_id):
    return set(ctx.session.execute(sa.select(_TRAIT.c.trait).where(
        _TRAIT.c.node_id == node_id)).scalars())


def _release(ctx, node_id, host):
    ctx.session.execute(_NODE.update().where(
        _NODE.c.id == node_id, _NODE.c.reservation == host).values(reservation=None))
