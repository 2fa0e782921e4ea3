"""Node history (Ironic API 1.78): the events of a node, oldest first.

An event is written in the transaction of the change it records, by
whoever makes that change (the API process, or the conductor that ends an
allocation): provision state changes (``provisioning``), maintenance on and
off (``maintenance``) and power changes (``power``).  Each row keeps the
user and project of the request, the node's provision state and target
after the change and the seconds spent in the previous state (Ironic's
1.113/1.115 fields; the API shows what the caller's version allows).
The rows go with their node.
"""

import dataclasses
import datetime
from typing import Any

from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from db import api as db_api
from db import models

_HISTORY = models.NodeHistory.__table__
INFO = 'INFO'
ERROR = 'ERROR'


@dataclasses.dataclass
class Event:
    uuid: str
    created_at: datetime.datetime
    severity: str
    event_type: str
    event: str
    conductor: str | None
    user: str | None
    project: str | None
    state: str | None
    target_provision_state: str | None
    duration_seconds: int | None


_FIELDS = [f.name for f in dataclasses.fields(Event)]


def record(ctx: Any, node: Any, event: str, event_type: str, state: str | None = None,
           severity: str = INFO, conductor: str | None = None) -> None:
    """Add one event for ``node`` (a Node before the change; ``state`` after it)."""
    now = models._now()
    since = node.provision_updated_at
    ctx.session.execute(_HISTORY.insert().values(
        uuid=uuidutils.generate_uuid(), node_id=node.id, conductor=conductor,
        user=getattr(ctx, 'user_id', None), project=getattr(ctx, 'project_id', None),
        severity=severity, event_type=event_type, event=event,
        state=state or node.provision_state,
        target_provision_state=node.target_provision_state,
        duration_seconds=int((now - since).total_seconds()) if since else None,
        created_at=now))


def delete_for_node(ctx: Any, node_id: int) -> None:
    ctx.session.execute(_HISTORY.delete().where(_HISTORY.c.node_id == node_id))


def _row(row):
    return Event(**{f: getattr(row, f) for f in _FIELDS})


@db_api.reader
def list_for_node(ctx: Any, node_id: int, limit: int, marker: str | None = None,
                  sort_dir: str = 'asc') -> list[Event]:
    """Up to ``limit`` events of the node after the event ``marker`` (a uuid)."""
    q = sa.select(_HISTORY).where(_HISTORY.c.node_id == node_id)
    order = _HISTORY.c.id.asc() if sort_dir == 'asc' else _HISTORY.c.id.desc()
    if marker is not None:
        mark = ctx.session.execute(sa.select(_HISTORY.c.id).where(
            _HISTORY.c.uuid == marker, _HISTORY.c.node_id == node_id)).scalar()
        if mark is None:
            raise exception.NodeHistoryNotFound(history=marker)
        q = q.where(_HISTORY.c.id > mark if sort_dir == 'asc' else _HISTORY.c.id < mark)
    return [_row(r) for r in ctx.session.execute(q.order_by(order).limit(limit))]


@db_api.reader
def get(ctx: Any, node_id: int, uuid: str) -> Event:
    row = ctx.session.execute(sa.select(_HISTORY).where(
        _HISTORY.c.node_id == node_id, _HISTORY.c.uuid == uuid)).first()
    if row is None:
        raise exception.NodeHistoryNotFound(history=uuid)
    return _row(row)
