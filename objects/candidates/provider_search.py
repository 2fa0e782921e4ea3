"""GET /resource_providers filtering: one set-based query per listing.

Every filter applies to the provider *itself* (never its root, its tree or a
sharing provider):

* ``member_of`` / ``forbidden_aggs``: the provider's own aggregate links.
  Upstream Placement does the same on this endpoint (its provider listing
  filters by ``provider_ids_matching_aggregates``, which joins the provider's
  own ``resource_provider_aggregates`` rows, for both the required and the
  forbidden sets).  "An aggregate on the root covers the whole tree" is an
  allocation-candidates rule only (unsuffixed group), implemented there.
* ``resources``: the provider must serve each amount on its own: inventory
  present, min_unit <= amount <= max_unit, amount % step_size == 0 and
  used + amount <= (total - reserved) * allocation_ratio, where ``used`` is
  the current sum of allocations of that class on that provider.
* ``required`` (any-of sets, ANDed) / ``forbidden``: the provider's own traits.
"""

from __future__ import annotations

import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.candidates import capacity
from objects.candidates import request as candidates_request
from objects.placement import aggregate as agg_obj
from objects.placement import resource_class as rc_obj
from objects.placement import resource_provider as rp_obj
from objects.placement import trait as trait_obj

_RP = models.ResourceProvider.__table__
_AGG = models.PlacementAggregate.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__

MAX_INT = 2147483647


def _in_aggregates(rp_id, agg_uuids):
    return (sa.exists().where(_RP_AGG.c.resource_provider_id == rp_id)
            .where(_RP_AGG.c.aggregate_id == _AGG.c.id)
            .where(_AGG.c.uuid.in_(agg_obj.spellings(agg_uuids))))


def _has_any_trait(rp_id, trait_ids):
    return (sa.exists().where(_RP_TRAIT.c.resource_provider_id == rp_id)
            .where(_RP_TRAIT.c.trait_id.in_(sorted(trait_ids))))


def get_all(ctx: RequestContext, name: str | None = None, uuid: str | None = None,
            group: candidates_request.RequestGroup | None = None,
            may_lag: bool = False) -> list[rp_obj.ResourceProvider]:
    """Providers matching every given filter, in creation order.

    ``group`` is an ``objects.candidates.request.RequestGroup`` whose resources,
    traits, aggregates and in_tree apply; unknown class or trait names raise
    ResourceClassNotFound / TraitNotFound (callers check them earlier).
    ``may_lag``: the caller accepts a listing a little behind the primary:
    read on the replica when one is configured (doc/source/architecture.md).
    """
    listing = _get_all_may_lag if may_lag else _get_all
    return listing(ctx, name, uuid, group)


def _providers(ctx, name, uuid, group):
    query = rp_obj.select_providers()
    if name is not None:
        query = query.where(_RP.c.name == name)
    if uuid is not None:
        query = query.where(_RP.c.uuid == uuid)
    if group is not None:
        query = _filter_group(ctx, query, group)
        if query is None:
            return []
    rows = ctx.session.execute(query.order_by(_RP.c.id))
    return [rp_obj.from_row(row) for row in rows]


_get_all = db_api.reader(_providers)
# a name the replica does not know yet is looked up again on the primary
_get_all_may_lag = db_api.lagging_reader(
    recheck_on=(exception.ResourceClassNotFound, exception.TraitNotFound))(_providers)


def _filter_group(ctx, query, group):
    """``query`` narrowed by ``group``; None when nothing can match."""
    if group.in_tree is not None:
        tree = _RP.alias('tree')
        query = query.where(_RP.c.root_provider_id == sa.select(
            tree.c.root_provider_id).where(tree.c.uuid == group.in_tree)
            .scalar_subquery())
    for any_of in group.member_of:
        query = query.where(_in_aggregates(_RP.c.id, any_of))
    if group.forbidden_aggs:
        query = query.where(~_in_aggregates(_RP.c.id, group.forbidden_aggs))
    if group.required or group.forbidden:
        trait_ids = trait_obj.ids_by_name(ctx, group.trait_names)
        for any_of in group.required:
            query = query.where(_has_any_trait(
                _RP.c.id, {trait_ids[n] for n in any_of}))
        if group.forbidden:
            query = query.where(~_has_any_trait(
                _RP.c.id, {trait_ids[n] for n in group.forbidden}))
    if group.resources:
        if max(group.resources.values()) > MAX_INT:
            return None  # beyond any max_unit
        rc_ids = rc_obj.ids_by_name(ctx, group.resources)
        # the capacity rule of the candidate search (objects/candidates/capacity.py)
        query = query.where(_RP.c.id.in_(capacity.providers_query(
            {rc_ids[name]: amount for name, amount in group.resources.items()})))
    return query
