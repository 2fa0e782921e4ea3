"""Traits: the standard catalogue from os-traits plus CUSTOM_* ones."""

from __future__ import annotations

from collections.abc import Iterable
import dataclasses
import datetime
from typing import cast

import os_traits
from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models

_TRAIT = models.Trait.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__

STANDARDS = frozenset(os_traits.get_traits())


def is_custom(name: str) -> bool:
    return name.startswith(os_traits.CUSTOM_NAMESPACE)


@dataclasses.dataclass
class Trait:
    id: int
    name: str
    created_at: datetime.datetime
    updated_at: datetime.datetime | None = None


def _from_row(row):
    return Trait(row.id, row.name, row.created_at, row.updated_at)


@db_api.writer
def sync_standard(ctx: RequestContext) -> int:
    """Insert the standard traits the database does not have yet."""
    have = set(ctx.session.execute(sa.select(_TRAIT.c.name)).scalars())
    missing = sorted(STANDARDS - have)
    if missing:
        now = models._now()
        ctx.session.execute(_TRAIT.insert(), [{'name': n, 'created_at': now}
                                              for n in missing])
    return len(missing)


@db_api.reader
def get_by_name(ctx: RequestContext, name: str) -> Trait:
    row = ctx.session.execute(sa.select(_TRAIT).where(_TRAIT.c.name == name)).first()
    if row is None:
        raise exception.TraitNotFound(names=name)
    return _from_row(row)


def _ids_by_name(ctx: RequestContext, names: Iterable[str]) -> dict[str, int]:
    """Map trait names to ids; raise TraitNotFound naming every unknown one."""
    names = set(names)
    if not names:
        return {}
    found = dict(ctx.session.execute(
        sa.select(_TRAIT.c.name, _TRAIT.c.id).where(_TRAIT.c.name.in_(names))).all())
    missing = names - set(found)
    if missing:
        raise exception.TraitNotFound(names=', '.join(sorted(missing)))
    return found


ids_by_name = db_api.reader(_ids_by_name)
# for a read that may lag (an open provider search): the replica, and the
# primary again for a name the replica has not replayed yet
ids_by_name_may_lag = db_api.lagging_reader(
    recheck_on=(exception.TraitNotFound,))(_ids_by_name)


@db_api.reader
def get_all(ctx: RequestContext, name_in: Iterable[str] | None = None,
            name_prefix: str | None = None, associated: bool | None = None) -> list[Trait]:
    """List traits, filtered by exact names, a prefix and provider association."""
    q = sa.select(_TRAIT)
    if name_in is not None:
        q = q.where(_TRAIT.c.name.in_(name_in))
    if name_prefix is not None:
        q = q.where(_TRAIT.c.name.startswith(name_prefix, autoescape=True))
    if associated is not None:
        used = sa.exists().where(_RP_TRAIT.c.trait_id == _TRAIT.c.id)
        q = q.where(used if associated else ~used)
    return [_from_row(r) for r in ctx.session.execute(q.order_by(_TRAIT.c.name))]


@db_api.writer
def ensure(ctx: RequestContext, name: str) -> tuple[Trait, bool]:
    """Create ``name`` unless it exists; return (trait, created)."""
    row = ctx.session.execute(sa.select(_TRAIT).where(_TRAIT.c.name == name)).first()
    if row is not None:
        return _from_row(row), False
    try:
        with ctx.session.begin_nested():
            ctx.session.execute(_TRAIT.insert().values(name=name,
                                                       created_at=models._now()))
    except db_exc.DBDuplicateEntry:
        return get_by_name(ctx, name), False
    return get_by_name(ctx, name), True


@db_api.writer
def destroy(ctx: RequestContext, name: str) -> None:
    trait = get_by_name(ctx, name)
    if name in STANDARDS:
        raise exception.TraitCannotDeleteStandard(name=name)
    res = ctx.session.execute(
        _TRAIT.delete().where(_TRAIT.c.id == trait.id).where(
            ~sa.exists().where(_RP_TRAIT.c.trait_id == trait.id)))
    if cast(sa.CursorResult, res).rowcount == 0:
        raise exception.TraitInUse(name=name)
