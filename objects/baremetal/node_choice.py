"""Choosing nodes for an allocation: the candidate queries and the one-statement picks.

``candidates`` reads the usable nodes of an allocation (all of them, or a
few drawn at random by the database); where the database can, one
statement chooses a node and writes the reservation on it
(``pick_and_reserve`` on PostgreSQL, ``pick_and_hold`` on SQLite;
objects/baremetal/reservation.py reserves what the candidates found
elsewhere).  The queries run for every allocation, so
they are built once per shape and kept in a bounded cache.
"""

from __future__ import annotations

import collections
from collections.abc import Collection
import dataclasses
import json
import random
import threading
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

from common import exception
from db import api as db_api
from db import models
from objects.baremetal import allocation as node_alloc
from objects.baremetal import node as node_obj

_ALLOC = models.NodeAllocation.__table__
_NODE = models.Node.__table__
_TRAIT = models.NodeTrait.__table__


@dataclasses.dataclass
class Candidate:
    """What choosing needs of a node; ``claim`` re-reads the whole node under its lock."""
    id: int
    uuid: str
    name: str
    traits: frozenset


@db_api.reader
def find_candidates(ctx: Any, alloc: Any, limit: int | None = None,
                    exclude: Collection[int] = ()) -> list[Candidate]:
    """:func:`candidates` in a read transaction (joins the caller's)."""
    return candidates(ctx, alloc, limit, exclude)


def candidates(ctx, alloc, limit=None, exclude=()):
    """Usable nodes of the allocation's class, candidate list and owner, with traits.

    Without ``limit``: all of them, the trait filter left to the caller (and
    re-checked by ``claim``).  With ``limit``: at most that many of the nodes
    that also have every requested trait, not in ``exclude`` (ids), drawn at
    random by the database, a node named like the allocation first: the
    head of the shuffled list, without reading the whole list.
    """
    if limit is not None:
        q = limited_query(ctx.session.get_bind().dialect.name, alloc, limit, exclude)
        params = dict(shape_params(alloc), exclude=list(exclude))
        rows = ctx.session.execute(q, params).all()
        wanted = frozenset(alloc.traits)
        return [Candidate(r.id, r.uuid, r.name, wanted) for r in rows]
    q = _candidates_query(alloc)
    rows = ctx.session.execute(q).all()
    traits = collections.defaultdict(set)
    if rows and alloc.traits:
        found = ctx.session.execute(sa.select(_TRAIT.c.node_id, _TRAIT.c.trait).where(
            _TRAIT.c.node_id.in_([r.id for r in rows]),
            _TRAIT.c.trait.in_(alloc.traits)))
        for node_id, trait in found:
            traits[node_id].add(trait)
    return [Candidate(r.id, r.uuid, r.name, frozenset(traits[r.id])) for r in rows]


def _candidates_query(alloc, fit=None):
    q = sa.select(_NODE.c.id, _NODE.c.uuid, _NODE.c.name).where(
        *(fit if fit is not None else fit_clauses(alloc)))
    if alloc.candidate_nodes:
        q = q.where(_NODE.c.uuid.in_(
            sa.bindparam('cands', expanding=True) if fit is not None
            else alloc.candidate_nodes))
    if alloc.owner:
        owner = sa.bindparam('alloc_owner') if fit is not None else alloc.owner
        q = q.where(sa.or_(_NODE.c.owner == owner, _NODE.c.lessee == owner))
    return q


# the limited candidate queries, built once per shape (they run for every
# allocation): (dialect, candidate list?, owner?, trait slots, exclude?, name?,
# limit).  The trait filter is one correlated count over node_traits with an
# IN list of the requested traits (a node must hold as many of them as there
# are distinct ones), so its cost grows with the list, not with a subquery
# per trait.  The IN list is rounded up to a power of two (the last trait
# repeated, which changes no answer) and the cache keeps at most
# LIMITED_CACHE_SIZE shapes, the least recently used dropped first, so no
# request can grow it.
LIMITED_CACHE_SIZE = 64
LIMITED: collections.OrderedDict[tuple[Any, ...], sa.Select[Any]] = collections.OrderedDict()
_LIMITED_LOCK = threading.Lock()


def trait_slots(count: int) -> int:
    """The number of trait parameters a query for ``count`` traits has."""
    return 0 if count == 0 else 1 << (count - 1).bit_length()


def trait_params(traits):
    traits = list(traits)
    padded = traits + traits[-1:] * (trait_slots(len(traits)) - len(traits))
    return (('trait%d' % i, t) for i, t in enumerate(padded))


def shape_params(alloc):
    """The parameters of a limited or pick query for ``alloc`` (none named
    like a column of nodes: an UPDATE reserves those names)."""
    params = {'rc': alloc.resource_class, 'alloc_owner': alloc.owner,
              'alloc_name': alloc.name, 'cands': list(alloc.candidate_nodes or ())}
    params.update(trait_params(alloc.traits))
    if alloc.traits:
        params['trait_count'] = len(set(alloc.traits))
    return params


def has_every_trait(slots: int) -> sa.ColumnElement[bool]:
    """A node holds every requested trait: of the ``slots`` bound names
    (``trait0``...; repeats allowed), it holds ``trait_count`` distinct ones.
    One subquery whatever the count; node_traits' key (node_id, trait) makes
    each held trait one row."""
    held = sa.select(sa.func.count()).where(
        _TRAIT.c.node_id == _NODE.c.id,
        _TRAIT.c.trait.in_([sa.bindparam('trait%d' % i) for i in range(slots)]))
    return held.scalar_subquery() == sa.bindparam('trait_count')


def limited_query(dialect, alloc, limit, exclude):
    slots = trait_slots(len(alloc.traits))
    key = (dialect, bool(alloc.candidate_nodes), bool(alloc.owner), slots,
           bool(exclude), bool(alloc.name), limit)
    with _LIMITED_LOCK:
        q = LIMITED.get(key)
        if q is not None:
            LIMITED.move_to_end(key)
            return q
    q = _candidates_query(alloc, fit=fit_clauses(sa.bindparam('rc')))
    if slots:
        q = q.where(has_every_trait(slots))
    if exclude:
        q = q.where(_NODE.c.id.notin_(sa.bindparam('exclude', expanding=True)))
    order: list[sa.ColumnElement[Any]] = [
        sa.func.rand() if dialect == 'mysql' else sa.func.random()]
    if alloc.name:
        order.insert(0, sa.case((_NODE.c.name == sa.bindparam('alloc_name'), 0), else_=1))
    q = q.order_by(*order).limit(limit)
    with _LIMITED_LOCK:
        LIMITED[key] = q
        while len(LIMITED) > LIMITED_CACHE_SIZE:
            LIMITED.popitem(last=False)
    return q


def fit_clauses(alloc):
    """The columns of a node that must hold for it to take ``alloc`` (traits apart);
    ``alloc`` may also be a bound parameter standing for its resource class."""
    rc = alloc if isinstance(alloc, sa.BindParameter) else alloc.resource_class
    return (_NODE.c.provision_state == node_obj.AVAILABLE,
            _NODE.c.maintenance == sa.false(), _NODE.c.instance_uuid.is_(None),
            _NODE.c.power_state.isnot(None),
            _NODE.c.resource_class == rc,
            _NODE.c.parent_node.is_(None))     # Ironic's node listing leaves children out


LOCKED_COLUMNS = (_NODE.c.id, _NODE.c.uuid, _NODE.c.instance_info)


# what a one-statement pick answers where the database has no such statement
# (MySQL: no UPDATE of a table read in its own subquery)
NO_PICK = object()


def _cached(key, build):
    with _LIMITED_LOCK:
        q = LIMITED.get(key)
        if q is not None:
            LIMITED.move_to_end(key)
            return q
    q = build()
    with _LIMITED_LOCK:
        LIMITED[key] = q
        while len(LIMITED) > LIMITED_CACHE_SIZE:
            LIMITED.popitem(last=False)
    return q


def pick_and_reserve(ctx, alloc, host, now):
    """PostgreSQL: a node chosen and the reservation's two writes in one statement.

    A random node among those that fit (an allocation without a name: the
    first at or after a random node id, in id order, and only when there is
    none there a draw among all of them; with a name: its namesake first),
    with every requested trait, not held by another operation (row-locked, SKIP LOCKED: a
    row a concurrent transaction is writing is passed over; no
    ``reservation`` written, the row lock is the lock); the allocation set
    ``active`` on it iff still ``allocating`` and ``host``'s; the node given
    the allocation as its instance and ``instance_info.traits``.  Returns
    NO_PICK on other databases, None when no free node fits, else the row
    ``(id, uuid, ours)``: ``ours`` 0 when the allocation was not ours
    (nothing written).  Raises NodeAssociated when a unique constraint
    refused the node's write (the caller's transaction is then spoilt).
    """
    if ctx.session.get_bind().dialect.name != 'postgresql':
        return NO_PICK
    params = dict(shape_params(alloc), host=host, alloc_id=alloc.id, now=now,
                  hold_instance=alloc.uuid, hold_traits=list(alloc.traits))
    shape = (bool(alloc.candidate_nodes), bool(alloc.owner),
             trait_slots(len(alloc.traits)), bool(alloc.name))
    row = None
    if not alloc.name:
        # the first free node from a random id on: an index range, not a
        # sort of every node that fits; none there, the whole random pick
        row = _execute_pick(ctx, _cached(('reserve-from',) + shape, lambda:
                                         _reserve_statement(alloc, from_random_id=True)),
                            params)
    if row is None:
        row = _execute_pick(ctx, _cached(('reserve',) + shape,
                                         lambda: _reserve_statement(alloc)), params)
    return row


def _execute_pick(ctx, statement, params):
    """Run a pick of :func:`_reserve_statement`: its row, or None (see pick_and_reserve)."""
    try:
        row = ctx.session.execute(statement, params).first()
    except db_exc.DBDuplicateEntry:
        raise exception.NodeAssociated(node='chosen', instance='another allocation')
    if row is not None and row.ours and row.held != 1:   # the locked row vanished?
        raise exception.NodeAssociated(node=row.uuid, instance='nothing')
    return row


def pick_and_hold(ctx, alloc, host, now):
    """SQLite: a node chosen and the node's write of the reservation in one statement.

    The node chosen as :func:`pick_and_reserve` does is given the allocation as its
    instance and ``instance_info.traits`` at once, its ``reservation`` (the
    lock) never written: the UPDATE itself re-checks that it fits and is not
    held by another operation, and SQLite's writer holds the whole database
    until the transaction ends.  The caller then activates the allocation in
    the same transaction (reservation.py).  Returns NO_PICK on other
    databases, None when no free node fits, else the row ``(id, uuid)``.
    Raises NodeAssociated when a unique constraint refused the write (the
    caller's transaction is then spoilt).
    """
    dialect = ctx.session.get_bind().dialect
    if dialect.name != 'sqlite' or not dialect.update_returning:
        return NO_PICK
    params = dict(shape_params(alloc), alloc_id=alloc.id, now=now,
                  hold_instance=alloc.uuid, hold_traits=json.dumps(list(alloc.traits)))
    key = ('hold', bool(alloc.candidate_nodes), bool(alloc.owner),
           trait_slots(len(alloc.traits)), bool(alloc.name))
    try:
        return ctx.session.execute(_cached(key, lambda: _hold_statement(alloc)),
                                   params).first()
    except db_exc.DBDuplicateEntry:
        raise exception.NodeAssociated(node='chosen', instance='another allocation')


def _hold_statement(alloc):
    chosen = limited_query('sqlite', alloc, 1, ()).with_only_columns(_NODE.c.id).where(
        _NODE.c.reservation.is_(None)).correlate(None)   # its own FROM nodes
    traits = sa.func.json(sa.bindparam('hold_traits', type_=sa.String))
    # dict(instance_info or {}, traits=...) in SQL
    info = sa.case(
        (sa.func.json_type(_NODE.c.instance_info) == 'object',
         sa.func.json_set(_NODE.c.instance_info, '$.traits', traits)),
        else_=sa.func.json_object('traits', traits))
    return _NODE.update().where(
        _NODE.c.id == chosen.scalar_subquery(), _NODE.c.reservation.is_(None),
        *fit_clauses(sa.bindparam('rc'))).values(
        instance_uuid=sa.bindparam('hold_instance'), allocation_id=sa.bindparam('alloc_id'),
        instance_info=sa.type_coerce(info, sa.Text), updated_at=sa.bindparam('now')
    ).returning(_NODE.c.id, _NODE.c.uuid)


def _from_random_id(alloc):
    """The first node at or after a random id that fits ``alloc`` (no name wanted).

    The start is drawn once per statement between the lowest and highest
    node id (two index probes); the nodes from there are read in id order,
    so finding a free one reads a few index entries, not every node that
    fits.  Nothing at or after the start: no row (the caller then draws
    among all of them).
    """
    # each bound its own subquery: a lone min()/max() is one index probe
    lowest, highest = (sa.select(agg(_NODE.c.id)).correlate(None).scalar_subquery()
                       for agg in (sa.func.min, sa.func.max))
    start = sa.cast(lowest + sa.func.floor(sa.func.random() * (highest - lowest + 1)),
                    sa.Integer)
    q = _candidates_query(alloc, fit=fit_clauses(sa.bindparam('rc')))
    slots = trait_slots(len(alloc.traits))
    if slots:
        q = q.where(has_every_trait(slots))
    return q.where(_NODE.c.id >= start).order_by(_NODE.c.id).limit(1)


def _reserve_statement(alloc, from_random_id=False):
    picked = (_from_random_id(alloc) if from_random_id
              else limited_query('postgresql', alloc, 1, ()))
    chosen = picked.with_only_columns(
        _NODE.c.id, _NODE.c.uuid, _NODE.c.instance_info).where(
        _NODE.c.reservation.is_(None)).with_for_update(skip_locked=True).cte('chosen')
    node_id = sa.select(chosen.c.id).scalar_subquery()
    act = _ALLOC.update().where(
        _ALLOC.c.id == sa.bindparam('alloc_id'), _ALLOC.c.state == node_alloc.ALLOCATING,
        _ALLOC.c.conductor_affinity == sa.bindparam('host'), node_id.isnot(None)
    ).values(node_id=node_id, state=node_alloc.ACTIVE, last_error=None,
             updated_at=sa.bindparam('now')).returning(_ALLOC.c.id).cte('act')
    # dict(instance_info or {}, traits=...) in SQL
    old = sa.select(chosen.c.instance_info).scalar_subquery()
    info = sa.case((sa.func.json_typeof(old) == 'object', sa.cast(old, pg.JSONB)),
                   else_=sa.cast(sa.literal('{}'), pg.JSONB)).op('||')(
        sa.func.jsonb_build_object('traits', sa.cast(
            sa.bindparam('hold_traits', type_=pg.JSONB), pg.JSONB)))
    held = _NODE.update().where(_NODE.c.id == node_id, sa.exists(sa.select(act.c.id))).values(
        instance_uuid=sa.bindparam('hold_instance'), allocation_id=sa.bindparam('alloc_id'),
        instance_info=sa.cast(info, _NODE.c.instance_info.type),
        updated_at=sa.bindparam('now')).returning(_NODE.c.id).cte('held')
    return sa.select(
        chosen.c.id, chosen.c.uuid,
        sa.select(sa.func.count()).select_from(act).scalar_subquery().label('ours'),
        sa.select(sa.func.count()).select_from(held).scalar_subquery().label('held'))


class CannotAllocate(Exception):
    """No node can take this allocation; ``str(exc)`` says why (its last_error).

    Raised by :func:`order` when there is nothing to try and by the
    conductor's allocator; caught once, where the allocation is set
    ``error``.  ``alloc`` is the allocation when the raiser has read it.
    """

    def __init__(self, reason: str, alloc: Any = None) -> None:
        super().__init__(reason)
        self.alloc = alloc


def order(alloc: Any, nodes: list[Any]) -> list[Any]:
    """The candidates to try for ``alloc``, in order (shuffled, its name first).

    Raises CannotAllocate saying why when there are none: no usable node of
    its resource class (among its candidate nodes), or none with its traits.
    """
    if not nodes:
        if alloc.candidate_nodes:
            raise CannotAllocate(
                'none of the requested nodes are available and match the '
                'resource class %s' % alloc.resource_class, alloc)
        raise CannotAllocate(
            'no available nodes match the resource class %s' % alloc.resource_class,
            alloc)
    wanted = set(alloc.traits)
    nodes = [n for n in nodes if wanted <= set(n.traits)]
    if not nodes:
        raise CannotAllocate(
            'no suitable nodes have the requested traits %s'
            % ', '.join(alloc.traits), alloc)
    random.shuffle(nodes)
    if alloc.name:
        nodes.sort(key=lambda n: n.name != alloc.name)  # stable: name first
    return nodes
