"""Test-only helpers that write provider-related rows straight to the database.

Inventories, trait links and allocations have endpoints of their own (built
elsewhere); the provider and aggregate tests only need rows to exist.
"""

import uuid as uuidlib

import sqlalchemy as sa

from db import api as db_api
from db import models

_RP = models.ResourceProvider.__table__
_RC = models.ResourceClass.__table__
_TRAIT = models.Trait.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__


def _rp_id(ctx, uuid):
    return ctx.session.execute(
        sa.select(_RP.c.id).where(_RP.c.uuid == uuid)).scalar_one()


@db_api.writer
def add_inventory(ctx, rp_uuid, rc_name, total, **fields):
    rc_id = ctx.session.execute(
        sa.select(_RC.c.id).where(_RC.c.name == rc_name)).scalar_one()
    ctx.session.execute(_INV.insert().values(
        resource_provider_id=_rp_id(ctx, rp_uuid), resource_class_id=rc_id,
        total=total, created_at=models._now(), **fields))


@db_api.writer
def add_traits(ctx, rp_uuid, *names):
    rp_id = _rp_id(ctx, rp_uuid)
    for name in names:
        trait_id = ctx.session.execute(
            sa.select(_TRAIT.c.id).where(_TRAIT.c.name == name)).scalar_one_or_none()
        if trait_id is None:
            trait_id = ctx.session.execute(_TRAIT.insert().values(
                name=name, created_at=models._now())).inserted_primary_key[0]
        ctx.session.execute(_RP_TRAIT.insert().values(
            resource_provider_id=rp_id, trait_id=trait_id, created_at=models._now()))


@db_api.writer
def allocate(ctx, rp_uuid, rc_name, used, consumer=None):
    """One allocation row (no checks: the allocation writer is not ours)."""
    rc_id = ctx.session.execute(
        sa.select(_RC.c.id).where(_RC.c.name == rc_name)).scalar_one()
    ctx.session.execute(_ALLOC.insert().values(
        resource_provider_id=_rp_id(ctx, rp_uuid), resource_class_id=rc_id,
        used=used, consumer_id=consumer or str(uuidlib.uuid4()),
        created_at=models._now()))


@db_api.reader
def counts_for(ctx, rp_id):
    """Rows that still point at provider ``rp_id`` in the link tables."""
    out = {}
    for name, table in (('inventories', _INV), ('traits', _RP_TRAIT),
                        ('aggregates', _RP_AGG)):
        out[name] = ctx.session.execute(
            sa.select(sa.func.count()).select_from(table)
            .where(table.c.resource_provider_id == rp_id)).scalar_one()
    return out


@db_api.reader
def orphan_links(ctx):
    """Inventory, trait and aggregate rows whose provider is gone (must be 0)."""
    total = 0
    for table in (_INV, _RP_TRAIT, _RP_AGG):
        total += ctx.session.execute(
            sa.select(sa.func.count()).select_from(table).where(~sa.exists().where(
                _RP.c.id == table.c.resource_provider_id))).scalar_one()
    return total


@db_api.reader
def provider_rows(ctx):
    """{id: (uuid, parent id, root id)} of every provider."""
    return {r.id: (r.uuid, r.parent_provider_id, r.root_provider_id)
            for r in ctx.session.execute(sa.select(_RP))}


@db_api.reader
def provider_id(ctx, uuid):
    return _rp_id(ctx, uuid)


def assert_trees_consistent(ctx):
    """No loops, and every provider's root is the top of its parent chain."""
    rows = provider_rows(ctx)
    for rp_id in rows:
        seen, cur = set(), rp_id
        while rows[cur][1] is not None:
            assert cur not in seen, 'loop through %s' % rows[cur][0]
            seen.add(cur)
            cur = rows[cur][1]
            assert cur in rows, 'dangling parent'
        assert rows[rp_id][2] == cur, 'wrong root for %s' % rows[rp_id][0]
