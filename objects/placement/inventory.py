"""Inventories: what one provider offers of each resource class.

Every write bumps the provider generation with the compare-and-swap in
``objects.placement.generation`` inside the same transaction as the change.

Removing inventory that has allocations is refused, and the check must not
race with an allocation being written.  Two things make it safe:

* the generation is bumped (conditional UPDATE of the provider row) *before*
  anything is removed.  Allocation writers bump the generation of every
  provider they touch in their own transaction, so whichever transaction
  commits second finds the generation moved and fails (409 here, a server
  side retry there).  On PostgreSQL/MySQL the UPDATE also takes the row lock,
  so the two transactions cannot interleave; on SQLite writers are serialised
  by BEGIN IMMEDIATE anyway.
* the DELETE itself carries ``NOT EXISTS (allocations of that class on that
  provider)``, so even a writer that did not bump the generation (a bug, or a
  reshaper step) cannot leave allocations without inventory: fewer rows
  deleted than asked means a class is in use and the transaction rolls back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import dataclasses
import datetime
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import generation
from objects.placement import resource_class as rc_obj

_INV = models.Inventory.__table__
_RC = models.ResourceClass.__table__
_ALLOC = models.Allocation.__table__

MAX_INT = 2147483647
FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size', 'allocation_ratio')
DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': MAX_INT, 'step_size': 1,
            'allocation_ratio': 1.0}


@dataclasses.dataclass
class Inventory:
    resource_class: str
    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = MAX_INT
    step_size: int = 1
    allocation_ratio: float = 1.0
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None

    @property
    def capacity(self) -> int:
        return int((self.total - self.reserved) * self.allocation_ratio)

    def record(self) -> dict[str, int | float]:
        """The API record: the six fields, allocation_ratio as a float."""
        out = {f: getattr(self, f) for f in FIELDS}
        out['allocation_ratio'] = float(out['allocation_ratio'])
        return out


def from_record(resource_class: str, record: Mapping[str, Any]) -> Inventory:
    """An Inventory from an API record, defaults applied to missing fields."""
    values: dict[str, Any] = dict(DEFAULTS)
    values.update({f: record[f] for f in FIELDS if f in record})
    values['allocation_ratio'] = float(values['allocation_ratio'])
    return Inventory(resource_class=resource_class, **values)


def check_capacity(rp_uuid: str, inv: Inventory, allow_zero: bool) -> None:
    """InvalidInventory unless capacity > 0 (>= 0 when ``allow_zero``, MV >= 1.26)."""
    cap = inv.capacity
    if cap < 0 or (cap == 0 and not allow_zero):
        if inv.reserved > inv.total or (inv.reserved == inv.total and not allow_zero):
            # Placement's words for its own (reserved-only) check
            reason = ('The reserved value is greater than %stotal.'
                      % ('' if allow_zero else 'or equal to '))
        else:
            reason = ('capacity (total - reserved) * allocation_ratio = %d must be '
                      '%s 0.' % (cap, '>=' if allow_zero else '>'))
        raise exception.InvalidInventory(
            resource_class=inv.resource_class, uuid=rp_uuid, reason=reason)


def _select():
    return (sa.select(_INV, _RC.c.name.label('rc_name'))
            .join(_RC, _RC.c.id == _INV.c.resource_class_id))


def _from_row(row):
    return Inventory(resource_class=row.rc_name, total=row.total, reserved=row.reserved,
                     min_unit=row.min_unit, max_unit=row.max_unit,
                     step_size=row.step_size,
                     allocation_ratio=float(row.allocation_ratio),
                     created_at=row.created_at, updated_at=row.updated_at)


def _values(inv):
    return {f: getattr(inv, f) for f in FIELDS}


def _all(ctx, rp_id):
    rows = ctx.session.execute(
        _select().where(_INV.c.resource_provider_id == rp_id).order_by(_RC.c.name))
    return [_from_row(r) for r in rows]


def _one(ctx, rp_id, rc_name):
    row = ctx.session.execute(
        _select().where(_INV.c.resource_provider_id == rp_id)
        .where(_RC.c.name == rc_name)).first()
    return _from_row(row) if row is not None else None


def _check_generation(rp, expected):
    if rp.generation != expected:
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason='generation conflict (expected %d, current %d); re-read and retry'
                   % (expected, rp.generation))


def _in_use(ctx, rp_id, rc_ids):
    """Names of the classes among ``rc_ids`` that have allocations on the provider."""
    # in Placement's class id order (its GROUP BY resource_class_id), as it
    # names them: nova's report client copies this message
    rows = ctx.session.execute(
        sa.select(_RC.c.name, _RC.c.id).where(_RC.c.id.in_(rc_ids)).where(
            sa.exists().where(_ALLOC.c.resource_provider_id == rp_id)
            .where(_ALLOC.c.resource_class_id == _RC.c.id))).all()
    return [name for name, _ in sorted(rows, key=lambda r: rc_obj.placement_order(*r))]


def _delete_unused(ctx, rp, rc_ids):
    """Delete the provider's inventory of ``rc_ids`` iff none of them is allocated.

    The allocation check is part of the DELETE statement (see the module
    docstring); raises InventoryInUse, and the caller's transaction rolls back.
    """
    if not rc_ids:
        return
    res = ctx.session.execute(
        _INV.delete().where(_INV.c.resource_provider_id == rp.id)
        .where(_INV.c.resource_class_id.in_(rc_ids))
        .where(~sa.exists().where(_ALLOC.c.resource_provider_id == rp.id)
               .where(_ALLOC.c.resource_class_id == _INV.c.resource_class_id)))
    if res.rowcount != len(rc_ids):
        raise exception.InventoryInUse(
            resource_classes=', '.join(_in_use(ctx, rp.id, rc_ids)), uuid=rp.uuid)


@db_api.reader
def provider_generation(ctx: RequestContext, rp_uuid: str) -> int:
    """The provider's generation; ResourceProviderNotFound when it does not exist."""
    return generation.provider_by_uuid(ctx, rp_uuid).generation


@db_api.reader
def get_all(ctx: RequestContext, rp_uuid: str) -> tuple[int, list[Inventory]]:
    """(provider generation, [Inventory]) sorted by class name."""
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    return rp.generation, _all(ctx, rp.id)


@db_api.reader
def get_one(ctx: RequestContext, rp_uuid: str, rc_name: str) -> tuple[int, Inventory]:
    """(provider generation, Inventory); InventoryNotFound when there is none."""
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    inv = _one(ctx, rp.id, rc_name)
    if inv is None:
        raise exception.InventoryNotFound(resource_class=rc_name, uuid=rp_uuid)
    return rp.generation, inv


@db_api.writer
def add(ctx: RequestContext, rp_uuid: str, inv: Inventory,
        allow_zero_capacity: bool) -> tuple[int, Inventory]:
    """Add inventory of one new class; (new generation, Inventory).

    ConcurrentUpdate when the provider already has inventory of that class.
    """
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    check_capacity(rp_uuid, inv, allow_zero_capacity)
    rc_id = rc_obj.ids_by_name(ctx, [inv.resource_class])[inv.resource_class]
    if _one(ctx, rp.id, inv.resource_class) is not None:
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason='inventory of %s already exists on %s'
                   % (inv.resource_class, rp_uuid))
    gen = generation.bump_provider(ctx, rp.id, rp.generation)
    try:
        with ctx.session.begin_nested():
            ctx.session.execute(_INV.insert().values(
                resource_provider_id=rp.id, resource_class_id=rc_id,
                created_at=models._now(), **_values(inv)))
    except db_exc.DBDuplicateEntry:
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason='inventory of %s was added concurrently' % inv.resource_class)
    return gen, _one(ctx, rp.id, inv.resource_class)


@db_api.writer
def replace_all(ctx: RequestContext, rp_uuid: str, expected_generation: int,
                inventories: Iterable[Inventory],
                allow_zero_capacity: bool) -> tuple[int, list[Inventory]]:
    """Make the provider's inventory exactly ``inventories``; (new generation, list).

    The generation always moves, even when nothing changed.
    """
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    _check_generation(rp, expected_generation)
    rc_ids = rc_obj.ids_by_name(ctx, [i.resource_class for i in inventories])
    for inv in inventories:
        check_capacity(rp_uuid, inv, allow_zero_capacity)
    # bump first: see the module docstring
    gen = generation.bump_provider(ctx, rp.id, expected_generation)
    have = {i.resource_class for i in _all(ctx, rp.id)}
    want = {i.resource_class: i for i in inventories}
    removed = sorted(have - set(want))
    if removed:
        _delete_unused(ctx, rp, list(rc_obj.ids_by_name(ctx, removed).values()))
    now = models._now()
    for name, inv in sorted(want.items()):
        if name in have:
            ctx.session.execute(
                _INV.update().where(_INV.c.resource_provider_id == rp.id)
                .where(_INV.c.resource_class_id == rc_ids[name])
                .values(updated_at=now, **_values(inv)))
        else:
            ctx.session.execute(_INV.insert().values(
                resource_provider_id=rp.id, resource_class_id=rc_ids[name],
                created_at=now, **_values(inv)))
    return gen, _all(ctx, rp.id)


@db_api.writer
def update_one(ctx: RequestContext, rp_uuid: str, expected_generation: int, inv: Inventory,
               allow_zero_capacity: bool) -> tuple[int, Inventory]:
    """Change the provider's existing inventory of one class; (new generation, Inventory).

    ResourceClassNotFound for a class that does not exist at all,
    InventoryNotFound for an existing class the provider has no inventory of.
    Shrinking below current usage is allowed.
    """
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    _check_generation(rp, expected_generation)
    check_capacity(rp_uuid, inv, allow_zero_capacity)
    rc_id = rc_obj.ids_by_name(ctx, [inv.resource_class])[inv.resource_class]
    if _one(ctx, rp.id, inv.resource_class) is None:
        raise exception.InventoryNotFound(resource_class=inv.resource_class,
                                          uuid=rp_uuid)
    gen = generation.bump_provider(ctx, rp.id, expected_generation)
    ctx.session.execute(
        _INV.update().where(_INV.c.resource_provider_id == rp.id)
        .where(_INV.c.resource_class_id == rc_id)
        .values(updated_at=models._now(), **_values(inv)))
    return gen, _one(ctx, rp.id, inv.resource_class)


@db_api.writer
def delete_one(ctx: RequestContext, rp_uuid: str, rc_name: str) -> int:
    """Remove the provider's inventory of one class; return the new generation.

    InventoryNotFound when there is none (including unknown classes),
    InventoryInUse when it has allocations.
    """
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    row = ctx.session.execute(
        sa.select(_INV.c.resource_class_id).join(_RC, _RC.c.id == _INV.c.resource_class_id)
        .where(_INV.c.resource_provider_id == rp.id).where(_RC.c.name == rc_name)).first()
    if row is None:
        raise exception.InventoryNotFound(resource_class=rc_name, uuid=rp_uuid)
    gen = generation.bump_provider(ctx, rp.id, rp.generation)
    _delete_unused(ctx, rp, [row.resource_class_id])
    return gen


@db_api.writer
def delete_all(ctx: RequestContext, rp_uuid: str) -> int:
    """Remove every inventory of the provider; the generation always moves."""
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    gen = generation.bump_provider(ctx, rp.id, rp.generation)
    rc_ids = list(ctx.session.execute(
        sa.select(_INV.c.resource_class_id)
        .where(_INV.c.resource_provider_id == rp.id)).scalars())
    _delete_unused(ctx, rp, rc_ids)
    return gen
