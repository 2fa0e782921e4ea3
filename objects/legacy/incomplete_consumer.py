"""Online migration 2: allocations written before consumers existed get a consumer record.

An allocation's ``consumer_id`` is the consumer's uuid.  One whose uuid has
no ``consumers`` row (written before project and user were required) gets a
consumer with ``[placement] incomplete_consumer_project_id`` and
``incomplete_consumer_user_id``, created by ``objects.placement.consumer.prepare``, the
same code an allocation write uses.
"""

from __future__ import annotations

import logging

from oslo_config import cfg
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import consumer as consumer_obj

LOG = logging.getLogger('berth.' + __name__)

_ALLOC = models.Allocation.__table__
_CONSUMER = models.Consumer.__table__


def _missing():
    return (sa.select(_ALLOC.c.consumer_id).distinct()
            .where(~sa.exists().where(_CONSUMER.c.uuid == _ALLOC.c.consumer_id)))


@db_api.reader
def count_pending(ctx: RequestContext, conf: cfg.ConfigOpts) -> int:
    """How many consumer uuids have allocations but no consumer record."""
    return ctx.session.execute(
        sa.select(sa.func.count()).select_from(_missing().subquery())).scalar_one()


@db_api.writer
def migrate_batch(ctx: RequestContext, conf: cfg.ConfigOpts, limit: int,
                  marker: str | None = None) -> tuple[int, int, list[tuple[str, str]], str | None]:
    """Create up to ``limit`` missing consumers (uuid > marker) in one transaction.

    Returns (found, done, failed [(uuid, reason)], last uuid looked at).  A
    consumer created meanwhile by an allocation write counts as done.
    """
    query = _missing().order_by(_ALLOC.c.consumer_id).limit(limit)
    if marker is not None:
        query = query.where(_ALLOC.c.consumer_id > marker)
    uuids = list(ctx.session.execute(query).scalars())
    project = conf.placement.incomplete_consumer_project_id
    user = conf.placement.incomplete_consumer_user_id
    done, failed = 0, []
    for uuid in uuids:
        try:
            with ctx.session.begin_nested():
                consumer_obj.prepare(ctx, uuid, None, project, user)
        except exception.ConcurrentUpdate:
            # someone else created it: nothing left to do for this one
            if not consumer_obj.get_by_uuids(ctx, [uuid]):
                failed.append((uuid, 'consumer could not be created'))
                continue
        except exception.BerthException as exc:
            LOG.info('consumer %s not created: %s', uuid, exc)
            failed.append((uuid, str(exc)))
            continue
        done += 1
    return len(uuids), done, failed, uuids[-1] if uuids else marker
