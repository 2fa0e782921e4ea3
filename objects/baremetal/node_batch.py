"""PostgreSQL: nodes chosen and reserved for a batch of like allocations in one statement.

A conductor drives the allocations of one ``create_allocations`` call in
one transaction (objects/baremetal/reservation.py ``reserve_many``).  Those
of one shape (resource class, traits, owner, candidate list; no name) need
not pick one after the other: one statement locks as many free nodes as
there are allocations (``FOR UPDATE SKIP LOCKED``, so a node another
conductor's transaction is writing is passed over and no node is reserved
twice), pairs them with the allocations in order, activates each
allocation iff it is still ``allocating`` and ``host``'s (the conditional
UPDATE of node_choice.pick_and_reserve) and gives each node its allocation
as instance.  The nodes come, as for one allocation, from a random node id
on in id order; when fewer are free there, a second statement draws the
rest among all that fit.  An allocation left without a node goes on alone
(reservation._reserve_row), which fails it with today's reason when no node
fits.  A named allocation always goes alone (its namesake comes first).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from common import exception
from db import models
from objects.baremetal import allocation as node_alloc
from objects.baremetal import node_choice

_ALLOC = models.NodeAllocation.__table__
_NODE = models.Node.__table__


def shape(alloc: Any) -> tuple[Any, ...] | None:
    """What allocations must share to be picked for together; None: it goes alone."""
    if alloc.name:
        return None
    return (alloc.resource_class, tuple(alloc.traits), alloc.owner,
            tuple(alloc.candidate_nodes or ()))


def groups(allocs: Iterable[Any]) -> list[list[Any]]:
    """The allocations that can share a pick, by shape; groups of two or more,
    those with a candidate list (the more constrained) first."""
    by_shape: dict[tuple[Any, ...], dict[int, Any]] = collections.defaultdict(dict)
    for alloc in allocs:
        key = shape(alloc)
        if key is not None:
            by_shape[key].setdefault(alloc.id, alloc)
    ordered = sorted(by_shape.items(), key=lambda item: not item[0][3])
    return [list(group.values()) for _, group in ordered if len(group) > 1]


def pick_and_reserve_many(ctx: Any, allocs: list[Any], host: str,
                          now: Any) -> dict[int, Any] | None:
    """Reserve a distinct free node for each of ``allocs`` (one shape), as far as they go.

    Returns None on other databases (no such statement there), else ``{allocation id:
    row (id, uuid, ours)}`` for the allocations given a node: ``ours`` False
    when the allocation was no longer ``allocating`` and ``host``'s (nothing
    written for it).  An allocation missing from the answer got no node.
    Raises NodeAssociated when a unique constraint refused a node's write
    (the caller's transaction is then spoilt).
    """
    if ctx.session.get_bind().dialect.name != 'postgresql':
        return None
    first = allocs[0]
    params = dict(node_choice.shape_params(first), host=host, now=now,
                  hold_traits=list(first.traits))
    key = (bool(first.candidate_nodes), bool(first.owner),
           node_choice.trait_slots(len(first.traits)))
    picked: dict[int, Any] = {}
    todo = list(allocs)
    for from_random_id in (True, False):
        params.update(n=len(todo), alloc_ids=[a.id for a in todo],
                      instances=[a.uuid for a in todo])
        statement = node_choice._cached(
            ('reserve-many', from_random_id) + key,
            lambda: _statement(first, from_random_id))
        try:
            rows = ctx.session.execute(statement, params).all()
        except db_exc.DBDuplicateEntry:
            raise exception.NodeAssociated(node='chosen', instance='another allocation')
        for row in rows:
            if row.ours and not row.held:       # the locked row vanished?
                raise exception.NodeAssociated(node=row.uuid, instance='nothing')
            picked[row.alloc_id] = row
        todo = [a for a in todo if a.id not in picked]
        if not todo:
            break
    return picked


def _statement(alloc, from_random_id):
    """The batch pick: lock up to ``n`` fitting free nodes, pair them with
    ``alloc_ids`` in order, activate and hold; one row per pair."""
    fitting = (node_choice._from_random_id(alloc) if from_random_id
               else node_choice.limited_query('postgresql', alloc, 1, ()))
    locked = fitting.with_only_columns(
        _NODE.c.id, _NODE.c.uuid, _NODE.c.instance_info).where(
        _NODE.c.reservation.is_(None)).limit(sa.bindparam('n', type_=sa.Integer)
                                             ).with_for_update(skip_locked=True
                                                               ).subquery('locked')
    # FOR UPDATE takes no window function: the locked rows are numbered outside
    chosen = sa.select(locked, sa.func.row_number().over(order_by=locked.c.id).label('rn')
                       ).cte('chosen')
    wanted = sa.func.unnest(
        sa.bindparam('alloc_ids', type_=pg.ARRAY(sa.Integer)),
        sa.bindparam('instances', type_=pg.ARRAY(sa.String))).table_valued(
        'alloc_id', 'instance', with_ordinality='rn').render_derived('wanted')
    pairs = sa.select(chosen.c.id.label('node_id'), chosen.c.uuid, chosen.c.instance_info,
                      wanted.c.alloc_id, wanted.c.instance).join_from(
        chosen, wanted, chosen.c.rn == wanted.c.rn).cte('pairs')
    act = _ALLOC.update().where(
        _ALLOC.c.id == pairs.c.alloc_id, _ALLOC.c.state == node_alloc.ALLOCATING,
        _ALLOC.c.conductor_affinity == sa.bindparam('host')
    ).values(node_id=pairs.c.node_id, state=node_alloc.ACTIVE, last_error=None,
             updated_at=sa.bindparam('now')).returning(_ALLOC.c.id).cte('act')
    # dict(instance_info or {}, traits=...) in SQL
    old = pairs.c.instance_info
    info = sa.case((sa.func.json_typeof(old) == 'object', sa.cast(old, pg.JSONB)),
                   else_=sa.cast(sa.literal('{}'), pg.JSONB)).op('||')(
        sa.func.jsonb_build_object('traits', sa.cast(
            sa.bindparam('hold_traits', type_=pg.JSONB), pg.JSONB)))
    held = _NODE.update().where(
        _NODE.c.id == pairs.c.node_id, pairs.c.alloc_id.in_(sa.select(act.c.id))
    ).values(instance_uuid=pairs.c.instance, allocation_id=pairs.c.alloc_id,
             instance_info=sa.cast(info, _NODE.c.instance_info.type),
             updated_at=sa.bindparam('now')).returning(_NODE.c.id).cte('held')
    return sa.select(
        pairs.c.alloc_id, pairs.c.node_id.label('id'), pairs.c.uuid,
        pairs.c.alloc_id.in_(sa.select(act.c.id)).label('ours'),
        pairs.c.node_id.in_(sa.select(held.c.id)).label('held'))
