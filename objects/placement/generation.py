"""Provider lookup and the provider-generation compare-and-swap.

Every write that changes what a provider offers or holds bumps its
generation with a conditional UPDATE inside the write transaction; zero rows
updated means another writer got there first and the caller must re-read.
"""

from __future__ import annotations

import sqlalchemy as sa

from common import exception
from common.context import RequestContext
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


def bump_provider(ctx: RequestContext, rp_id: int, expected: int) -> int:
    """Set the generation to expected + 1 iff it is still ``expected``; return it.

    Raises ConcurrentUpdate when the provider's generation moved.  Must run
    inside a writer transaction.
    """
    res = ctx.session.connection().execute(_BUMP, {
        'rp_id': rp_id, 'expected': expected, 'new_generation': expected + 1,
        'now': models._now()})
    if res.rowcount != 1:
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason='generation already changed (expected %d); re-read and retry'
                   % expected)
    return expected + 1
