"""The per-project cap on stored ``extra`` of node allocations, decided by the database.

``[allocation] max_extra_bytes_per_project``: a write that stores or grows
an allocation's ``extra`` first locks its owner's row in
node_allocation_owners (created on first use), then sums the ``extra`` the
owner's allocations store and writes only if the new total stays under the
cap, all in the caller's transaction.  Two writers for one owner are thus
serialised by the row lock (SQLite: by its single writer), so they cannot
both pass the check and together exceed the cap, on any engine; server
sessions run READ COMMITTED, so the sum taken after the lock sees every
committed row.  The usage is read from the rows themselves (each row's
``extra_bytes``, written with its ``extra``), so every delete of an
allocation (any path) gives its bytes back with nothing to maintain.
"""

import json

from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from db import models

_ALLOC = models.NodeAllocation.__table__
_OWNERS = models.NodeAllocationOwner.__table__


def size(extra):
    """Bytes of JSON ``extra`` takes as stored (0 for none or empty)."""
    return len(json.dumps(extra, default=str)) if extra else 0


def sized(values):
    """``values`` (a row's, or an update's) with ``extra_bytes`` set when ``extra`` is."""
    if 'extra' not in values:
        return values
    return dict(values, extra_bytes=size(values['extra']))


def _lock_owner(ctx, key):
    """Lock ``key``'s row until the caller's transaction ends (insert it first if new)."""
    locked = sa.select(_OWNERS.c.owner).where(_OWNERS.c.owner == key).with_for_update()
    if ctx.session.execute(locked).first() is not None:
        return
    try:
        with ctx.session.begin_nested():
            ctx.session.execute(_OWNERS.insert().values(owner=key))
    except db_exc.DBDuplicateEntry:
        # another writer inserted it meanwhile: wait for its lock
        ctx.session.execute(locked).first()


def _stored(ctx, owner, exclude_id):
    """Bytes of ``extra`` the allocations of ``owner`` store, but ``exclude_id``'s."""
    # a row an older release wrote has no extra_bytes: measured from extra
    length = sa.func.coalesce(_ALLOC.c.extra_bytes,
                              sa.func.length(sa.cast(_ALLOC.c.extra, sa.Text)), 0)
    q = sa.select(sa.func.coalesce(sa.func.sum(length), 0)).where(
        _ALLOC.c.owner.is_(None) if owner is None else _ALLOC.c.owner == owner)
    if exclude_id is not None:
        q = q.where(_ALLOC.c.id != exclude_id)
    return int(ctx.session.execute(q).scalar() or 0)


def check(ctx, owner, extra, cap, exclude_id=None, old_extra=None):
    """Refuse (AllocationExtraOverProjectCap) a write taking ``owner`` over ``cap``.

    Call inside the writer that then stores ``extra`` for ``owner`` (a new
    row, or the row ``exclude_id`` whose stored ``extra`` is ``old_extra``).
    ``cap`` 0 means no cap; a write that does not grow the row is never
    refused (the cap may have been lowered under the usage).
    """
    new = size(extra)
    if not cap or new == 0 or new <= size(old_extra):
        return
    _lock_owner(ctx, owner or '')
    usage = _stored(ctx, owner, exclude_id) + new
    if usage > cap:
        raise exception.AllocationExtraOverProjectCap(
            owner=owner if owner is not None else '(none)', usage=usage, cap=cap)
