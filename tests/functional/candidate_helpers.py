"""Test helper: build provider trees by writing rows straight to the database.

Used by the allocation candidate tests (and the property test) so trees of
any shape, with usage, can be made in one transaction.
"""

import uuid as uuidlib

import orjson
import sqlalchemy as sa

from db import api as db_api
from db import models

_RP = models.ResourceProvider.__table__
_RC = models.ResourceClass.__table__
_INV = models.Inventory.__table__
_TRAIT = models.Trait.__table__
_RPT = models.ResourceProviderTrait.__table__
_AGG = models.PlacementAggregate.__table__
_RPA = models.ResourceProviderAggregate.__table__
_ALLOC = models.Allocation.__table__

SHARES = 'MISC_SHARES_VIA_AGGREGATE'


def _id_of(session, table, column, value, create=False):
    found = session.execute(sa.select(table.c.id).where(column == value)).scalar()
    if found is None and create:
        found = session.execute(table.insert().values(
            **{column.name: value, 'created_at': models._now()})).inserted_primary_key[0]
    return found


def _inventory(spec):
    if isinstance(spec, int):
        spec = {'total': spec}
    inv = {'reserved': 0, 'min_unit': 1, 'max_unit': spec['total'], 'step_size': 1,
           'allocation_ratio': 1.0}
    inv.update(spec)
    return inv


@db_api.writer
def add_provider(ctx, name=None, parent=None, inventory=None, traits=(), aggregates=(),
                 uuid=None, used=None):
    """Insert one provider; return its uuid.

    ``parent`` is the parent's uuid; ``inventory`` maps class name to a total
    or to a dict of inventory fields; ``traits`` are created (as custom) when
    unknown; ``aggregates`` are aggregate uuids; ``used`` maps class name to
    an amount already allocated (one allocation row).
    """
    s = ctx.session
    uuid = uuid or str(uuidlib.uuid4())
    parent_id = root_id = None
    if parent is not None:
        parent_id, root_id = s.execute(
            sa.select(_RP.c.id, _RP.c.root_provider_id).where(_RP.c.uuid == parent)).one()
    rp_id = s.execute(_RP.insert().values(
        uuid=uuid, name=name or 'rp-' + uuid, generation=0, parent_provider_id=parent_id,
        root_provider_id=root_id, created_at=models._now())).inserted_primary_key[0]
    if root_id is None:
        s.execute(_RP.update().where(_RP.c.id == rp_id).values(root_provider_id=rp_id))
    for rc, spec in (inventory or {}).items():
        rc_id = _id_of(s, _RC, _RC.c.name, rc, create=True)
        s.execute(_INV.insert().values(resource_provider_id=rp_id, resource_class_id=rc_id,
                                       created_at=models._now(), **_inventory(spec)))
    for trait in traits:
        trait_id = _id_of(s, _TRAIT, _TRAIT.c.name, trait, create=True)
        s.execute(_RPT.insert().values(resource_provider_id=rp_id, trait_id=trait_id,
                                       created_at=models._now()))
    for agg in aggregates:
        agg_id = _id_of(s, _AGG, _AGG.c.uuid, agg, create=True)
        s.execute(_RPA.insert().values(resource_provider_id=rp_id, aggregate_id=agg_id,
                                       created_at=models._now()))
    for rc, amount in (used or {}).items():
        rc_id = _id_of(s, _RC, _RC.c.name, rc)
        s.execute(_ALLOC.insert().values(
            resource_provider_id=rp_id, resource_class_id=rc_id, used=amount,
            consumer_id=str(uuidlib.uuid4()), created_at=models._now()))
    return uuid


@db_api.writer
def clear(ctx):
    """Delete every provider and what hangs off it (between property examples)."""
    s = ctx.session
    for table in (_ALLOC, _RPA, _RPT, _INV):
        s.execute(table.delete())
    s.execute(_RP.update().values(parent_provider_id=None, root_provider_id=None))
    s.execute(_RP.delete())
    s.execute(_AGG.delete())


@db_api.reader
def features_are_fresh(ctx):
    """Every entry of the provider index's trait/class index equals one built afresh.

    Returns the entries ({feature: (has, roots)}, objects/candidates/features).
    """
    from objects.candidates import features, index

    state = index.for_database(ctx.db).current(ctx, None, None)
    entries = state.features.snapshot()
    for feature, (has, roots) in entries.items():
        found = features.tree_roots(state, feature)
        assert set(roots) == (found if has else set(state.trees) - found), feature
    return entries


def encoded(result):
    """A search result as the API would answer it (candidates and summaries), decoded."""
    return orjson.loads(orjson.dumps({
        'allocation_requests': [{'allocations': c.allocations, 'mappings': c.mappings}
                                for c in result.candidates],
        'provider_summaries': result.summaries}))
