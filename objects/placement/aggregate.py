"""Provider aggregates: bare uuids (as sent), created the first time they are associated."""

from __future__ import annotations

from collections.abc import Iterable
import uuid as uuid_lib

from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import generation

_RP = models.ResourceProvider.__table__
_AGG = models.PlacementAggregate.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__


def spellings(agg_uuids: Iterable[str]) -> list[str]:
    """The ways an aggregate of each canonical uuid may be stored, sorted.

    Aggregates are stored as their client sent them, as Placement does:
    dashed or dashless, lower or upper case.  A lookup by a canonical uuid
    (``member_of``) finds any of these four spellings.
    """
    out: set[str] = set()
    for agg in agg_uuids:
        dashless = agg.replace('-', '')
        out.update((agg, agg.upper(), dashless, dashless.upper()))
    return sorted(out)


def canonical(agg_uuid: str) -> str:
    """The dashed lower-case form of a stored aggregate uuid."""
    return str(uuid_lib.UUID(agg_uuid))


def _uuids_of(ctx, rp_id):
    return list(ctx.session.execute(
        sa.select(_AGG.c.uuid).select_from(
            _RP_AGG.join(_AGG, _RP_AGG.c.aggregate_id == _AGG.c.id))
        .where(_RP_AGG.c.resource_provider_id == rp_id)
        .order_by(_AGG.c.uuid)).scalars())


@db_api.reader
def get_for_provider(ctx: RequestContext, rp_uuid: str) -> tuple[list[str], int]:
    """(aggregate uuids sorted, provider generation) of provider ``rp_uuid``."""
    row = generation.provider_by_uuid(ctx, rp_uuid)
    return _uuids_of(ctx, row.id), row.generation


def _ensure_aggregates(ctx, uuids):
    """{uuid: id} for ``uuids``, inserting the ones that do not exist yet."""
    found = dict(ctx.session.execute(
        sa.select(_AGG.c.uuid, _AGG.c.id).where(_AGG.c.uuid.in_(uuids))).all())
    for agg_uuid in sorted(set(uuids) - set(found)):
        try:
            with ctx.session.begin_nested():
                found[agg_uuid] = ctx.session.execute(_AGG.insert().values(
                    uuid=agg_uuid, created_at=models._now())).inserted_primary_key[0]
        except db_exc.DBDuplicateEntry:
            # created concurrently by another association: use that one
            found[agg_uuid] = ctx.session.execute(
                sa.select(_AGG.c.id).where(_AGG.c.uuid == agg_uuid)).scalar_one()
    return found


@db_api.writer
def set_for_provider(ctx: RequestContext, rp_uuid: str, agg_uuids: Iterable[str],
                     expected_generation: int | None = None) -> int:
    """Replace provider ``rp_uuid``'s aggregates with ``agg_uuids``.

    With ``expected_generation`` (microversion 1.19) the provider generation
    is compared and always bumped (ConcurrentUpdate on mismatch), even when
    the set does not change; without it the generation is left alone and the
    provider row is only locked, so concurrent replacements do not mix.
    Returns the provider generation after the write.
    """
    row = generation.provider_by_uuid(ctx, rp_uuid)
    new_generation: int | None
    if expected_generation is not None:
        new_generation = generation.bump_provider(ctx, row.id, expected_generation)
    else:
        new_generation = ctx.session.execute(
            sa.select(_RP.c.generation).where(_RP.c.id == row.id)
            .with_for_update()).scalar()
        if new_generation is None:  # deleted while we waited for the lock
            raise exception.ResourceProviderNotFound(uuid=rp_uuid)
    wanted = _ensure_aggregates(ctx, agg_uuids) if agg_uuids else {}
    wanted_ids = set(wanted.values())
    have_ids = set(ctx.session.execute(
        sa.select(_RP_AGG.c.aggregate_id)
        .where(_RP_AGG.c.resource_provider_id == row.id)).scalars())
    gone = have_ids - wanted_ids
    if gone:
        ctx.session.execute(_RP_AGG.delete()
                            .where(_RP_AGG.c.resource_provider_id == row.id)
                            .where(_RP_AGG.c.aggregate_id.in_(gone)))
    new = wanted_ids - have_ids
    if new:
        now = models._now()
        ctx.session.execute(_RP_AGG.insert(), [
            {'resource_provider_id': row.id, 'aggregate_id': agg_id,
             'created_at': now} for agg_id in sorted(new)])
    return new_generation
