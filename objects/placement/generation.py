"""Provider lookup and the provider-generation compare-and-swap.

Every write that changes what a provider offers or holds bumps its
generation with a conditional UPDATE inside the write transaction; zero rows
updated means another writer got there first and the caller must re-read.
"""

from __future__ import annotations

import threading
from typing import Any

import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models

_RP = models.ResourceProvider.__table__


def provider_by_uuid(ctx: RequestContext, uuid: str) -> sa.Row:
    """The provider row (id, uuid, name, generation, parent/root ids, timestamps).

    Must run inside a reader or writer transaction (``ctx.session``).
    """
    row = ctx.session.execute(sa.select(_RP).where(_RP.c.uuid == uuid)).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return row


# prebuilt: the swap runs on every allocation and inventory write
_BUMP = (_RP.update().where(_RP.c.id == sa.bindparam('rp_id'))
         .where(_RP.c.generation == sa.bindparam('expected'))
         .values(generation=sa.bindparam('new_generation'),
                 updated_at=sa.bindparam('now')))


def _swap_failed(expected):
    return exception.ConcurrentUpdate(
        what='resource provider',
        reason='generation already changed (expected %d); re-read and retry' % expected)


def bump_provider(ctx: RequestContext, rp_id: int, expected: int) -> int:
    """Set the generation to expected + 1 iff it is still ``expected``; return it.

    Raises ConcurrentUpdate when the provider's generation moved.  Must run
    inside a writer transaction.
    """
    res = db_api.connection(ctx).execute(_BUMP, {
        'rp_id': rp_id, 'expected': expected, 'new_generation': expected + 1,
        'now': models._now()})
    if res.rowcount != 1:
        raise _swap_failed(expected)
    return expected + 1


# the swap of several providers in one statement, by provider count (few sizes)
_MAX_MANY = 8
_BUMP_MANY: dict[tuple[int, bool], sa.Update] = {}
_lock = threading.Lock()


def _bump_many(count, by=False):
    """The swap of ``count`` providers; ``by``: each to its own ``new_<i>`` (not + 1)."""
    statement = _BUMP_MANY.get((count, by))
    if statement is None:
        generation = _RP.c.generation + 1
        if by:
            generation = sa.case(*[(_RP.c.id == sa.bindparam('rp_id_%d' % i),
                                    sa.bindparam('new_%d' % i)) for i in range(count)],
                                 else_=_RP.c.generation)
        statement = (_RP.update().where(sa.or_(*[
            sa.and_(_RP.c.id == sa.bindparam('rp_id_%d' % i),
                    _RP.c.generation == sa.bindparam('expected_%d' % i))
            for i in range(count)]))
            .values(generation=generation, updated_at=sa.bindparam('now')))
        with _lock:
            statement = _BUMP_MANY.setdefault((count, by), statement)
    return statement


def bump_providers(ctx: RequestContext, expected: dict[int, int],
                   by: dict[int, int] | None = None) -> None:
    """:func:`bump_provider` for every ``{rp id: expected generation}``, in one UPDATE.

    Every provider's own generation is compared: the row count falls short
    when any one moved, and the error names the first such provider (by id),
    as swapping them one by one in id order would.  The caller must hold the
    rows (objects.placement.allocation locks them first), so the re-read
    after a failure sees exactly which swaps were not made.  ``by`` (rp id:
    count, default 1) sets a generation to expected + count: as many writes
    as that, made in one swap (objects.placement.allocation_batch).
    """
    ids = sorted(expected)
    steps = {rp_id: (by or {}).get(rp_id, 1) for rp_id in ids}
    several = any(step != 1 for step in steps.values())
    if not ids:
        return
    if len(ids) > _MAX_MANY or (len(ids) == 1 and not several):
        for rp_id in ids:
            if steps[rp_id] == 1:
                bump_provider(ctx, rp_id, expected[rp_id])
            else:
                bump_providers(ctx, {rp_id: expected[rp_id]}, {rp_id: steps[rp_id]})
        return
    params = {'now': models._now()}
    for i, rp_id in enumerate(ids):
        params['rp_id_%d' % i] = rp_id
        params['expected_%d' % i] = expected[rp_id]
        if several:
            params['new_%d' % i] = expected[rp_id] + steps[rp_id]
    conn = db_api.connection(ctx)
    if conn.execute(_bump_many(len(ids), several), params).rowcount == len(ids):
        return
    now = dict(conn.execute(sa.select(_RP.c.id, _RP.c.generation)
                            .where(_RP.c.id.in_(ids))).all())
    failed = [i for i in ids if now.get(i) != expected[i] + steps[i]] or ids
    raise _swap_failed(expected[failed[0]])


def warm(conn: sa.engine.Connection) -> None:
    """Run every form of the generation swap once on ``conn``, matching no row (id -1).

    For a start-up warm-up (objects.placement.allocation_batch.warm): the
    forms are compiled then, not in the first writes; the caller rolls back.
    """
    now = models._now()
    conn.execute(_BUMP, {'rp_id': -1, 'expected': 0, 'new_generation': 1, 'now': now})
    for count in range(1, _MAX_MANY + 1):
        for by in (False, True):
            params: dict[str, Any] = {'now': now}
            for i in range(count):
                params.update({'rp_id_%d' % i: -1, 'expected_%d' % i: 0})
                if by:
                    params['new_%d' % i] = 1
            conn.execute(_bump_many(count, by), params)
