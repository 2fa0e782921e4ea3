"""Set-based loading of the provider data a candidate search needs.

A handful of queries per batch of trees, never one per provider: the roots
that can matter (from the inventories of the requested classes, in root
order so a limited search can stop early), then the providers, inventories
with usage, traits and aggregates of those trees.
"""

import sqlalchemy as sa

from db import models

_RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RPT = models.ResourceProviderTrait.__table__
_TRAIT = models.Trait.__table__
_RPA = models.ResourceProviderAggregate.__table__

CHUNK = 500

# inventory tuple positions
MIN_UNIT, MAX_UNIT, STEP, FREE, CAPACITY, USED = range(6)


class Provider:
    """One provider as the search sees it.

    ``inv`` maps class id -> (min_unit, max_unit, step, free, capacity, used)
    where capacity = int((total - reserved) * allocation_ratio) and free =
    capacity - used.  ``traits`` maps trait id -> name.
    """
    __slots__ = ('id', 'uuid', 'parent_id', 'root_id', 'inv', 'traits', 'aggs',
                 'sharing')

    def __init__(self, rp_id, uuid, parent_id, root_id):
        self.id = rp_id
        self.uuid = uuid
        self.parent_id = parent_id
        self.root_id = root_id
        self.inv = {}
        self.traits = {}
        self.aggs = frozenset()
        self.sharing = False

    def __repr__(self):
        return 'Provider(%d)' % self.id


def _chunks(ids):
    ids = list(ids)
    for i in range(0, len(ids), CHUNK):
        yield ids[i:i + CHUNK]


def _roots_query(class_ids):
    return (sa.select(_RP.c.root_provider_id).distinct()
            .select_from(_RP.join(_INV, _INV.c.resource_provider_id == _RP.c.id))
            .where(_INV.c.resource_class_id.in_(sorted(class_ids))))


def roots_with_classes(ctx, class_ids, after=None, limit=None):
    """(sorted root ids, more) for the trees holding inventory of ``class_ids``.

    With ``limit`` the scan walks the root index in order from ``after``
    (probing inventories per provider) and stops after ``limit`` providers,
    so a limited search reads about what it returns; ``more`` tells whether
    it stopped early.
    """
    if limit is None:
        q = _roots_query(class_ids)
        if after is not None:
            q = q.where(_RP.c.root_provider_id > after)
        return sorted(ctx.session.execute(q).scalars().all()), False
    q = (sa.select(_RP.c.root_provider_id)
         .where(sa.exists().where(_INV.c.resource_provider_id == _RP.c.id)
                .where(_INV.c.resource_class_id.in_(sorted(class_ids))))
         .order_by(_RP.c.root_provider_id).limit(limit))
    if after is not None:
        q = q.where(_RP.c.root_provider_id > after)
    rows = ctx.session.execute(q).scalars().all()
    return sorted(set(rows)), len(rows) == limit


def _usage():
    return (sa.select(sa.func.sum(_ALLOC.c.used))
            .where(_ALLOC.c.resource_provider_id == _INV.c.resource_provider_id)
            .where(_ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())


def load_trees(ctx, root_ids, with_aggregates, into):
    """Read every provider of the trees rooted at ``root_ids`` into ``into``.

    ``into`` maps provider id -> Provider; trees already there are not read
    again.  Inventories come with their current usage, traits with their
    names; aggregates are read only when ``with_aggregates``.  Returns the
    newly read providers.
    """
    roots = [r for r in root_ids if r not in into]
    loaded = []
    for chunk in _chunks(roots):
        loaded.extend(_load(ctx, _RP.c.root_provider_id.in_(chunk), with_aggregates,
                            into))
    return loaded


def load_trees_with_classes(ctx, class_ids, with_aggregates, into):
    """Like load_trees for every tree holding inventory of any of ``class_ids``.

    One statement per table, the trees chosen by a sub-select: no id lists.
    Trees already in ``into`` are kept as they are.
    """
    return _load(ctx, _RP.c.root_provider_id.in_(_roots_query(class_ids)),
                 with_aggregates, into)


def _load(ctx, where, with_aggregates, into):
    """Read the providers matching ``where`` (not yet in ``into``) into ``into``."""
    # providers with their inventories (and usage) in one statement
    rows = ctx.session.execute(
        sa.select(_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id,
                  _RP.c.root_provider_id, _INV.c.resource_class_id,
                  _INV.c.total, _INV.c.reserved, _INV.c.min_unit,
                  _INV.c.max_unit, _INV.c.step_size, _INV.c.allocation_ratio,
                  _usage())
        .select_from(_RP.outerjoin(_INV, _INV.c.resource_provider_id == _RP.c.id))
        .where(where)).all()
    new = {}
    get = new.get
    for (rp_id, uuid, parent_id, root_id, rc_id, total, reserved, min_unit,
         max_unit, step, ratio, used) in rows:
        p = get(rp_id)
        if p is None:
            if rp_id in into:
                continue
            p = new[rp_id] = Provider(rp_id, uuid, parent_id, root_id)
        if rc_id is not None:
            capacity = int((total - reserved) * ratio)
            used = used or 0
            p.inv[rc_id] = (min_unit, max_unit, step, capacity - used, capacity, used)
    rows = ctx.session.execute(
        sa.select(_RPT.c.resource_provider_id, _RPT.c.trait_id, _TRAIT.c.name)
        .select_from(_RPT.join(_RP, _RP.c.id == _RPT.c.resource_provider_id)
                     .join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id))
        .where(where)).all()
    for rp_id, trait_id, name in rows:
        p = get(rp_id)
        if p is not None:
            p.traits[trait_id] = name
    if with_aggregates:
        aggs = {}
        rows = ctx.session.execute(
            sa.select(_RPA.c.resource_provider_id, _RPA.c.aggregate_id)
            .select_from(_RPA.join(_RP, _RP.c.id == _RPA.c.resource_provider_id))
            .where(where)).all()
        for rp_id, agg_id in rows:
            if rp_id in new:
                aggs.setdefault(rp_id, set()).add(agg_id)
        for rp_id, found in aggs.items():
            new[rp_id].aggs = frozenset(found)
    into.update(new)
    return list(new.values())


def sharing_providers(ctx, sharing_trait):
    """{sharing provider id: (its root id, frozenset of its aggregate ids)}."""
    if sharing_trait is None:
        return {}
    rows = ctx.session.execute(
        sa.select(_RPT.c.resource_provider_id, _RP.c.root_provider_id,
                  _RPA.c.aggregate_id)
        .select_from(_RPT.join(_RP, _RP.c.id == _RPT.c.resource_provider_id)
                     .outerjoin(_RPA, _RPA.c.resource_provider_id == _RP.c.id))
        .where(_RPT.c.trait_id == sharing_trait)).all()
    found = {}
    for rp_id, root_id, agg_id in rows:
        found.setdefault(rp_id, (root_id, set()))[1].add(agg_id)
    return {rp_id: (root_id, frozenset(a for a in aggs if a is not None))
            for rp_id, (root_id, aggs) in found.items()}


def linked_roots(ctx, agg_ids, after=None, upper=None):
    """[(root id, aggregate id)] for the trees with a provider in ``agg_ids``.

    ``after``/``upper`` bound the root ids (after < root <= upper) so a
    limited search only reads the links of the trees it visits.
    """
    if not agg_ids:
        return []
    q = (sa.select(_RP.c.root_provider_id, _RPA.c.aggregate_id).distinct()
         .select_from(_RPA.join(_RP, _RP.c.id == _RPA.c.resource_provider_id))
         .where(_RPA.c.aggregate_id.in_(sorted(agg_ids))))
    if after is not None:
        q = q.where(_RP.c.root_provider_id > after)
    if upper is not None:
        q = q.where(_RP.c.root_provider_id <= upper)
    return ctx.session.execute(q).all()


def has_nested(ctx):
    """True when any provider has a parent."""
    return ctx.session.execute(
        sa.select(_RP.c.id).where(_RP.c.parent_provider_id.isnot(None)).limit(1)
    ).first() is not None
