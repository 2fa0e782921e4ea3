"""Usages of one provider: the sum of allocations per inventoried class.

Project/user usages (GET /usages) live in ``objects/placement/project_usage.py``.
"""

from __future__ import annotations

import sqlalchemy as sa

from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import generation

_INV = models.Inventory.__table__
_RC = models.ResourceClass.__table__
_ALLOC = models.Allocation.__table__


@db_api.reader
def get_provider_usages(ctx: RequestContext, rp_uuid: str) -> tuple[int, dict[str, int]]:
    """(provider generation, {class name: used}) with one entry per inventoried class.

    A class with inventory and no allocations reports 0.
    """
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    used = (sa.select(sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0))
            .where(_ALLOC.c.resource_provider_id == rp.id)
            .where(_ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())
    rows = ctx.session.execute(
        sa.select(_RC.c.name, used.label('used'))
        .select_from(_INV.join(_RC, _RC.c.id == _INV.c.resource_class_id))
        .where(_INV.c.resource_provider_id == rp.id))
    return rp.generation, {name: int(u) for name, u in rows}
