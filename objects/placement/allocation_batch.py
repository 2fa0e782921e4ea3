"""Several claims of new consumers written with one statement per step (a batch of k claims).

conductor.manager.claim_batch writes the claims waiting together in one
transaction.  Checked one by one (objects.placement.allocation.check_replace)
each claim sends its own five statements; here the batch sends five in all:

1. one provider lock for every provider of the batch (in id order, as a
   claim alone takes it), answering also how many of the consumers exist;
2. one inventory and usage read of every (provider, class) written;
3. one INSERT of every new consumer, 4. one INSERT of every allocation;
5. one generation compare-and-swap UPDATE of every provider written.

Every claim is still judged alone, in order, by the same rules and with the
same errors as check_replace, against the usage the database answered plus
what the claims before it in this batch were granted (as they would have
been written in the same transaction before it).  A refused claim writes
nothing and is answered its own error; the others are written.  Each
provider's generation is swapped once, from the generation read under the
lock to that plus the number of claims written on it (as many bumps as the
claims one by one would have made).

Only batches where every claim names allocations and every consumer is new
and named once take this path (:func:`check_many` answers None otherwise, and
the batch is checked claim by claim in the same transaction: the locks it
took are the ones those claims take anyway).
"""

from __future__ import annotations

import collections
import threading
from typing import Any

import sqlalchemy as sa

from common import exception
from common.claim_contract import ClaimConsumer
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import allocation as placement_alloc
from objects.placement import consumer as consumer_obj
from objects.placement import generation as gen_obj

_CONSUMER = models.Consumer.__table__
_ALLOC = models.Allocation.__table__

# consumers inserted by one statement at most (larger batches take several)
_MAX_ROWS = 16
_NEW_CONSUMERS: dict[tuple[bool, int], sa.Insert] = {}
_lock = threading.Lock()
# the arrays of the PostgreSQL form (one element per consumer), by column
_ARRAY_COLUMNS = {'uuids': 'uuid', 'projects': 'project_id', 'users': 'user_id',
                  'types': 'consumer_type'}


def _new_consumers_unnest(with_type):
    """PostgreSQL: INSERT of any number of new consumers, one compiled form.

    The rows come from ``unnest`` of one array per column (``uuids``,
    ``projects``, ``users``, ``types``), so a batch of any size runs the same
    statement; as :func:`_new_consumers`, a row whose project, user (or type)
    row is missing is not inserted (the joins find none).
    """
    names = ['uuids', 'projects', 'users'] + (['types'] if with_type else [])
    rows = (sa.func.unnest(*[sa.bindparam(n) for n in names])
            .table_valued(*names).render_derived(name='new_consumers'))

    project, user = models.Project.__table__, models.User.__table__
    joined = (rows.join(project, project.c.external_id == rows.c.projects)
              .join(user, user.c.external_id == rows.c.users))
    columns = [rows.c.uuids, project.c.id, user.c.id]
    if with_type:
        kind = models.ConsumerType.__table__
        joined = joined.join(kind, kind.c.name == rows.c.types)
        columns.append(kind.c.id)
    columns += [sa.bindparam('generation', type_=_CONSUMER.c.generation.type),
                sa.bindparam('now', type_=_CONSUMER.c.created_at.type)]
    return _CONSUMER.insert().from_select(consumer_obj.new_consumer_columns(with_type),
                                          sa.select(*columns).select_from(joined))


_NEW_CONSUMERS_UNNEST = {False: _new_consumers_unnest(False), True: _new_consumers_unnest(True)}


def _new_consumers(with_type, count):
    """INSERT of ``count`` new consumers whose owner rows exist (one SELECT each, UNION ALL).

    As consumer._new_consumer: a row whose project, user (or type) row is
    missing is not inserted (the row count falls short).
    """
    key = (with_type, count)
    statement = _NEW_CONSUMERS.get(key)
    if statement is None:
        selects = [consumer_obj.new_consumer_select(with_type, '_%d' % i)
                   for i in range(count)]
        names = consumer_obj.new_consumer_columns(with_type)
        statement = _CONSUMER.insert().from_select(
            names, selects[0] if count == 1 else sa.union_all(*selects))
        with _lock:
            statement = _NEW_CONSUMERS.setdefault(key, statement)
    return statement


class _Row:
    """An inventory row seen by one claim: ``used`` includes the batch's earlier grants."""

    __slots__ = ('row', 'used')

    def __init__(self, row, used):
        self.row = row
        self.used = used

    def __getattr__(self, name):
        return getattr(self.row, name)


class Plan:
    """What :func:`check_many` decided: the claims granted, for :func:`apply_many`."""

    __slots__ = ('granted', 'providers', 'inventories', 'writes')

    def __init__(self, granted, providers, inventories, writes):
        self.granted = granted          # [requests] of the claims written
        self.providers = providers      # {rp uuid: row(id, uuid, generation)}
        self.inventories = inventories  # {(rp id, class name): row}
        self.writes = writes            # {rp id: claims written on it}


def _eligible(claims):
    uuids = [r.uuid for requests in claims for r in requests]
    if len(set(uuids)) != len(uuids):
        return None
    if not all(r.allocations for requests in claims for r in requests):
        return None
    return uuids


def check_many(ctx: RequestContext, claims: list[list[ClaimConsumer]],
               ) -> tuple[Plan, list[exception.BerthException | None]] | None:
    """Read and judge ``claims`` (each a ``requests`` list of allocation.replace).

    Returns ``(plan, errors)`` with one error (or None) per claim, or None
    when the batch does not qualify (see the module's docstring).  Must run
    in a writer transaction, followed by :func:`apply_many` in the same one.
    Writes nothing.
    """
    uuids = _eligible(claims)
    if uuids is None:
        return None
    conn = db_api.connection(ctx)
    named = {rp for requests in claims for r in requests for rp in r.allocations}
    providers, existing = placement_alloc._providers_counting(conn, named, uuids)
    if existing:
        return None
    pairs = {(providers[rp].id, rc) for requests in claims for r in requests
             for rp, resources in r.allocations.items() if rp in providers
             for rc in resources}
    inventories = {}
    if pairs:
        lists = {'rp_ids': sorted({rp for rp, _ in pairs}),
                 'names': sorted({rc for _, rc in pairs})}
        inventories = {(r.resource_provider_id, r.class_name): r for r in
                       placement_alloc._INVENTORY_AND_USAGE[False].execute(conn, **lists)}
    names = {rc for requests in claims for r in requests
             for resources in r.allocations.values() for rc in resources}
    known = {rc for _, rc in inventories}
    if names - known:
        known |= set(placement_alloc._CLASS_NAMES.execute(
            conn, names=sorted(names - known)).scalars())
    granted = []
    errors: list[exception.BerthException | None] = []
    # (rp id, class) -> granted in this batch
    added: collections.Counter[tuple[int, str]] = collections.Counter()
    writes: collections.Counter[int] = collections.Counter()       # rp id -> claims writing it
    uuid_of = {p.id: p.uuid for p in providers.values()}
    for requests in claims:
        try:
            wanted = _judge(requests, providers, inventories, known, added, uuid_of)
        except exception.BerthException as exc:
            errors.append(exc)
            continue
        errors.append(None)
        granted.append(requests)
        for key, amounts in wanted.items():
            added[key] += sum(amounts)
        for rp_id in {rp_id for rp_id, _ in wanted}:
            writes[rp_id] += 1
    return Plan(granted, providers, inventories, writes), errors


def _judge(requests, providers, inventories, known, added, uuid_of):
    """check_replace's checks of one claim of new consumers; its {(rp id, class): [amounts]}."""
    for req in requests:
        if req.check_generation:
            consumer_obj.check_generation(req.uuid, None, req.generation)
    named = {rp for r in requests for rp in r.allocations}
    wanted, consumer_of = placement_alloc.wanted_amounts(requests, named, providers)
    for name in sorted({rc for _, rc in wanted} - known):
        raise exception.AllocationClassNotFound(name=name, consumer=consumer_of[name])
    seen = {}
    for key in wanted:
        row = inventories.get(key)
        if row is not None:
            seen[key] = _Row(row, int(row.used) + added[key]) if added[key] else row
    placement_alloc._check_capacity(wanted, seen, uuid_of)
    return wanted


def apply_many(ctx: RequestContext, plan: Plan) -> None:
    """The writes of the claims :func:`check_many` granted.

    May raise ConcurrentUpdate (a swap failed, or a consumer was created
    concurrently); the caller's transaction must then be rolled back as a
    whole, and every claim of it run again.
    """
    if not plan.granted:
        return
    conn = db_api.connection(ctx)
    requests = [r for claim in plan.granted for r in claim]
    _insert_consumers(ctx, conn, requests)
    providers, inventories = plan.providers, plan.inventories
    placement_alloc.insert_rows(conn, requests, providers, inventories)
    expected = {p.id: p.generation for p in providers.values() if p.id in plan.writes}
    gen_obj.bump_providers(ctx, expected, by=plan.writes)


def _insert_consumers(ctx, conn, requests):
    """Insert the new consumers, one statement per kind (per 16 but on PostgreSQL).

    The consumers whose owner rows do not exist yet are then written one by one.
    """
    now = models._now()
    missed = []
    arrays = conn.dialect.name == 'postgresql'
    for with_type in (False, True):
        group = [r for r in requests if (r.consumer_type is not None) == with_type]
        if arrays and group:
            params: dict[str, Any] = {
                name: [getattr(r, key) for r in group] for name, key in _ARRAY_COLUMNS.items()
                if with_type or name != 'types'}
            params.update(generation=1, now=now)
            inserted = consumer_obj.insert_counted(
                ctx, group[0].uuid, _NEW_CONSUMERS_UNNEST[with_type], params)
            if inserted != len(group):
                missed += group
            continue
        for start in range(0, len(group), _MAX_ROWS):
            chunk = group[start:start + _MAX_ROWS]
            params = {}
            for i, req in enumerate(chunk):
                params.update({'uuid_%d' % i: req.uuid, 'project_%d' % i: req.project_id,
                               'user_%d' % i: req.user_id, 'generation_%d' % i: 1,
                               'now_%d' % i: now})
                if with_type:
                    params['type_%d' % i] = req.consumer_type
            inserted = consumer_obj.insert_counted(
                ctx, chunk[0].uuid, _new_consumers(with_type, len(chunk)), params)
            if inserted != len(chunk):
                missed += chunk
    if missed:
        # a project, user or type seen for the first time: created, then the consumer
        there = set(consumer_obj.get_by_uuids(ctx, [r.uuid for r in missed]))
        for req in missed:
            if req.uuid not in there:
                consumer_obj.prepare(ctx, req.uuid, None, req.project_id,
                                     req.user_id, req.consumer_type)


# a uuid no provider or consumer has: the warm-up's statements match no row
_NOBODY = '00000000-0000-0000-0000-000000000000'


def warm(db: Any) -> None:
    """Run the claim path's reads and consumer INSERTs once, matching no row, then roll back.

    SQLAlchemy compiles a statement on its first execution in a process and
    serves it from the engine's cache after; a conductor that runs this as it
    starts compiles them before its first claim instead of inside its first
    calls (paid once per conductor: twice more at three conductors than at
    one).  On PostgreSQL each statement has one form whatever its sizes, so
    this covers every batch; elsewhere it covers single claims.  The
    generation swaps (every form) run too; only the allocation INSERT,
    which cannot run without writing a row, is left to the first claim.
    """
    with db.engine.connect() as conn, conn.begin() as transaction:
        nobody, alloc = [_NOBODY], placement_alloc
        alloc._providers_counting(conn, nobody, nobody)
        alloc._providers(conn, uuids=nobody)
        alloc._INVENTORY_AND_USAGE[False].execute(conn, rp_ids=[0], names=['VCPU']).all()
        alloc._INVENTORY_AND_USAGE[True].execute(
            conn, rp_ids=[0], names=['VCPU'], consumers=nobody).all()
        alloc._CLASS_NAMES.execute(conn, names=['VCPU']).all()
        alloc._ROOTS_OF.execute(conn, uuids=nobody).all()
        consumer_obj._BY_UUIDS.execute(conn, uuids=nobody).all()
        gen_obj.warm(conn)
        # owners that do not exist (''): every INSERT below inserts nothing
        owners = {'generation': 1, 'now': models._now()}
        for with_type in (False, True):
            # the parameters the claims pass (the compiled cache is keyed on their names)
            one = dict(owners, uuid=_NOBODY, project='', user='', **(
                {'type': ''} if with_type else {}))
            conn.execute(consumer_obj._NEW_CONSUMER[with_type], one)
            if conn.dialect.name == 'postgresql':
                arrays = {name: [''] for name in _ARRAY_COLUMNS
                          if with_type or name != 'types'}
                arrays['uuids'] = nobody
                conn.execute(_NEW_CONSUMERS_UNNEST[with_type], dict(owners, **arrays))
            else:
                conn.execute(_new_consumers(with_type, 1),
                             {'%s_0' % k: v for k, v in one.items()})
        transaction.rollback()
