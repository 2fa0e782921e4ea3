"""Quota limits per project (optionally per user), counted from allocations and consumers.

A limit caps either the units of one resource class or the number of
consumers of one consumer type held by a project (or one user of it).
Usage is never stored: it is counted from the allocations and consumers
tables, so it stays right whatever else is down.  Enforcement runs inside
the transaction that writes allocations (:func:`lock` before the write,
:func:`check` after it): the project rows are locked first, so two writers
for one project count one after the other and a burst can never end above a
limit (SQLite serialises writers anyway).
"""

from __future__ import annotations

from collections.abc import Iterable
import dataclasses
from typing import Any, cast

import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.placement import project_usage
from objects.placement import resource_class as rc_obj

_LIMIT = models.QuotaLimit.__table__
_PROJECT = models.Project.__table__

RESOURCES = 'resources'
CONSUMERS = 'consumers'
VIEWS = 'views'
# a view limits the sum of several classes: nova's "cores" is VCPU + PCPU
VIEW_CLASSES = {'cores': ('VCPU', 'PCPU')}

# what a limit set while [quota] enforce is false is answered with (API and CLI)
NOT_ENFORCED = ('limits are stored but not enforced: [quota] enforce is false, so no '
                'allocation write is checked against them')


@dataclasses.dataclass
class Limits:
    """The limits of one scope: ``{class: n}``, ``{consumer type: n}`` and
    ``{view: n}`` (a view of :data:`VIEW_CLASSES`)."""
    resources: dict = dataclasses.field(default_factory=dict)
    consumers: dict = dataclasses.field(default_factory=dict)
    views: dict = dataclasses.field(default_factory=dict)

    def __bool__(self):
        return bool(self.resources or self.consumers or self.views)


class TableLimits:
    """Limits from berth's own table (``[quota] limits_source = berth``).

    A limits source: ``name``, ``limits(ctx, project_id, user_id)``,
    ``prefetch(project_ids)`` (before a transaction) and ``warm_up()``.
    """

    name = 'berth'

    def limits(self, ctx: RequestContext, project_id: str,
               user_id: str | None = None) -> Limits:
        return get_limits(ctx, project_id, user_id)

    def prefetch(self, project_ids: Iterable[str]) -> None:
        """Nothing to read ahead: the table is read in the transaction."""

    def warm_up(self) -> None:
        """Nothing to warm."""


TABLE = TableLimits()


def _validate(ctx, limits):
    for kind in (limits.resources, limits.consumers):
        for name, value in kind.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise exception.InvalidQuota(
                    reason='%s: the limit must be a non-negative integer, got %r'
                           % (name, value))
    if limits.resources:
        try:
            rc_obj.ids_by_name(ctx, limits.resources)
        except exception.ResourceClassNotFound as exc:
            raise exception.InvalidQuota(reason=exc.message)


def _scope(project_id, user_id):
    return (_LIMIT.c.project_id == project_id) & (_LIMIT.c.user_id == (user_id or ''))


@db_api.reader
def get_limits(ctx: RequestContext, project_id: str, user_id: str | None = None) -> Limits:
    """The :class:`Limits` set for a project (``user_id`` None) or one of its users."""
    limits = Limits()
    for row in ctx.session.execute(sa.select(_LIMIT).where(_scope(project_id, user_id))):
        if row.resource_class:
            limits.resources[row.resource_class] = row.hard_limit
        else:
            limits.consumers[row.consumer_type] = row.hard_limit
    return limits


@db_api.writer
def set_limits(ctx: RequestContext, project_id: str, limits: Limits,
               user_id: str | None = None) -> None:
    """Replace every limit of the scope with ``limits`` (a :class:`Limits`).

    Raises InvalidQuota (negative or non-integer value, unknown class);
    nothing is written then.
    """
    _validate(ctx, limits)
    ctx.session.execute(_LIMIT.delete().where(_scope(project_id, user_id)))
    now = models._now()
    rows = [{'project_id': project_id, 'user_id': user_id or '', 'resource_class': rc,
             'consumer_type': '', 'hard_limit': n, 'created_at': now}
            for rc, n in sorted(limits.resources.items())]
    rows += [{'project_id': project_id, 'user_id': user_id or '', 'resource_class': '',
              'consumer_type': ct, 'hard_limit': n, 'created_at': now}
             for ct, n in sorted(limits.consumers.items())]
    if rows:
        ctx.session.execute(_LIMIT.insert(), rows)


@db_api.writer
def delete_limits(ctx: RequestContext, project_id: str, user_id: str | None = None) -> int:
    """Remove the scope's limits; returns how many there were."""
    res = ctx.session.execute(_LIMIT.delete().where(_scope(project_id, user_id)))
    return cast(sa.CursorResult, res).rowcount


def _usage(ctx, project_id, user_id, limits):
    """{(kind, name): current usage} of the limited names of one scope."""
    usage = {}
    if limits.resources or limits.views:
        totals = project_usage.get_totals(ctx, project_id, user_id)
        for rc in limits.resources:
            usage[(RESOURCES, rc)] = totals.get(rc, 0)
        for view in limits.views:
            usage[(VIEWS, view)] = sum(totals.get(rc, 0) for rc in VIEW_CLASSES[view])
    for ctype in limits.consumers:
        found = project_usage.get_by_consumer_type(ctx, project_id, user_id, ctype)
        usage[(CONSUMERS, ctype)] = found.get(ctype, {}).get('consumer_count', 0)
    return usage


@db_api.reader
def show(ctx: RequestContext, project_id: str, user_id: str | None = None,
         source: Any = TABLE, views: Iterable[str] = ()) -> dict[str, Any]:
    """``{'source', 'resources': {rc: {'limit', 'usage'}}, 'consumers': {type: {...}}}``.

    ``source`` is where limits come from (:data:`TABLE` or
    objects.placement.quota_keystone.KeystoneLimits); ``views`` names
    views (``cores``) to report even without a limit (limit None) under
    ``'views'``.
    """
    limits = source.limits(ctx, project_id, user_id)
    for view in views:
        limits.views.setdefault(view, None)
    usage = _usage(ctx, project_id, user_id, limits)
    kinds = (RESOURCES, CONSUMERS) + ((VIEWS,) if limits.views else ())
    body = {kind: {name: {'limit': n, 'usage': usage[(kind, name)]}
                   for name, n in sorted(getattr(limits, kind).items())}
            for kind in kinds}
    body['source'] = source.name
    return body


@dataclasses.dataclass
class _Scope:
    project_id: str
    user_id: str | None         # None: the project's own limits
    limits: Limits
    before: dict


def lock(ctx: RequestContext, pairs: Iterable[tuple[str, str]],
         source: Any = TABLE) -> list[_Scope]:
    """Lock the projects of ``pairs`` ((project, user) tuples) and count their usage.

    Call inside the writing transaction, before the write; pass the result
    to :func:`check` after it.  Project rows are locked in id order (where
    the database can; SQLite writers are serialised), so concurrent writers
    for one project count one after the other.  ``source`` gives the limits
    (:data:`TABLE` or a Keystone one, whose values were read ahead with
    ``prefetch`` so no HTTP runs under the locks).
    """
    projects = sorted({p for p, _ in pairs})
    ctx.session.execute(
        sa.select(_PROJECT.c.id).where(_PROJECT.c.external_id.in_(projects))
        .order_by(_PROJECT.c.id).with_for_update()).all()
    scopes = []
    for project_id in projects:
        users = [None] + sorted({u for p, u in pairs if p == project_id})
        for user_id in users:
            limits = source.limits(ctx, project_id, user_id)
            if limits:
                scopes.append(_Scope(project_id, user_id, limits,
                                     _usage(ctx, project_id, user_id, limits)))
    return scopes


def check(ctx: RequestContext, scopes: Iterable[_Scope]) -> None:
    """Raise QuotaExceeded when the write grew a usage above its limit.

    A usage already above a lowered limit may stay there or shrink.
    """
    for scope in scopes:
        after = _usage(ctx, scope.project_id, scope.user_id, scope.limits)
        for (kind, name), used in sorted(after.items()):
            limit = getattr(scope.limits, kind)[name]
            if used > limit and used > scope.before[(kind, name)]:
                who = 'project %s' % scope.project_id
                if scope.user_id:
                    who += ' user %s' % scope.user_id
                what = {RESOURCES: name, CONSUMERS: '%s consumers' % name,
                    VIEWS: '%s (%s)' % (name, ' + '.join(VIEW_CLASSES.get(name, ())))}[kind]
                raise exception.QuotaExceeded(scope=who, what=what, limit=limit,
                                              usage=used)
