"""Ironic's chassis: rows, lookups by uuid, listing and writes.

A chassis only groups nodes (``nodes.chassis_id``); deleting one that still
holds nodes is refused (ChassisNotEmpty), as Ironic refuses it.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any, TypedDict

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.baremetal import node as node_obj

_CHASSIS = models.Chassis.__table__
_NODE = models.Node.__table__
SORT_KEYS = ('id', 'uuid', 'description', 'created_at', 'updated_at')


@dataclasses.dataclass
class Chassis:
    id: int
    uuid: str
    description: str
    extra: dict
    created_at: datetime.datetime
    updated_at: datetime.datetime


class ChassisValues(TypedDict, total=False):
    """The columns a chassis write sets, by name (absent: unchanged, or NULL on create).

    ``extra`` is a JSON object for the JSON column, never None: a None there
    would be stored as JSON ``null``, not as SQL NULL.
    """
    uuid: str
    description: str | None
    extra: dict[str, Any]


def _from_row(row: Any) -> Chassis:
    return Chassis(id=row.id, uuid=row.uuid, description=row.description,
                   extra=row.extra or {}, created_at=row.created_at,
                   updated_at=row.updated_at)


def get_in_txn(ctx: RequestContext, uuid: str) -> Chassis:
    """The chassis ``uuid`` inside the caller's transaction (ChassisNotFound)."""
    row = None
    if uuidutils.is_uuid_like(uuid):
        row = ctx.session.execute(sa.select(_CHASSIS).where(_CHASSIS.c.uuid == uuid)
                                  ).first()
    if row is None:
        raise exception.ChassisNotFound(chassis=uuid)
    return _from_row(row)


@db_api.reader
def get(ctx: RequestContext, uuid: str) -> Chassis:
    return get_in_txn(ctx, uuid)


@db_api.reader
def list_chassis(ctx: RequestContext, limit: int | None = None, marker: str | None = None,
                 sort_key: str = 'id', sort_dir: str = 'asc') -> list[Chassis]:
    """One page of chassis after ``marker`` (a uuid; Invalid when unknown)."""
    q = node_obj.paginate(sa.select(_CHASSIS), _CHASSIS, limit, marker, sort_key,
                          sort_dir, lambda m: get_in_txn(ctx, m),
                          exception.ChassisNotFound)
    return [_from_row(r) for r in ctx.session.execute(q).all()]


@db_api.writer
def create(ctx: RequestContext, values: ChassisValues) -> Chassis:
    """Insert a chassis; ChassisAlreadyExists on a clashing uuid."""
    uuid = values.get('uuid') or uuidutils.generate_uuid()
    row: ChassisValues = {**values, 'uuid': uuid}
    try:
        with ctx.session.begin_nested():
            ctx.session.execute(_CHASSIS.insert().values(created_at=models._now(), **row))
    except db_exc.DBDuplicateEntry:
        raise exception.ChassisAlreadyExists(uuid=uuid)
    return get_in_txn(ctx, uuid)


@db_api.writer
def update(ctx: RequestContext, uuid: str, values: ChassisValues) -> Chassis:
    chassis = get_in_txn(ctx, uuid)
    if values:
        ctx.session.execute(_CHASSIS.update().where(_CHASSIS.c.id == chassis.id)
                            .values(updated_at=models._now(), **values))
    return get_in_txn(ctx, uuid)


@db_api.writer
def destroy(ctx: RequestContext, uuid: str) -> None:
    """Delete the chassis ``uuid``; ChassisNotEmpty while a node is in it."""
    chassis = get_in_txn(ctx, uuid)
    held = ctx.session.execute(sa.select(_NODE.c.id).where(
        _NODE.c.chassis_id == chassis.id).limit(1)).first()
    if held is not None:
        raise exception.ChassisNotEmpty(chassis=chassis.uuid)
    try:
        with ctx.session.begin_nested():
            ctx.session.execute(_CHASSIS.delete().where(_CHASSIS.c.id == chassis.id))
    except db_exc.DBReferenceError:     # a node joined it meanwhile
        raise exception.ChassisNotEmpty(chassis=chassis.uuid)
