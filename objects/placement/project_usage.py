"""Usage totals of a project (and optionally one user), for GET /usages.

Every query groups by every selected non-aggregate column, so it is valid on
PostgreSQL as well as SQLite and MySQL.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import consumer as consumer_obj

_ALLOC = models.Allocation.__table__
_CONSUMER = models.Consumer.__table__
_PROJECT = models.Project.__table__
_USER = models.User.__table__
_TYPE = models.ConsumerType.__table__
_RC = models.ResourceClass.__table__

ALL = 'all'
UNKNOWN = consumer_obj.UNKNOWN_TYPE


def _base(columns, project_id, user_id, consumer_type=None):
    """SELECT columns FROM allocations of the project's (and user's) consumers."""
    query = (sa.select(*columns).select_from(_ALLOC)
             .join(_CONSUMER, _CONSUMER.c.uuid == _ALLOC.c.consumer_id)
             .join(_PROJECT, _PROJECT.c.id == _CONSUMER.c.project_id)
             .outerjoin(_TYPE, _TYPE.c.id == _CONSUMER.c.consumer_type_id)
             .where(_PROJECT.c.external_id == project_id))
    if user_id is not None:
        query = (query.join(_USER, _USER.c.id == _CONSUMER.c.user_id)
                 .where(_USER.c.external_id == user_id))
    if consumer_type == UNKNOWN:
        query = query.where(_CONSUMER.c.consumer_type_id.is_(None))
    elif consumer_type not in (None, ALL):
        query = query.where(_TYPE.c.name == consumer_type)
    return query


@db_api.reader
def get_totals(ctx: RequestContext, project_id: str, user_id: str | None = None) -> dict[str, int]:
    """{class name: total used} of the project's (and user's) consumers."""
    query = (_base([_RC.c.name, sa.func.sum(_ALLOC.c.used)], project_id, user_id)
             .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
             .group_by(_RC.c.name))
    return {name: int(total) for name, total in ctx.session.execute(query)}


@db_api.reader
def get_by_consumer_type(ctx: RequestContext, project_id: str, user_id: str | None = None,
                         consumer_type: str | None = None) -> dict[str, dict[str, int]]:
    """Usage grouped by consumer type (microversion 1.38).

    Returns ``{group: {'consumer_count': n, class name: total, ...}}``.
    Untyped consumers form the ``unknown`` group; ``consumer_type`` filters
    to one type, ``unknown`` or ``all`` (one group over every consumer).
    """
    group: sa.ColumnElement[str]
    if consumer_type == ALL:
        group, group_by = sa.literal(ALL), []
    else:
        # the label is a function of the grouped column: valid on PostgreSQL
        group, group_by = sa.func.coalesce(_TYPE.c.name, UNKNOWN), [_TYPE.c.name]
    totals = (_base([group, _RC.c.name, sa.func.sum(_ALLOC.c.used)],
                    project_id, user_id, consumer_type)
              .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
              .group_by(*group_by, _RC.c.name))
    usages: dict[Any, dict[str, int]] = {}
    for name, rc_name, total in ctx.session.execute(totals):
        usages.setdefault(name, {})[rc_name] = int(total)
    counts = _base([group, sa.func.count(sa.distinct(_CONSUMER.c.id))],
                   project_id, user_id, consumer_type)
    if group_by:
        counts = counts.group_by(*group_by)
    for name, count in ctx.session.execute(counts):
        if name in usages:
            usages[name]['consumer_count'] = int(count)
    return usages
