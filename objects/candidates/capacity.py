"""The capacity rule of 3.1 as one set-based query: who can serve an amount alone."""

import sqlalchemy as sa

from db import models

_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__


def serves(rc_id, amount):
    """SQL condition on an inventories row: it can take ``amount`` more of ``rc_id``.

    Inventory present, min_unit <= amount <= max_unit, amount % step_size
    == 0 and used + amount <= (total - reserved) * allocation_ratio.
    """
    used = (sa.select(sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0))
            .where(_ALLOC.c.resource_provider_id == _INV.c.resource_provider_id)
            .where(_ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())
    return sa.and_(
        _INV.c.resource_class_id == rc_id,
        _INV.c.min_unit <= amount, _INV.c.max_unit >= amount,
        (amount % _INV.c.step_size) == 0,
        used + amount <= (_INV.c.total - _INV.c.reserved) * _INV.c.allocation_ratio)


def providers_query(amounts):
    """SELECT of the ids of the providers that can each serve every {class id: amount}."""
    return (sa.select(_INV.c.resource_provider_id)
            .where(sa.or_(*(serves(rc_id, amount)
                            for rc_id, amount in sorted(amounts.items()))))
            .group_by(_INV.c.resource_provider_id)
            .having(sa.func.count() == len(amounts)))


def provider_ids(ctx, amounts):
    """Ids of the providers that can each serve every {class id: amount} by themselves."""
    if not amounts:
        return set()
    return set(ctx.session.execute(providers_query(amounts)).scalars().all())
