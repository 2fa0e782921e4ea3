"""Provider trees: subtree walks, tree locks and (re-)parenting.

Every provider row holds its parent and its root.  A write that changes which
tree a provider belongs to (create under a parent, set or change a parent)
first locks the root rows of the trees involved, in id order, and re-reads
what it decided on under those locks.  So two re-parents cannot build a loop
between them and a child cannot be created with a root that is being
rewritten.  On SQLite writers are serialised by BEGIN IMMEDIATE already and
``FOR UPDATE`` is a no-op; on PostgreSQL/MySQL the row locks do the work.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import models

_RP = models.ResourceProvider.__table__

# attempts at locking the roots of the trees a write touches when a
# concurrent write keeps moving them
_LOCK_ATTEMPTS = 5


def subtree_ids(ctx: RequestContext, rp_id: int) -> set[int]:
    """Ids of ``rp_id`` and all its descendants (one recursive query)."""
    tree = (sa.select(_RP.c.id).where(_RP.c.id == rp_id)
            .cte('subtree', recursive=True))
    child = _RP.alias('child')
    tree = tree.union_all(
        sa.select(child.c.id).where(child.c.parent_provider_id == tree.c.id))
    return set(ctx.session.execute(sa.select(tree.c.id)).scalars())


def _roots_of(ctx, ids):
    rows = ctx.session.execute(
        sa.select(_RP.c.id, _RP.c.root_provider_id).where(_RP.c.id.in_(ids)))
    return {row.id: row.root_provider_id for row in rows}


def lock_trees(ctx: RequestContext, ids: Iterable[int]) -> dict[int, int]:
    """Lock the root rows of the trees holding providers ``ids``.

    Returns {provider id: root id} as read under the locks; a provider that
    does not exist (any more) is missing from the result.  Must run inside a
    writer transaction.
    """
    ids = set(ids)
    for _ in range(_LOCK_ATTEMPTS):
        roots = _roots_of(ctx, ids)
        wanted = sorted(set(roots.values()))
        ctx.session.execute(
            sa.select(_RP.c.id).where(_RP.c.id.in_(wanted))
            .order_by(_RP.c.id).with_for_update()).all()
        again = _roots_of(ctx, ids)
        if again == roots:
            return roots
    raise exception.ConcurrentUpdate(
        what='resource provider tree',
        reason='the tree kept moving while it was being locked; retry')


def set_parent(ctx: RequestContext, row: sa.Row, parent_row: sa.Row | None) -> None:
    """Make ``parent_row`` (None: nobody) the parent of provider ``row``.

    ``row`` and ``parent_row`` are provider rows read in this writer
    transaction.  The caller has checked the microversion rules; this checks
    the tree rules: the new parent must exist and must not be the provider
    itself or one of its descendants.  The moved subtree gets the new root.
    The provider generation does not change.
    """
    ids = {row.id} | ({parent_row.id} if parent_row is not None else set())
    roots = lock_trees(ctx, ids)
    if row.id not in roots:
        raise exception.ResourceProviderNotFound(uuid=row.uuid)
    if parent_row is not None and parent_row.id not in roots:
        raise exception.ProviderTreeRefused(
            action='create',
            reason='parent provider UUID does not exist: %s' % parent_row.uuid)
    moved = subtree_ids(ctx, row.id)
    if parent_row is not None and parent_row.id in moved:
        raise exception.ProviderTreeRefused(
            action='update',
            reason='creating loop in the provider tree is not allowed. '
                   '%s is %s itself or one of its descendants.'
                   % (parent_row.uuid, row.uuid))
    new_root = roots[parent_row.id] if parent_row is not None else row.id
    now = models._now()
    old_parent = _RP.c.parent_provider_id
    res = ctx.session.execute(
        _RP.update().where(_RP.c.id == row.id)
        .where(old_parent.is_(None) if row.parent_provider_id is None
               else old_parent == row.parent_provider_id)
        .values(parent_provider_id=parent_row.id if parent_row is not None else None,
                updated_at=now))
    if cast(sa.CursorResult, res).rowcount != 1:
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason='the parent of %s changed concurrently; re-read and retry'
                   % row.uuid)
    ctx.session.execute(
        _RP.update().where(_RP.c.id.in_(moved))
        .where(_RP.c.root_provider_id != new_root)
        .values(root_provider_id=new_root, updated_at=now))
