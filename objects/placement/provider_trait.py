"""The set of traits one provider has, replaced as a whole under its generation."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import generation
from objects.placement import trait as trait_obj

_TRAIT = models.Trait.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__


def _names(ctx, rp_id):
    return sorted(ctx.session.execute(
        sa.select(_TRAIT.c.name).join(_RP_TRAIT, _RP_TRAIT.c.trait_id == _TRAIT.c.id)
        .where(_RP_TRAIT.c.resource_provider_id == rp_id)).scalars())


@db_api.reader
def get(ctx: RequestContext, rp_uuid: str) -> tuple[int, list[str]]:
    """(provider generation, sorted trait names)."""
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    return rp.generation, _names(ctx, rp.id)


@db_api.writer
def set_traits(ctx: RequestContext, rp_uuid: str, expected_generation: int,
               names: Iterable[str]) -> tuple[int, list[str]]:
    """Replace the provider's traits with ``names``; (new generation, sorted names).

    Checks, in order: provider exists (404), generation matches
    (ConcurrentUpdate), every name exists (TraitNotFound listing all unknown
    ones).  The generation moves only when the set changes.
    """
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    if rp.generation != expected_generation:
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason="Resource provider's generation already changed. Please update "
                   "the generation and try again. (given %d, current %d)"
                   % (expected_generation, rp.generation))
    want = trait_obj.ids_by_name(ctx, names)
    have = dict(ctx.session.execute(
        sa.select(_TRAIT.c.name, _TRAIT.c.id)
        .join(_RP_TRAIT, _RP_TRAIT.c.trait_id == _TRAIT.c.id)
        .where(_RP_TRAIT.c.resource_provider_id == rp.id)).all())
    if set(want) == set(have):
        return rp.generation, sorted(want)
    gen = generation.bump_provider(ctx, rp.id, expected_generation)
    gone = [have[n] for n in set(have) - set(want)]
    if gone:
        ctx.session.execute(
            _RP_TRAIT.delete().where(_RP_TRAIT.c.resource_provider_id == rp.id)
            .where(_RP_TRAIT.c.trait_id.in_(gone)))
    new = sorted(set(want) - set(have))
    if new:
        now = models._now()
        ctx.session.execute(_RP_TRAIT.insert(), [
            {'resource_provider_id': rp.id, 'trait_id': want[n], 'created_at': now}
            for n in new])
    return gen, sorted(want)


@db_api.writer
def delete_all(ctx: RequestContext, rp_uuid: str) -> int:
    """Remove every trait of the provider; the generation moves only if it had any."""
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    has_any = ctx.session.execute(
        sa.select(_RP_TRAIT.c.trait_id)
        .where(_RP_TRAIT.c.resource_provider_id == rp.id).limit(1)).first()
    if has_any is None:
        return rp.generation
    gen = generation.bump_provider(ctx, rp.id, rp.generation)
    ctx.session.execute(
        _RP_TRAIT.delete().where(_RP_TRAIT.c.resource_provider_id == rp.id))
    return gen
