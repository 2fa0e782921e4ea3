"""Read-only summaries for operators: node allocations by state, capacity per class,
the conductor registry.

What ``/status`` and ``/metrics`` show; every function is one reader
transaction of a few aggregate queries, never a walk over rows.
"""

from __future__ import annotations

import dataclasses
import datetime
import threading

import sqlalchemy as sa

from common import context as berth_context
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import conductor as conductor_obj

_NALLOC = models.NodeAllocation.__table__
_INV = models.Inventory.__table__
_RC = models.ResourceClass.__table__
_ALLOC = models.Allocation.__table__
_CONSUMER = models.Consumer.__table__
_PROJECT = models.Project.__table__


def _now():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


@dataclasses.dataclass
class NodeAllocationSummary:
    """Node allocations per state, and the oldest one still ``allocating``."""
    counts: dict
    oldest_allocating_uuid: str | None = None
    oldest_allocating_conductor: str | None = None
    oldest_allocating_age: float | None = None


@dataclasses.dataclass
class ClassCapacity:
    """One resource class across every provider with inventory of it.

    ``capacity`` is the sum of (total - reserved) * allocation_ratio;
    ``top_consumers`` the largest holders, largest first:
    ``[{'consumer_uuid', 'project_id', 'used'}]``.
    """
    resource_class: str
    capacity: int
    used: int
    providers: int
    top_consumers: list


@db_api.reader
def node_allocation_summary(ctx: RequestContext) -> NodeAllocationSummary:
    """Node allocations by state (every state present) and the oldest allocating."""
    counts = dict.fromkeys(node_alloc_obj.STATES, 0)
    rows = ctx.session.execute(sa.select(_NALLOC.c.state, sa.func.count())
                               .group_by(_NALLOC.c.state))
    for state, count in rows:
        counts[state] = int(count)
    summary = NodeAllocationSummary(counts=counts)
    oldest = ctx.session.execute(
        sa.select(_NALLOC.c.uuid, _NALLOC.c.conductor_affinity, _NALLOC.c.created_at)
        .where(_NALLOC.c.state == node_alloc_obj.ALLOCATING)
        .order_by(_NALLOC.c.created_at, _NALLOC.c.id).limit(1)).first()
    if oldest is not None:
        summary.oldest_allocating_uuid = oldest.uuid
        summary.oldest_allocating_conductor = oldest.conductor_affinity
        summary.oldest_allocating_age = max(
            0.0, (_now() - oldest.created_at).total_seconds())
    return summary


@db_api.reader
def capacity_by_class(ctx: RequestContext, top: int = 5) -> list[ClassCapacity]:
    """A :class:`ClassCapacity` per resource class with inventory, by class name."""
    capacity = ctx.session.execute(
        sa.select(_RC.c.id, _RC.c.name,
                  sa.func.sum((_INV.c.total - _INV.c.reserved)
                              * _INV.c.allocation_ratio),
                  sa.func.count(_INV.c.resource_provider_id.distinct()))
        .select_from(_INV.join(_RC, _RC.c.id == _INV.c.resource_class_id))
        .group_by(_RC.c.id, _RC.c.name).order_by(_RC.c.name)).all()
    used = dict(ctx.session.execute(
        sa.select(_ALLOC.c.resource_class_id, sa.func.sum(_ALLOC.c.used))
        .group_by(_ALLOC.c.resource_class_id)).all())
    result = []
    for rc_id, name, cap, providers in capacity:
        result.append(ClassCapacity(
            resource_class=name, capacity=int(cap or 0), used=int(used.get(rc_id) or 0),
            providers=int(providers), top_consumers=_top_consumers(ctx, rc_id, top)))
    return result


def _top_consumers(ctx, rc_id, top):
    total = sa.func.sum(_ALLOC.c.used).label('used')
    rows = ctx.session.execute(
        sa.select(_ALLOC.c.consumer_id, _PROJECT.c.external_id, total)
        .select_from(_ALLOC.outerjoin(_CONSUMER, _CONSUMER.c.uuid == _ALLOC.c.consumer_id)
                     .outerjoin(_PROJECT, _PROJECT.c.id == _CONSUMER.c.project_id))
        .where(_ALLOC.c.resource_class_id == rc_id)
        .group_by(_ALLOC.c.consumer_id, _PROJECT.c.external_id)
        .order_by(total.desc(), _ALLOC.c.consumer_id).limit(top))
    return [{'consumer_uuid': consumer, 'project_id': project, 'used': int(amount)}
            for consumer, project, amount in rows]


def conductor_registry(ctx: RequestContext, timeout: float) -> list[dict]:
    """Every registered conductor, alive or dead, by hostname (for /status).

    ``[{'hostname', 'conductor_group', 'online', 'alive', 'heartbeat_age',
    'registered_at'}]``: ``heartbeat_age`` in seconds since its last
    heartbeat; ``alive`` as GET /v1/conductors says it (``timeout`` is
    ``[conductor] heartbeat_timeout``).
    """
    at = conductor_obj.now()
    found = conductor_obj.list_conductors(ctx, sort_key='hostname')
    return [{'hostname': c.hostname, 'conductor_group': c.conductor_group,
             'online': c.online, 'alive': c.alive(timeout, at),
             'heartbeat_age': round(c.heartbeat_age(at), 1),
             'registered_at': c.created_at.strftime('%Y-%m-%dT%H:%M:%SZ')}
            for c in found]


# -- whether the database answers now, within a bound ------------------------
# Asked with a bound the caller can rely on.
#
# The status page must answer within its bound while the database is down, and
# a connect to an unreachable server can block for the driver's whole
# connect timeout (PostgreSQL: 10 s, db/engines.py).  So the probe, one
# ``SELECT 1`` in a reader transaction, runs on a thread of its own and the
# caller waits at most ``timeout`` seconds for it.  A probe still running from
# an earlier question is not joined by a second one: the database is then
# reported unreachable at once, so a hung server costs one thread per
# process, never one per request.

_probe_lock = threading.Lock()
_running: threading.Thread | None = None


def _probe(db: db_api.Database, answer: dict) -> None:
    try:
        ctx = berth_context.admin_context(db)
        with db.reader(ctx):
            ctx.session.execute(sa.select(sa.literal(1))).scalar_one()
        answer['ok'] = True
    except Exception:  # every driver and pool error means "cannot reach it"
        answer['ok'] = False


def database_reachable(db: db_api.Database, timeout: float = 1.5) -> bool:
    """True when ``SELECT 1`` on ``db`` answered within ``timeout`` seconds.

    SQLite is a file of this host, never a server out of reach: True
    without a probe (and no probe thread held up by a busy host).
    """
    if getattr(db, 'is_sqlite', False):
        return True
    global _running
    answer: dict = {}
    with _probe_lock:
        if _running is not None and _running.is_alive():
            return False
        _running = threading.Thread(target=_probe, args=(db, answer),
                                    name='database-probe', daemon=True)
        _running.start()
        probe = _running
    probe.join(timeout)
    return bool(answer.get('ok'))
