"""Resource classes: the standard set from os-resource-classes plus CUSTOM_* ones."""

from __future__ import annotations

from collections.abc import Iterable
import dataclasses
import datetime
from typing import cast

import os_resource_classes
from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models

_RC = models.ResourceClass.__table__
_INV = models.Inventory.__table__

STANDARDS = frozenset(os_resource_classes.STANDARDS)


_STANDARD_RANK = {name: i for i, name in enumerate(os_resource_classes.STANDARDS)}


def is_custom(name: str) -> bool:
    return name.startswith(os_resource_classes.CUSTOM_NAMESPACE)


def placement_order(name: str, rc_id: int) -> tuple[int, int]:
    """A sort key putting classes in Placement's id order.

    Placement numbers the standard classes as os-resource-classes lists them
    (VCPU, MEMORY_MB, DISK_GB, ...) and custom ones after them as they are
    made; berth's own ids number the standard classes by name.
    """
    rank = _STANDARD_RANK.get(name)
    return (0, rank) if rank is not None else (1, rc_id)


@dataclasses.dataclass
class ResourceClass:
    id: int
    name: str
    created_at: datetime.datetime
    updated_at: datetime.datetime | None = None

    @property
    def is_standard(self) -> bool:
        return self.name in STANDARDS


def _from_row(row):
    return ResourceClass(row.id, row.name, row.created_at, row.updated_at)


@db_api.writer
def sync_standard(ctx: RequestContext) -> int:
    """Insert the standard classes the database does not have yet."""
    have = set(ctx.session.execute(sa.select(_RC.c.name)).scalars())
    missing = sorted(STANDARDS - have)
    if missing:
        now = models._now()
        ctx.session.execute(_RC.insert(), [{'name': n, 'created_at': now}
                                           for n in missing])
    return len(missing)


@db_api.reader
def get_all(ctx: RequestContext) -> list[ResourceClass]:
    rows = ctx.session.execute(sa.select(_RC).order_by(_RC.c.id))
    return [_from_row(r) for r in rows]


@db_api.reader
def get_by_name(ctx: RequestContext, name: str) -> ResourceClass:
    row = ctx.session.execute(sa.select(_RC).where(_RC.c.name == name)).first()
    if row is None:
        raise exception.ResourceClassNotFound(name=name)
    return _from_row(row)


def _ids_by_name(ctx: RequestContext, names: Iterable[str]) -> dict[str, int]:
    """Map class names to ids; raise ResourceClassNotFound for the first unknown."""
    names = set(names)
    found = dict(ctx.session.execute(
        sa.select(_RC.c.name, _RC.c.id).where(_RC.c.name.in_(names))).all())
    for name in sorted(names - set(found)):
        raise exception.ResourceClassNotFound(name=name)
    return found


ids_by_name = db_api.reader(_ids_by_name)
# for a read that may lag (an open provider search): the replica, and the
# primary again for a name the replica has not replayed yet
ids_by_name_may_lag = db_api.lagging_reader(
    recheck_on=(exception.ResourceClassNotFound,))(_ids_by_name)


@db_api.writer
def create(ctx: RequestContext, name: str) -> ResourceClass:
    try:
        ctx.session.execute(_RC.insert().values(name=name, created_at=models._now()))
    except db_exc.DBDuplicateEntry:
        raise exception.ResourceClassExists(name=name)
    return get_by_name(ctx, name)


@db_api.writer
def ensure(ctx: RequestContext, name: str) -> tuple[ResourceClass, bool]:
    """Create ``name`` unless it exists; return (class, created)."""
    row = ctx.session.execute(sa.select(_RC).where(_RC.c.name == name)).first()
    if row is not None:
        return _from_row(row), False
    return create(ctx, name), True


@db_api.writer
def rename(ctx: RequestContext, old: str, new: str) -> ResourceClass:
    if old in STANDARDS:
        raise exception.ResourceClassCannotUpdateStandard(name=old)
    try:
        res = ctx.session.execute(_RC.update().where(_RC.c.name == old)
                                  .values(name=new, updated_at=models._now()))
    except db_exc.DBDuplicateEntry:
        raise exception.ResourceClassExists(name=new)
    if cast(sa.CursorResult, res).rowcount == 0:
        raise exception.ResourceClassNotFound(name=old)
    return get_by_name(ctx, new)


@db_api.writer
def destroy(ctx: RequestContext, name: str) -> None:
    if name in STANDARDS:
        raise exception.ResourceClassCannotDeleteStandard(name=name)
    rc = get_by_name(ctx, name)
    # the inventory check and the delete are one statement, so an inventory
    # added concurrently cannot slip between them
    res = ctx.session.execute(
        _RC.delete().where(_RC.c.id == rc.id).where(
            ~sa.exists().where(_INV.c.resource_class_id == rc.id)))
    if cast(sa.CursorResult, res).rowcount == 0:
        raise exception.ResourceClassInUse(name=name)
