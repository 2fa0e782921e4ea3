"""Placement allocations: reading them and replacing consumers' allocations atomically.

A write names, per consumer, the complete new set of its allocations
(``{provider uuid: {class: amount}}``).  In one transaction it checks every
consumer generation, every amount against the provider's inventory (min_unit,
max_unit, step_size, capacity), replaces the rows and bumps the generation of
every provider in the written set with a compare-and-swap.  Provider rows
are locked where the database supports it (so claims on one provider queue
rather than fail) and their generations are read before usage, so any
writer that changed usage in between makes the swap fail (ConcurrentUpdate)
and the caller retries.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
import datetime
from typing import Any, cast

import sqlalchemy as sa

from common import exception
from common.claim_contract import ClaimConsumer
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import consumer as consumer_obj
from objects.placement import generation as gen_obj
from objects.placement import quota as quota_obj
from objects.sql import in_list

_RP = models.ResourceProvider.__table__
_RC = models.ResourceClass.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_CONSUMER = models.Consumer.__table__


def _newest(*stamps):
    present = [s for s in stamps if s is not None]
    return max(present) if present else None


@db_api.reader
def get_for_consumer(
        ctx: RequestContext, consumer_uuid: str,
) -> tuple[dict[str, dict[str, Any]], consumer_obj.Consumer | None, datetime.datetime | None]:
    """A consumer's allocations grouped by provider, with the consumer record.

    Returns ``(allocations, consumer, last_modified)`` where allocations is
    ``{rp uuid: {'generation': g, 'resources': {class: amount}}}`` and
    consumer is a :class:`objects.placement.consumer.Consumer` or None.
    """
    rows = ctx.session.execute(
        sa.select(_RP.c.uuid, _RP.c.generation, _RC.c.name, _ALLOC.c.used,
                  _ALLOC.c.created_at, _ALLOC.c.updated_at)
        .join(_RP, _RP.c.id == _ALLOC.c.resource_provider_id)
        .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
        .where(_ALLOC.c.consumer_id == consumer_uuid)).all()
    allocations: dict[str, dict[str, Any]] = {}
    stamps = []
    for row in rows:
        entry = allocations.setdefault(
            row.uuid, {'generation': row.generation, 'resources': {}})
        entry['resources'][row.name] = row.used
        stamps.append(row.updated_at or row.created_at)
    consumer = consumer_obj.get_by_uuids(ctx, [consumer_uuid]).get(consumer_uuid)
    return allocations, consumer, _newest(*stamps)


@db_api.reader
def get_for_provider(
        ctx: RequestContext, rp_uuid: str,
) -> tuple[sa.Row, dict[str, dict[str, Any]], datetime.datetime | None]:
    """A provider's allocations keyed by consumer uuid.

    Returns ``(provider row, {consumer uuid: {'resources': {class: amount},
    'consumer_generation': g or None}}, last_modified)``; raises
    ResourceProviderNotFound.
    """
    provider = gen_obj.provider_by_uuid(ctx, rp_uuid)
    rows = ctx.session.execute(
        sa.select(_ALLOC.c.consumer_id, _RC.c.name, _ALLOC.c.used,
                  _ALLOC.c.created_at, _ALLOC.c.updated_at)
        .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
        .where(_ALLOC.c.resource_provider_id == provider.id)).all()
    consumers = consumer_obj.get_by_uuids(ctx, {r.consumer_id for r in rows})
    allocations: dict[str, dict[str, Any]] = {}
    stamps = []
    for row in rows:
        entry = allocations.setdefault(row.consumer_id, {
            'resources': {},
            'consumer_generation': getattr(consumers.get(row.consumer_id),
                                           'generation', None)})
        entry['resources'][row.name] = row.used
        stamps.append(row.updated_at or row.created_at)
    return provider, allocations, _newest(*stamps)


@db_api.reader
def routing_tree(ctx: Any, provider_uuids: Iterable[str],
                 consumer_uuids: Iterable[str] = ()) -> str:
    """The key a claim is routed by: the root uuid of the first provider (sorted).

    With no provider named (a consumer being cleared or deleted), the
    consumers' current providers count; with none at all, the first consumer
    uuid.  An unknown provider routes by its own uuid (the write rejects it).
    """
    candidates = sorted(provider_uuids)
    if not candidates and consumer_uuids:
        candidates = sorted(set(ctx.session.execute(
            sa.select(_RP.c.uuid)
            .join(_ALLOC, _ALLOC.c.resource_provider_id == _RP.c.id)
            .where(_ALLOC.c.consumer_id.in_(list(consumer_uuids)))).scalars()))
    if not candidates:
        return sorted(consumer_uuids)[0] if consumer_uuids else ''
    root = _RP.alias('root')
    found = ctx.session.execute(
        sa.select(root.c.uuid).join(_RP, _RP.c.root_provider_id == root.c.id)
        .where(_RP.c.uuid == candidates[0])).scalar()
    return found or candidates[0]


_ROOT = _RP.alias('root')
_ROOTS_OF = in_list.Statement(
    lambda uuids: sa.select(_RP.c.uuid, _ROOT.c.uuid.label('root_uuid'))
    .join(_ROOT, _RP.c.root_provider_id == _ROOT.c.id).where(in_list.member(_RP.c.uuid, uuids)),
    'uuids')


def routing_roots(ctx: Any, provider_uuids: Iterable[str]) -> dict[str, str]:
    """``{provider uuid: its root's uuid}`` of the known providers among ``provider_uuids``.

    One read for many :func:`routing_tree` answers (a call of several
    claims whose trees the conductor has not cached); unknown providers are
    left out (:func:`routing_tree` routes them by their own uuid).  A Core
    read of a prebuilt statement (no ORM Session): a conductor runs it for
    every call naming a tree it has not cached yet.
    """
    with ctx.db.core_reader(ctx) as conn:
        return dict(_ROOTS_OF.execute(conn, uuids=sorted(set(provider_uuids))).all())


def some_routing_roots(ctx: Any, limit: int) -> dict[str, str]:
    """:func:`routing_roots` of up to ``limit`` providers, any (a conductor's start-up cache)."""
    statement = (sa.select(_RP.c.uuid, _ROOT.c.uuid)
                 .join(_ROOT, _RP.c.root_provider_id == _ROOT.c.id).limit(limit))
    with ctx.db.core_reader(ctx) as conn:
        return dict(conn.execute(statement).all())


# The claim path runs prebuilt Core statements on the session's connection:
# building a statement and its cache key per call cost more than running it,
# and so did re-rendering expanding IN lists (objects.sql.in_list).
_PROVIDERS_LOCKED = in_list.Statement(
    lambda uuids, ids: sa.select(_RP.c.id, _RP.c.uuid, _RP.c.generation)
    .where(sa.or_(in_list.member(_RP.c.uuid, uuids), in_list.member(_RP.c.id, ids)))
    .order_by(_RP.c.id).with_for_update(), 'uuids', 'ids')

# the same lock, answering also how many of the written consumers exist (0: all
# new, so their rows need not be read): one statement fewer per new consumer.
# FOR UPDATE locks the providers only (PostgreSQL, MySQL); should an engine lock
# the consumer rows it counts, those are rows this write updates anyway, after
# the providers, as it always did (and a count of absent uuids locks no row
# under READ COMMITTED).  The count is as fresh as the consumer SELECT it saves.
_PROVIDERS_LOCKED_COUNTING = in_list.Statement(
    lambda uuids, consumers: sa.select(
        _RP.c.id, _RP.c.uuid, _RP.c.generation,
        sa.select(sa.func.count()).select_from(_CONSUMER)
        .where(in_list.member(_CONSUMER.c.uuid, consumers)).scalar_subquery().label('existing'))
    .where(in_list.member(_RP.c.uuid, uuids))
    .order_by(_RP.c.id).with_for_update(), 'uuids', 'consumers')

_CLEARED_PROVIDERS = in_list.Statement(
    lambda consumers: sa.select(_ALLOC.c.resource_provider_id)
    .where(in_list.member(_ALLOC.c.consumer_id, consumers)), 'consumers')

_INV_ALLOC = _ALLOC.alias('used_alloc')


def _usage(*where):
    return (sa.select(sa.func.coalesce(sa.func.sum(_INV_ALLOC.c.used), 0))
            .where(_INV_ALLOC.c.resource_provider_id == _INV.c.resource_provider_id)
            .where(_INV_ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .where(*where).scalar_subquery())


def _inventory_and_usage(rp_ids, names, consumers=None):
    """Inventory, class id and current usage of the (provider, class) pairs written.

    With ``consumers`` also ``mine``: what those consumers hold of it now
    (the allocations their write replaces).
    """
    columns = [_INV.c.resource_provider_id, _INV.c.resource_class_id,
               _RC.c.name.label('class_name'), _INV.c.total, _INV.c.reserved,
               _INV.c.min_unit, _INV.c.max_unit, _INV.c.step_size,
               _INV.c.allocation_ratio, _usage().label('used')]
    if consumers is not None:
        columns.append(_usage(in_list.member(_INV_ALLOC.c.consumer_id, consumers)).label('mine'))
    return (sa.select(*columns).join(_RC, _RC.c.id == _INV.c.resource_class_id)
            .where(in_list.member(_INV.c.resource_provider_id, rp_ids))
            .where(in_list.member(_RC.c.name, names)))


_INVENTORY_AND_USAGE = {
    False: in_list.Statement(_inventory_and_usage, 'rp_ids', 'names'),
    True: in_list.Statement(_inventory_and_usage, 'rp_ids', 'names', 'consumers')}

_CLASS_NAMES = in_list.Statement(
    lambda names: sa.select(_RC.c.name).where(in_list.member(_RC.c.name, names)), 'names')

_INSERT_ALLOC = _ALLOC.insert()

_DELETE_MINE = in_list.Statement(
    lambda consumers: _ALLOC.delete().where(in_list.member(_ALLOC.c.consumer_id, consumers)),
    'consumers')


def _providers(conn, uuids=(), ids=()):
    """{uuid: row(id, uuid, generation)} for providers named by uuid or id.

    The rows are locked (in id order, so writers never deadlock) where the
    database can: a concurrent claim on the same provider then waits for
    this one instead of losing its compare-and-swap.  SQLite writers are
    serialised anyway.
    """
    if not uuids and not ids:
        return {}
    rows = _PROVIDERS_LOCKED.execute(conn, uuids=sorted(uuids), ids=sorted(ids))
    return {r.uuid: r for r in rows}


def _providers_counting(conn, uuids, consumers):
    """:func:`_providers` by uuid, and whether any of ``consumers`` exists.

    With no provider found the count is not answered: it is then taken as
    "maybe" (the consumers are read).
    """
    rows = _PROVIDERS_LOCKED_COUNTING.execute(conn, uuids=sorted(uuids),
                                              consumers=sorted(consumers)).all()
    existing = rows[0].existing if rows else 1
    return {r.uuid: r for r in rows}, existing


def _inventories(conn, rp_ids, names, consumer_of=None, consumers=()):
    """{(rp id, class name): inventory row with class id and current ``used``}.

    With ``consumers`` (uuids) the rows also say what those hold
    (``mine``).  Raises AllocationClassNotFound for a class that does not
    exist at all, naming the consumer that asked for it (``consumer_of``:
    {class: uuid}).
    """
    lists = {'rp_ids': sorted(rp_ids), 'names': sorted(names)}
    if consumers:
        lists['consumers'] = sorted(consumers)
    found = {(r.resource_provider_id, r.class_name): r for r in
             _INVENTORY_AND_USAGE[bool(consumers)].execute(conn, **lists)}
    missing = set(names) - {name for _, name in found}
    if missing:
        known = set(_CLASS_NAMES.execute(conn, names=sorted(missing)).scalars())
        for name in sorted(missing - known):
            raise exception.AllocationClassNotFound(
                name=name, consumer=(consumer_of or {}).get(name, ''))
    return found


def wanted_amounts(requests: list[ClaimConsumer], named: set[str],
                   providers: dict[str, Any]) -> tuple[dict[tuple[int, str], list[int]],
                                                       dict[str, str]]:
    """What ``requests`` ask of each ``(rp id, class name)``, and who asked first per class.

    Returns ``({(rp id, class): [amounts]}, {class: consumer uuid})``.

    ``named``: the provider uuids the requests name; ``providers``: the rows
    found of them (a missing one raises AllocationProviderNotFound, the
    first in uuid order).  The second dict names, per class, the first
    consumer asking for it (for AllocationClassNotFound).
    """
    for rp_uuid in sorted(named - set(providers)):
        raise exception.AllocationProviderNotFound(uuid=rp_uuid)
    wanted = collections.defaultdict(list)
    consumer_of: dict[str, str] = {}
    for req in requests:
        for rp_uuid, resources in req.allocations.items():
            for rc_name, amount in resources.items():
                wanted[(providers[rp_uuid].id, rc_name)].append(amount)
                consumer_of.setdefault(rc_name, req.uuid)
    return wanted, consumer_of


def _check_capacity(wanted, inventories, uuid_of):
    """Raise InvalidAllocation unless every (provider, class) total fits.

    ``wanted`` is {(rp id, class name): [amounts]}, ``inventories`` as from
    :func:`_inventories` (``mine``, when there, is the current usage of the
    consumers being rewritten: replaced, not added to).
    """
    for key in sorted(wanted):
        rp_id, rc_name = key
        rp_uuid = uuid_of[rp_id]
        inv = inventories.get(key)
        if inv is None:
            raise exception.InvalidAllocation(
                reason="Inventory for '%s' on resource provider '%s' not found."
                       % (rc_name, rp_uuid))
        for amount in wanted[key]:
            if not inv.min_unit <= amount <= inv.max_unit or amount % inv.step_size:
                raise exception.InvalidAllocation(
                    reason="Unable to allocate %d of '%s' on resource provider "
                           "'%s': the amount must be between min_unit %d and "
                           "max_unit %d and a multiple of step_size %d."
                           % (amount, rc_name, rp_uuid, inv.min_unit,
                              inv.max_unit, inv.step_size))
        before = int(inv.used)
        after = before - int(getattr(inv, 'mine', 0)) + sum(wanted[key])
        capacity = (inv.total - inv.reserved) * inv.allocation_ratio
        # a provider already over capacity accepts writes that do not add to it
        if after > capacity and after > before:
            raise exception.InvalidAllocation(
                reason="Unable to create allocation for '%s' on resource "
                       "provider '%s'. The requested amount would exceed the "
                       "capacity." % (rc_name, rp_uuid))


@db_api.writer
def replace(ctx: RequestContext, requests: list[ClaimConsumer],
            enforce_quota: bool = False, quota_source: Any = None) -> None:
    """Replace the complete allocations of one or several consumers atomically.

    ``requests``: one claim per consumer (common.claim_contract).

    With ``enforce_quota`` the projects' limits are checked in this
    transaction (objects.placement.quota: project rows locked before the write);
    ``quota_source`` is where the limits come from (None: berth's table).

    Raises ConsumerGenerationConflict (stale client view),
    ConcurrentUpdate (lost a race: retry), AllocationProviderNotFound,
    AllocationClassNotFound, InvalidAllocation or QuotaExceeded; nothing is
    written then.
    """
    quota = quota_obj.lock(ctx, {(r.project_id, r.user_id) for r in requests},
                           quota_source or quota_obj.TABLE) if enforce_quota else None
    apply_replace(ctx, check_replace(ctx, requests))
    if quota is not None:
        quota_obj.check(ctx, quota)


class _Plan:
    """What :func:`check_replace` read and decided, for :func:`apply_replace`."""

    __slots__ = ('requests', 'consumers', 'cleared', 'providers', 'inventories')

    def __init__(self, requests, consumers, cleared, providers, inventories):
        self.requests = requests
        self.consumers = consumers
        self.cleared = cleared
        self.providers = providers
        self.inventories = inventories


def check_replace(ctx: RequestContext, requests: list[ClaimConsumer]) -> _Plan:
    """The reads and checks of :func:`replace`, writing nothing; returns its plan.

    Must run in a writer transaction, followed by :func:`apply_replace` in
    the same one.  Raises what :func:`replace` raises (no quota check) after
    its queries have completed, so a refused claim leaves the transaction
    usable for others (conductor.manager.claim_batch).
    """
    conn = db_api.connection(ctx)
    uuids = [r.uuid for r in requests]
    named = {rp for r in requests for rp in r.allocations}
    cleared = [r.uuid for r in requests if not r.allocations]
    providers = None
    if named and not cleared:
        # generations first: any usage change after this read fails the swap below
        providers, existing = _providers_counting(conn, named, uuids)
        consumers = consumer_obj.get_by_uuids(ctx, uuids) if existing else {}
    else:
        consumers = consumer_obj.get_by_uuids(ctx, uuids)
    for req in requests:
        if req.check_generation:
            consumer_obj.check_generation(req.uuid, consumers.get(req.uuid), req.generation)
    if providers is None:
        # providers whose allocations are cleared count as written (3.2.1)
        cleared_ids = set()
        if cleared and consumers:
            cleared_ids = set(_CLEARED_PROVIDERS.execute(
                conn, consumers=cleared).scalars())
        providers = _providers(conn, uuids=named, ids=cleared_ids)
    wanted, consumer_of = wanted_amounts(requests, named, providers)
    # a consumer that does not exist yet holds nothing (with one that does,
    # what all of them hold is replaced, as apply_replace deletes it)
    inventories = _inventories(conn, {rp for rp, _ in wanted}, {rc for _, rc in wanted},
                               consumer_of, uuids if consumers else ()) if wanted else {}
    _check_capacity(wanted, inventories, {p.id: p.uuid for p in providers.values()})
    return _Plan(requests, consumers, cleared, providers, inventories)


def insert_rows(conn: Any, requests: list[ClaimConsumer], providers: dict[str, Any],
                inventories: dict[tuple[int, str], Any]) -> None:
    """Insert the allocation rows of ``requests`` (checked: every provider and class known)."""
    now = models._now()
    rows = [{'resource_provider_id': providers[rp_uuid].id,
             'resource_class_id': inventories[(providers[rp_uuid].id,
                                               rc_name)].resource_class_id,
             'consumer_id': req.uuid, 'used': amount, 'created_at': now}
            for req in requests
            for rp_uuid, resources in req.allocations.items()
            for rc_name, amount in resources.items()]
    if rows:
        conn.execute(_INSERT_ALLOC, rows)


def apply_replace(ctx: RequestContext, plan: _Plan) -> None:
    """The writes of :func:`replace` for a plan :func:`check_replace` made.

    May still raise ConcurrentUpdate (a concurrent writer won a swap or
    created the same consumer); the caller's transaction must then be rolled
    back, with whatever this wrote.
    """
    conn = db_api.connection(ctx)
    requests, providers, inventories = plan.requests, plan.providers, plan.inventories
    for req in requests:
        consumer_obj.prepare(ctx, req.uuid, plan.consumers.get(req.uuid),
                             req.project_id, req.user_id, req.consumer_type)
    if plan.consumers:      # only an existing consumer holds allocations
        _DELETE_MINE.execute(conn, consumers=[r.uuid for r in requests])
    insert_rows(conn, requests, providers, inventories)
    # one compare-and-swap per provider, in one statement (rows locked in check)
    if providers:
        gen_obj.bump_providers(ctx, {rp.id: rp.generation for rp in providers.values()})
    if plan.cleared:
        consumer_obj.delete_unused(ctx, plan.cleared)


@db_api.writer
def delete_consumer(ctx: RequestContext, consumer_uuid: str) -> None:
    """Remove every allocation of a consumer and the consumer itself.

    Provider generations are not bumped (Placement's rule); raises
    ConsumerAllocationsNotFound when the consumer holds nothing.
    """
    res = ctx.session.execute(_ALLOC.delete().where(_ALLOC.c.consumer_id == consumer_uuid))
    if cast(sa.CursorResult, res).rowcount == 0:
        raise exception.ConsumerAllocationsNotFound(uuid=consumer_uuid)
    consumer_obj.delete_unused(ctx, [consumer_uuid])
