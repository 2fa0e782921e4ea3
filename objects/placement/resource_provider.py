"""Resource providers: create, read, rename, re-parent and delete.

Listing with filters lives in ``objects.candidates.provider_search``; tree locking and
re-parenting in ``objects.placement.provider_tree``.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import cast
import uuid as uuid_lib

from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import generation, provider_tree

_RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__

# "leave the parent as it is" for update()
UNCHANGED = object()


@dataclasses.dataclass
class ResourceProvider:
    id: int
    uuid: str
    name: str
    generation: int
    root_provider_uuid: str
    parent_provider_uuid: str | None = None
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None

    @property
    def last_modified(self) -> datetime.datetime | None:
        return self.updated_at or self.created_at


def select_providers() -> sa.Select:
    """SELECT of provider rows with their root and parent uuids (for filtering)."""
    root = _RP.alias('root')
    parent = _RP.alias('parent')
    return (sa.select(_RP.c.id, _RP.c.uuid, _RP.c.name, _RP.c.generation,
                      root.c.uuid.label('root_provider_uuid'),
                      parent.c.uuid.label('parent_provider_uuid'),
                      _RP.c.created_at, _RP.c.updated_at)
            .select_from(_RP.join(root, _RP.c.root_provider_id == root.c.id)
                         .outerjoin(parent, _RP.c.parent_provider_id == parent.c.id)))


def from_row(row: sa.Row) -> ResourceProvider:
    return ResourceProvider(row.id, row.uuid, row.name, row.generation,
                            row.root_provider_uuid, row.parent_provider_uuid,
                            row.created_at, row.updated_at)


def _canonical(value):
    """A UUID-like string in dashed lower-case form (Invalid if it is not one)."""
    try:
        return str(uuid_lib.UUID(value))
    except (TypeError, ValueError):
        raise exception.Invalid(reason='%r is not a valid UUID' % (value,))


@db_api.reader
def get_by_uuid(ctx: RequestContext, uuid: str) -> ResourceProvider:
    """The provider with exactly this uuid (ResourceProviderNotFound otherwise)."""
    row = ctx.session.execute(select_providers().where(_RP.c.uuid == uuid)).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return from_row(row)


def _duplicate(exc, name, uuid):
    cols = exc.columns or []
    if 'uuid' in cols:
        return exception.DuplicateProvider(field='uuid: %s' % uuid)
    if 'name' in cols:
        return exception.DuplicateProvider(field='name: %s' % name)
    return exception.DuplicateProvider(field='name or uuid')


def _parent_row(ctx, parent_uuid):
    try:
        return generation.provider_by_uuid(ctx, parent_uuid)
    except exception.ResourceProviderNotFound:
        raise _no_parent(parent_uuid)


def _no_parent(parent_uuid):
    # Placement's words first ("parent provider UUID does not exist"), then
    # which; Placement names the action 'create' on an update too
    return exception.ProviderTreeRefused(
        action='create', reason='parent provider UUID does not exist: %s' % parent_uuid)


@db_api.writer
def create(ctx: RequestContext, name: str, uuid: str | None = None,
           parent_uuid: str | None = None) -> ResourceProvider:
    """Create a provider (generation 0); uuid generated when None.

    A dashless or upper-case uuid is stored in canonical form, so it clashes
    with the same uuid written differently (DuplicateProvider).  A root is
    its own root; a child joins its parent's tree.
    """
    uuid = _canonical(uuid) if uuid is not None else str(uuid_lib.uuid4())
    root_id = None
    parent_id = None
    if parent_uuid is not None:
        parent_uuid = _canonical(parent_uuid)
        if parent_uuid == uuid:
            raise exception.ProviderTreeRefused(
                action='create',
                reason='parent provider UUID cannot be same as UUID. Please set parent '
                       'provider UUID to None if there is no parent.')
        parent = _parent_row(ctx, parent_uuid)
        # the parent's tree must not move (or go) while the child joins it
        roots = provider_tree.lock_trees(ctx, [parent.id])
        if parent.id not in roots:
            raise _no_parent(parent_uuid)
        parent_id, root_id = parent.id, roots[parent.id]
    try:
        with ctx.session.begin_nested():
            res = ctx.session.execute(_RP.insert().values(
                uuid=uuid, name=name, generation=0, parent_provider_id=parent_id,
                root_provider_id=root_id, created_at=models._now()))
            # a one-row INSERT always has its key (SQLAlchemy types it optional)
            rp_id = cast(sa.CursorResult, res).inserted_primary_key[0]  # type: ignore[index]
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, name, uuid)
    except db_exc.DBReferenceError:
        raise _no_parent(parent_uuid)
    if root_id is None:
        ctx.session.execute(_RP.update().where(_RP.c.id == rp_id)
                            .values(root_provider_id=rp_id))
    return get_by_uuid(ctx, uuid)


@db_api.writer
def update(ctx: RequestContext, uuid: str, name: str, parent_uuid: str | None | object = UNCHANGED,
           allow_reparent: bool = False) -> ResourceProvider:
    """Rename a provider and optionally set, change or clear its parent.

    ``parent_uuid``: UNCHANGED leaves the parent alone; None un-parents.
    Setting a parent on a root is always allowed here; changing or clearing
    an existing parent needs ``allow_reparent`` (microversion 1.37).  The
    generation does not change.
    """
    row = generation.provider_by_uuid(ctx, uuid)
    if parent_uuid is not UNCHANGED:
        _reparent(ctx, row, parent_uuid, allow_reparent)
    # always written, so last-modified says when the provider was last PUT
    try:
        with ctx.session.begin_nested():
            ctx.session.execute(_RP.update().where(_RP.c.id == row.id)
                                .values(name=name, updated_at=models._now()))
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, name, uuid)
    return get_by_uuid(ctx, uuid)


def _reparent(ctx, row, parent_uuid, allow_reparent):
    parent = None
    if parent_uuid is not None:
        parent_uuid = _canonical(parent_uuid)
        if parent_uuid == row.uuid:
            raise exception.ProviderTreeRefused(
                action='update',
                reason='creating loop in the provider tree is not allowed. A '
                       'provider cannot be its own parent.')
        parent = _parent_row(ctx, parent_uuid)
    new_parent_id = parent.id if parent is not None else None
    if new_parent_id == row.parent_provider_id:
        return
    if row.parent_provider_id is not None and not allow_reparent:
        # Placement's two texts (before microversion 1.37)
        raise exception.ProviderTreeRefused(
            action='update',
            reason='un-parenting a provider is not currently allowed.'
            if parent is None else
            're-parenting a provider is not currently allowed.')
    provider_tree.set_parent(ctx, row, parent)


@db_api.writer
def destroy(ctx: RequestContext, uuid: str) -> None:
    """Delete a provider with its inventories, trait and aggregate links.

    Refused while it has children (ProviderHasChildren, checked first) or
    allocations (ProviderInUse).  The provider row is locked first, so a
    child or an allocation written concurrently either commits before the
    checks (and is seen) or fails its foreign key once the row is gone.
    """
    row = generation.provider_by_uuid(ctx, uuid)
    ctx.session.execute(sa.select(_RP.c.id).where(_RP.c.id == row.id)
                        .with_for_update()).all()
    _check_deletable(ctx, row)
    for table in (_RP_TRAIT, _RP_AGG, _INV):
        ctx.session.execute(table.delete().where(
            table.c.resource_provider_id == row.id))
    try:
        with ctx.session.begin_nested():
            # a root points at itself: MySQL checks that foreign key row by row
            # and refuses to delete the row, so drop the self-reference first
            ctx.session.execute(_RP.update().where(
                _RP.c.id == row.id, _RP.c.root_provider_id == row.id).values(
                    root_provider_id=None))
            res = ctx.session.execute(_delete_if_unused(row.id))
    except db_exc.DBReferenceError:
        res = None
    if res is None or cast(sa.CursorResult, res).rowcount != 1:
        # something arrived between the checks and the delete
        _check_deletable(ctx, row)
        raise exception.ResourceProviderNotFound(uuid=uuid)


def _delete_if_unused(rp_id):
    child = _RP.alias('child')
    return (_RP.delete().where(_RP.c.id == rp_id)
            .where(~sa.exists().where(child.c.parent_provider_id == rp_id))
            .where(~sa.exists().where(_ALLOC.c.resource_provider_id == rp_id)))


def _check_deletable(ctx, row):
    if ctx.session.execute(sa.select(_RP.c.id).where(
            _RP.c.parent_provider_id == row.id).limit(1)).first() is not None:
        raise exception.ProviderHasChildren(uuid=row.uuid)
    if ctx.session.execute(sa.select(_ALLOC.c.id).where(
            _ALLOC.c.resource_provider_id == row.id).limit(1)).first() is not None:
        raise exception.ProviderInUse(uuid=row.uuid)
