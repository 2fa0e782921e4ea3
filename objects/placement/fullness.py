"""What is full: capacity, usage and free amount per class, and the fullest providers.

Read-only, for ``/metrics`` (read at scrape time) and the status page
(objects.baremetal.fullness counts the nodes).  Each
function is one aggregate statement, whatever the size of the cloud: the
fullest providers come out of one windowed query (at most ``top`` rows per
class), never a walk over every provider.

Capacity is ``(total - reserved) * allocation_ratio`` (rounded down), used
the sum of the allocations, free ``capacity - used`` (negative when an
operator lowered a total below what is allocated).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sqlalchemy as sa

from common.context import RequestContext
from db import api as db_api
from db import models

_INV = models.Inventory.__table__
_RC = models.ResourceClass.__table__
_ALLOC = models.Allocation.__table__
_RP = models.ResourceProvider.__table__


@dataclasses.dataclass
class Fullness:
    """One resource class of one provider (or, ``provider`` None, of the cloud)."""
    resource_class: str
    capacity: int
    used: int
    provider: str | None = None          # uuid
    name: str | None = None

    @property
    def free(self) -> int:
        return self.capacity - self.used

    @property
    def ratio(self) -> float:
        """used / capacity (1.0 when there is no capacity at all)."""
        return self.used / self.capacity if self.capacity > 0 else 1.0


def _per_inventory() -> Any:
    """SELECT per inventory row: provider id, class id, capacity, used."""
    used = (sa.select(_ALLOC.c.resource_provider_id.label('rp_id'),
                      _ALLOC.c.resource_class_id.label('rc_id'),
                      sa.func.sum(_ALLOC.c.used).label('used'))
            .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id)
            .subquery())
    capacity = (_INV.c.total - _INV.c.reserved) * _INV.c.allocation_ratio
    return (sa.select(_INV.c.resource_provider_id.label('rp_id'),
                      _INV.c.resource_class_id.label('rc_id'),
                      capacity.label('capacity'),
                      sa.func.coalesce(used.c.used, 0).label('used'))
            .select_from(_INV.outerjoin(used, sa.and_(
                used.c.rp_id == _INV.c.resource_provider_id,
                used.c.rc_id == _INV.c.resource_class_id)))
            .subquery())


@db_api.reader
def by_class(ctx: RequestContext) -> list[Fullness]:
    """Capacity and usage per resource class with inventory, cloud-wide, by name."""
    inv = _per_inventory()
    rows = ctx.session.execute(
        sa.select(_RC.c.name, sa.func.sum(inv.c.capacity), sa.func.sum(inv.c.used))
        .select_from(inv.join(_RC, _RC.c.id == inv.c.rc_id))
        .group_by(_RC.c.name).order_by(_RC.c.name))
    return [Fullness(name, int(cap or 0), int(used or 0)) for name, cap, used in rows]


@db_api.reader
def fullest(ctx: RequestContext, top: int) -> list[Fullness]:
    """The ``top`` fullest providers of every class (used / capacity), by class.

    Fullest first; ties (equal ratios) by provider uuid, so the answer is
    the same on every read.  Inventories without capacity, or with nothing
    used, are left out (an empty provider is not full).
    """
    if top <= 0:
        return []
    inv = _per_inventory()
    ratio = sa.cast(inv.c.used, sa.Float) / inv.c.capacity
    rank = sa.func.row_number().over(partition_by=inv.c.rc_id,
                                     order_by=(ratio.desc(), _RP.c.uuid)).label('rank')
    ranked = (sa.select(_RC.c.name.label('rc'), _RP.c.uuid, _RP.c.name.label('rp_name'),
                        inv.c.capacity, inv.c.used, ratio.label('ratio'), rank)
              .select_from(inv.join(_RC, _RC.c.id == inv.c.rc_id)
                           .join(_RP, _RP.c.id == inv.c.rp_id))
              .where(inv.c.capacity > 0).where(inv.c.used > 0).subquery())
    rows = ctx.session.execute(
        sa.select(ranked.c.rc, ranked.c.uuid, ranked.c.rp_name, ranked.c.capacity,
                  ranked.c.used)
        .where(ranked.c.rank <= top)
        .order_by(ranked.c.rc, ranked.c.rank))
    return [Fullness(rc, int(cap), int(used), provider=uuid, name=name)
            for rc, uuid, name, cap, used in rows]
