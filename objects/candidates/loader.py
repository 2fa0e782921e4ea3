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
    capacity - used.  ``traits`` maps trait id -> name.  ``memo`` holds
    what searches derived from this provider (its summary as JSON): a
    provider is never changed once searched (the index replaces it), so
    neither is what was derived from it.  (Made with the provider: made
    lazily, by the first answer, the dicts were scattered among the
    answer's short-lived objects and kept their memory from being returned,
    85 MB of RSS at 100,000 computes, bench/region.py.)  ``row`` is the
    index's scan row of the provider (None outside the index): the index
    keeps one object per provider.
    """
    __slots__ = ('id', 'uuid', 'parent_id', 'root_id', 'inv', 'traits', 'aggs',
                 'sharing', 'memo', 'row')

    def __init__(self, rp_id, uuid, parent_id, root_id, inv=None, traits=None,
                 aggs=frozenset(), sharing=False, row=None):
        self.id = rp_id
        self.uuid = uuid
        self.parent_id = parent_id
        self.root_id = root_id
        self.inv = {} if inv is None else inv
        self.traits = {} if traits is None else traits
        self.aggs = aggs
        self.sharing = sharing
        self.memo = {}
        self.row = row

    def __repr__(self):
        return 'Provider(%d)' % self.id


def _chunks(ids):
    ids = list(ids)
    for i in range(0, len(ids), CHUNK):
        yield ids[i:i + CHUNK]


_NO_UPPER = 2 ** 62


# Statements are built once (bind parameters for what varies): building them
# per request cost more than running the small ones.
_CLASSES: sa.BindParameter[list[int]] = sa.bindparam('classes', expanding=True)
_TREE_RP = _RP.alias('tree_rp')
_TREE_INV = _INV.alias('tree_inv')
# the roots of the trees holding inventory of the classes
_ROOTS = (sa.select(_TREE_RP.c.root_provider_id).distinct()
          .select_from(_TREE_RP.join(_TREE_INV,
                                     _TREE_INV.c.resource_provider_id == _TREE_RP.c.id))
          .where(_TREE_INV.c.resource_class_id.in_(_CLASSES)))
_ALL_ROOTS = _ROOTS.where(_TREE_RP.c.root_provider_id > sa.bindparam('after'))
_ROOT_PAGE = (sa.select(_RP.c.root_provider_id)
              .where(sa.exists().where(_INV.c.resource_provider_id == _RP.c.id)
                     .where(_INV.c.resource_class_id.in_(_CLASSES)))
              .where(_RP.c.root_provider_id > sa.bindparam('after'))
              .order_by(_RP.c.root_provider_id).limit(sa.bindparam('limit')))


def roots_with_classes(ctx, class_ids, after=None, limit=None):
    """(sorted root ids, more) for the trees holding inventory of ``class_ids``.

    With ``limit`` the scan walks the root index in order from ``after``
    (probing inventories per provider) and stops after ``limit`` providers,
    so a limited search reads about what it returns; ``more`` tells whether
    it stopped early.
    """
    params = {'classes': sorted(class_ids), 'after': after if after is not None else -1}
    if limit is None:
        return sorted(ctx.session.execute(_ALL_ROOTS, params).scalars().all()), False
    params['limit'] = limit
    rows = ctx.session.execute(_ROOT_PAGE, params).scalars().all()
    return sorted(set(rows)), len(rows) == limit


def _usage():
    return (sa.select(sa.func.sum(_ALLOC.c.used))
            .where(_ALLOC.c.resource_provider_id == _INV.c.resource_provider_id)
            .where(_ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())


def _statements(where):
    """(providers with inventories, traits, aggregates) of the trees ``where`` picks."""
    return (
        sa.select(_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id,
                  _RP.c.root_provider_id, _INV.c.resource_class_id,
                  _INV.c.total, _INV.c.reserved, _INV.c.min_unit,
                  _INV.c.max_unit, _INV.c.step_size, _INV.c.allocation_ratio,
                  _usage())
        .select_from(_RP.outerjoin(_INV, _INV.c.resource_provider_id == _RP.c.id))
        .where(where),
        sa.select(_RPT.c.resource_provider_id, _RPT.c.trait_id, _TRAIT.c.name)
        .select_from(_RPT.join(_RP, _RP.c.id == _RPT.c.resource_provider_id)
                     .join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id))
        .where(where),
        sa.select(_RPA.c.resource_provider_id, _RPA.c.aggregate_id)
        .select_from(_RPA.join(_RP, _RP.c.id == _RPA.c.resource_provider_id))
        .where(where))


_BY_ROOTS = _statements(_RP.c.root_provider_id.in_(sa.bindparam('roots', expanding=True)))
_BY_CLASSES = _statements(_RP.c.root_provider_id.in_(_ROOTS))


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
        loaded.extend(_load(ctx, _BY_ROOTS, {'roots': chunk}, with_aggregates, into))
    return loaded


def load_trees_with_classes(ctx, class_ids, with_aggregates, into):
    """Like load_trees for every tree holding inventory of any of ``class_ids``.

    One statement per table, the trees chosen by a sub-select: no id lists.
    Trees already in ``into`` are kept as they are.
    """
    return _load(ctx, _BY_CLASSES, {'classes': sorted(class_ids)}, with_aggregates, into)


def _load(ctx, statements, params, with_aggregates, into):
    """Read the providers ``statements`` pick (not yet in ``into``) into ``into``."""
    with_inventories, with_traits, with_aggs = statements
    rows = ctx.session.execute(with_inventories, params).all()
    new: dict[int, Provider] = {}
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
            used = int(used or 0)      # MySQL sums are Decimals
            p.inv[rc_id] = (min_unit, max_unit, step, capacity - used, capacity, used)
    for rp_id, trait_id, name in ctx.session.execute(with_traits, params).all():
        p = get(rp_id)
        if p is not None:
            p.traits[trait_id] = name
    if with_aggregates:
        aggs: dict[int, set[int]] = {}
        for rp_id, agg_id in ctx.session.execute(with_aggs, params).all():
            if rp_id in new:
                aggs.setdefault(rp_id, set()).add(agg_id)
        for rp_id, found in aggs.items():
            new[rp_id].aggs = frozenset(found)
    into.update(new)
    return list(new.values())


_SHARING = (sa.select(_RPT.c.resource_provider_id, _RP.c.root_provider_id,
                      _RPA.c.aggregate_id)
            .select_from(_RPT.join(_RP, _RP.c.id == _RPT.c.resource_provider_id)
                         .outerjoin(_RPA, _RPA.c.resource_provider_id == _RP.c.id))
            .where(_RPT.c.trait_id == sa.bindparam('trait')))


def sharing_providers(ctx, sharing_trait):
    """{sharing provider id: (its root id, frozenset of its aggregate ids)}."""
    if sharing_trait is None:
        return {}
    found: dict[int, tuple[int, set[int | None]]] = {}
    for rp_id, root_id, agg_id in ctx.session.execute(_SHARING, {'trait': sharing_trait}):
        found.setdefault(rp_id, (root_id, set()))[1].add(agg_id)
    return {rp_id: (root_id, frozenset(a for a in aggs if a is not None))
            for rp_id, (root_id, aggs) in found.items()}


# driven by the root range (a limited search's window: a few hundred rows),
# never by the aggregate: "+ 0" keeps SQLite off the aggregate_id index, which
# it otherwise picked to walk every member of a sharing aggregate per query
# (100,000 at 1,000,000 computes: 156 ms of a limit=50 request, 0.12 ms so)
_LINKS = (sa.select(_RP.c.root_provider_id, _RPA.c.aggregate_id).distinct()
          .select_from(_RPA.join(_RP, _RP.c.id == _RPA.c.resource_provider_id))
          .where((_RPA.c.aggregate_id + 0).in_(sa.bindparam('aggs', expanding=True)))
          .where(_RP.c.root_provider_id > sa.bindparam('after'))
          .where(_RP.c.root_provider_id <= sa.bindparam('upper')))


def linked_roots(ctx, agg_ids, after=None, upper=None):
    """[(root id, aggregate id)] for the trees with a provider in ``agg_ids``.

    ``after``/``upper`` bound the root ids (after < root <= upper) so a
    limited search only reads the links of the trees it visits.
    """
    if not agg_ids:
        return []
    return ctx.session.execute(_LINKS, {
        'aggs': sorted(agg_ids), 'after': after if after is not None else -1,
        'upper': upper if upper is not None else _NO_UPPER}).all()


_NESTED = sa.select(_RP.c.id).where(_RP.c.parent_provider_id.isnot(None)).limit(1)


def has_nested(ctx):
    """True when any provider has a parent."""
    return ctx.session.execute(_NESTED).first() is not None
