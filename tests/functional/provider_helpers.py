"""Test helpers: providers over the API, allocation rows straight to the database.

``allocate`` stands in for the allocation writer so the inventory tests do
not depend on the claim path.
"""

import uuid as uuidlib

import sqlalchemy as sa

from common import exception
from db import api as db_api
from db import models
from objects.placement import generation

_RC = models.ResourceClass.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__


def create_provider(client, ctx=None, name=None, uuid=None):
    """Create a root provider over the API (POST /resource_providers); its uuid."""
    uuid = uuid or str(uuidlib.uuid4())
    resp = client.post('/resource_providers', version='1.14',
                       json={'name': name or 'rp-' + uuid, 'uuid': uuid})
    assert resp.status_code == 201, resp.text
    return uuid


@db_api.writer
def allocate(ctx, rp_uuid, rc_name, used, consumer=None):
    """Write one allocation as an allocation writer would.

    Checks that the provider has inventory of the class and bumps the
    provider generation in the same transaction; raises InventoryNotFound or
    ConcurrentUpdate like the real writer would.
    """
    rp = generation.provider_by_uuid(ctx, rp_uuid)
    rc_id = ctx.session.execute(
        sa.select(_RC.c.id).where(_RC.c.name == rc_name)).scalar_one()
    has = ctx.session.execute(
        sa.select(_INV.c.id).where(_INV.c.resource_provider_id == rp.id)
        .where(_INV.c.resource_class_id == rc_id)).first()
    if has is None:
        raise exception.InventoryNotFound(resource_class=rc_name, uuid=rp_uuid)
    generation.bump_provider(ctx, rp.id, rp.generation)
    ctx.session.execute(_ALLOC.insert().values(
        resource_provider_id=rp.id, resource_class_id=rc_id, used=used,
        consumer_id=consumer or str(uuidlib.uuid4()), created_at=models._now()))


@db_api.reader
def orphan_allocations(ctx):
    """Allocations whose (provider, class) has no inventory (must always be 0)."""
    return ctx.session.execute(
        sa.select(sa.func.count()).select_from(_ALLOC).where(~sa.exists().where(
            _INV.c.resource_provider_id == _ALLOC.c.resource_provider_id).where(
            _INV.c.resource_class_id == _ALLOC.c.resource_class_id))).scalar_one()
