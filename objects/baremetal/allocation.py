"""Node allocations (Ironic's /v1/allocations): rows, lookups, listing and plain writes.

The reservation of a node for an allocation lives in
``objects/baremetal/reservation.py``; this module only stores and reads rows.
"""

import dataclasses
import datetime
from typing import Any

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from common.node_allocation_contract import AllocationUpdate, NewAllocation
from db import api as db_api
from db import models
from objects.baremetal import extra_usage
from objects.baremetal import node as node_obj

_ALLOC = models.NodeAllocation.__table__
_NODE = models.Node.__table__

ALLOCATING = 'allocating'
ACTIVE = 'active'
ERROR = 'error'
STATES = (ALLOCATING, ACTIVE, ERROR)
SORT_KEYS = ('id', 'uuid', 'name', 'state', 'resource_class', 'created_at',
             'updated_at', 'owner', 'node_id', 'last_error')


@dataclasses.dataclass
class NodeAllocation:
    """One allocation row as read (or as written: :func:`as_written`).

    What a new row may lack is Optional: ``name``, ``owner``, the node
    (``node_id``/``node_uuid``) until one is reserved, ``last_error`` unless
    ``error``, ``resource_class`` (a backfill takes the node's),
    ``conductor_affinity`` of a row an older release wrote, ``updated_at``
    until the first update.  ``traits``, ``candidate_nodes`` and ``extra``
    read an empty list or object for NULL.
    """
    id: int
    uuid: str
    name: str | None
    node_id: int | None
    state: str
    last_error: str | None
    resource_class: str | None
    traits: list[str]
    candidate_nodes: list[str]
    extra: dict[str, Any]
    owner: str | None
    conductor_affinity: str | None
    created_at: datetime.datetime
    updated_at: datetime.datetime | None
    node_uuid: str | None = None


_COLUMNS = [f.name for f in dataclasses.fields(NodeAllocation) if f.name != 'node_uuid']


def _from_row(row):
    values = {c: getattr(row, c) for c in _COLUMNS}
    values['traits'] = values['traits'] or []
    values['candidate_nodes'] = values['candidate_nodes'] or []
    values['extra'] = values['extra'] or {}
    return NodeAllocation(node_uuid=row.node_uuid, **values)


def _select():
    return sa.select(_ALLOC, _NODE.c.uuid.label('node_uuid')).select_from(
        _ALLOC.outerjoin(_NODE, _NODE.c.id == _ALLOC.c.node_id))


def _ident_clause(ident):
    if uuidutils.is_uuid_like(ident):
        return _ALLOC.c.uuid == ident
    return _ALLOC.c.name == ident


# the lookups by uuid and by name, built once (every GET, PATCH and DELETE reads one)
_BY_UUID = _select().where(_ALLOC.c.uuid == sa.bindparam('ident'))
_BY_NAME = _select().where(_ALLOC.c.name == sa.bindparam('ident'))


def get_in_txn(ctx, ident):
    """The allocation by uuid or name, inside the caller's transaction."""
    q = _BY_UUID if uuidutils.is_uuid_like(ident) else _BY_NAME
    row = ctx.session.execute(q, {'ident': ident}).first()
    if row is None:
        raise exception.AllocationNotFound(allocation=ident)
    return _from_row(row)


def get_for_update(ctx, ident):
    """The allocation, its row locked until the caller's writer ends (destroy).

    A writer that decides from the row must lock it first: otherwise a
    conductor's reservation can commit between the read (no node yet) and
    the write, and the node is left pointing at a deleted allocation.
    """
    ctx.session.execute(sa.select(_ALLOC.c.id).where(_ident_clause(ident))
                        .with_for_update())
    return get_in_txn(ctx, ident)


@db_api.reader
def get(ctx, ident):
    """The allocation whose uuid (or, if not uuid-like, name) is ``ident``."""
    return get_in_txn(ctx, ident)


_BY_ID = _select().where(_ALLOC.c.id == sa.bindparam('alloc_id'))
INSERT = _ALLOC.insert()
# several rows in one statement, their ids in the order of the rows given
INSERT_RETURNING_ID = _ALLOC.insert().returning(_ALLOC.c.id, sort_by_parameter_order=True)


@db_api.reader
def get_by_id(ctx, alloc_id):
    """The allocation with database id ``alloc_id``."""
    return get_by_id_in_txn(ctx, alloc_id)


def get_by_id_in_txn(ctx, alloc_id):
    """:func:`get_by_id` inside the caller's transaction."""
    row = ctx.session.execute(_BY_ID, {'alloc_id': alloc_id}).first()
    if row is None:
        raise exception.AllocationNotFound(allocation=alloc_id)
    return _from_row(row)


_BY_IDS = _select().where(_ALLOC.c.id.in_(sa.bindparam('alloc_ids', expanding=True)))


def get_many_in_txn(ctx, alloc_ids):
    """``{id: allocation}`` of those of ``alloc_ids`` that exist, in one query."""
    rows = ctx.session.execute(_BY_IDS, {'alloc_ids': list(alloc_ids)}).all()
    return {row.id: _from_row(row) for row in rows}


@db_api.reader
def owners(ctx, alloc_ids):
    """``(id, uuid, owner)`` of the allocations among ``alloc_ids`` (a policy check's)."""
    return ctx.session.execute(sa.select(_ALLOC.c.id, _ALLOC.c.uuid, _ALLOC.c.owner).where(
        _ALLOC.c.id.in_(list(alloc_ids)))).all()


_INSTANCE_HOLDER = sa.select(_NODE.c.uuid).where(
    _NODE.c.instance_uuid == sa.bindparam('instance_uuid')).limit(1)


@db_api.reader
def instance_holder(ctx, alloc_uuid):
    """The uuid of the node whose instance is ``alloc_uuid`` (it holds it), or None."""
    return ctx.session.execute(_INSTANCE_HOLDER, {'instance_uuid': alloc_uuid}).scalar()


@db_api.reader
def get_by_node(ctx, node_ident):
    """The allocation holding the node; AllocationNotFound when it has none."""
    node = node_obj.get(ctx, node_ident)
    row = ctx.session.execute(_select().where(_ALLOC.c.node_id == node.id)).first()
    if row is None:
        raise exception.AllocationNotFound(allocation='for node %s' % node.uuid)
    return _from_row(row)


@db_api.reader
def list_allocations(ctx, filters=None, limit=None, marker=None, sort_key='id',
                     sort_dir='asc'):
    """Allocations matching ``filters`` (state, resource_class, node_id, owner)."""
    q = _select()
    for key, value in (filters or {}).items():
        if value is not None:
            q = q.where(_ALLOC.c[key] == value)
    q = node_obj.paginate(q, _ALLOC, limit, marker, sort_key, sort_dir,
                          lambda m: get_in_txn(ctx, m), exception.AllocationNotFound)
    return [_from_row(r) for r in ctx.session.execute(q).all()]


def stamp(ctx: Any) -> datetime.datetime:
    """The current time as the database will store it (whole seconds on MySQL,
    whose DATETIME columns would otherwise round it), for answers built from
    what was written rather than read back."""
    return stamp_for(ctx.session.get_bind().dialect.name)


def stamp_for(dialect_name: str) -> datetime.datetime:
    """:func:`stamp` for an engine of dialect ``dialect_name``."""
    now = models._now()
    if dialect_name == 'mysql':
        now = now.replace(microsecond=0)
    return now


def _duplicate(exc, values):
    if 'name' in (exc.columns or ()):
        return exception.AllocationDuplicateName(name=values.get('name'))
    return exception.AllocationAlreadyExists(uuid=values.get('uuid'))


def insert_in_txn(ctx, values):
    """Insert a row inside the caller's writer; return its id."""
    values = dict(values, created_at=models._now(),
                  extra_bytes=extra_usage.size(values.get('extra')))
    try:
        with ctx.session.begin_nested():
            return ctx.session.execute(_ALLOC.insert().values(**values)
                                       ).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@db_api.writer
def create(ctx: Any, new: NewAllocation, conductor_affinity: str | None = None,
           extra_cap: int = 0) -> NodeAllocation:
    """Store a new allocation, ``allocating`` with its ``conductor_affinity``.

    One INSERT (no savepoint: it is the whole transaction); the answer is
    built from what was written, not read back.  ``extra_cap``: ``[allocation]
    max_extra_bytes_per_project`` (objects/baremetal/extra_usage.py).
    """
    extra_usage.check(ctx, new.owner, new.extra, extra_cap)
    return _insert(ctx, new_row(new, conductor_affinity, stamp(ctx)))


@db_api.writer
def create_row(ctx: Any, values: dict[str, Any]) -> NodeAllocation:
    """Store a row of exactly these columns (``allocating`` and a new uuid unless
    given): a test's or a tool's seed.  No REST or RPC write comes here; theirs
    is :func:`create` (a NewAllocation)."""
    values = dict(values, created_at=stamp(ctx))
    values.setdefault('uuid', uuidutils.generate_uuid())
    values.setdefault('state', ALLOCATING)
    return _insert(ctx, values)


def _insert(ctx: Any, values: dict[str, Any]) -> NodeAllocation:
    try:
        alloc_id = ctx.session.execute(INSERT, dict(
            values, extra_bytes=extra_usage.size(values.get('extra')))
        ).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)
    return as_written(values, alloc_id)


def new_row(new: NewAllocation, conductor_affinity: str | None,
            now: datetime.datetime) -> dict[str, Any]:
    """The columns :func:`create` writes for ``new`` (``allocating``, created at ``now``)."""
    values = dict(new.columns(), state=ALLOCATING, conductor_affinity=conductor_affinity,
                  created_at=now)
    values.setdefault('uuid', uuidutils.generate_uuid())
    return values


def as_written(values: dict[str, Any], alloc_id: int) -> NodeAllocation:
    """The NodeAllocation that row ``values`` (see :func:`new_row`) stored as ``alloc_id``."""
    row: dict[str, Any] = dict.fromkeys(_COLUMNS)
    row.update(values, id=alloc_id)
    row['traits'] = row['traits'] or []
    row['candidate_nodes'] = row['candidate_nodes'] or []
    row['extra'] = row['extra'] or {}
    return NodeAllocation(**row)


@db_api.writer
def update(ctx: Any, ident: str, change: AllocationUpdate,
           extra_cap: int = 0) -> NodeAllocation:
    """Change name and/or extra (PATCH); the state is not checked, as in Ironic.

    ``extra_cap``: ``[allocation] max_extra_bytes_per_project``.
    """
    alloc = get_in_txn(ctx, ident)
    values = change.columns()
    if 'extra' in values:
        extra_usage.check(ctx, alloc.owner, values['extra'], extra_cap,
                          exclude_id=alloc.id, old_extra=alloc.extra)
    try:
        with ctx.session.begin_nested():
            ctx.session.execute(_ALLOC.update().where(_ALLOC.c.id == alloc.id)
                                .values(updated_at=models._now(),
                                        **extra_usage.sized(values)))
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)
    return get_in_txn(ctx, alloc.uuid)


@db_api.reader
def list_allocating(ctx, affinity=None, older_than=None):
    """``allocating`` rows, optionally of one affinity host and created before a time.

    Each row has ``id``, ``uuid``, ``conductor_affinity`` and ``since`` (its
    last update, else its creation: naive UTC).
    """
    since = sa.func.coalesce(_ALLOC.c.updated_at, _ALLOC.c.created_at)
    q = sa.select(_ALLOC.c.id, _ALLOC.c.uuid, _ALLOC.c.conductor_affinity,
                  since.label('since')).where(_ALLOC.c.state == ALLOCATING)
    if affinity is not None:
        q = q.where(_ALLOC.c.conductor_affinity == affinity)
    if older_than is not None:
        q = q.where(since < older_than)
    return ctx.session.execute(q.order_by(_ALLOC.c.id)).all()


@db_api.writer
def take_over(ctx, alloc_id, old_host, new_host):
    """Move an ``allocating`` row from ``old_host`` to ``new_host``; True iff this call did."""
    if old_host == new_host:
        return False
    res = ctx.session.execute(_ALLOC.update().where(
        _ALLOC.c.id == alloc_id, _ALLOC.c.state == ALLOCATING,
        _ALLOC.c.conductor_affinity == old_host).values(
            conductor_affinity=new_host, updated_at=models._now()))
    return res.rowcount == 1


@db_api.writer
def touch(ctx, alloc_id, host):
    """Bump updated_at of our own ``allocating`` row (a sweep re-drives it); True iff ours."""
    res = ctx.session.execute(_ALLOC.update().where(
        _ALLOC.c.id == alloc_id, _ALLOC.c.state == ALLOCATING,
        _ALLOC.c.conductor_affinity == host).values(updated_at=models._now()))
    return res.rowcount == 1


@db_api.writer
def set_error(ctx, alloc_id, host, message):
    """``allocating`` -> ``error`` iff the row is still ours.

    Returns the ``updated_at`` written when it changed, else None.
    """
    now = stamp(ctx)
    q = _ALLOC.update().where(_ALLOC.c.id == alloc_id, _ALLOC.c.state == ALLOCATING)
    if host is not None:
        q = q.where(_ALLOC.c.conductor_affinity == host)
    res = ctx.session.execute(q.values(state=ERROR, last_error=message, node_id=None,
                                       updated_at=now))
    return now if res.rowcount == 1 else None


@db_api.writer
def delete_unstarted(ctx, alloc_id):
    """Remove an ``allocating`` row whose hand-over could not be sent; whether it did.

    The API's undo of its own :func:`create` (nothing was handed to a
    conductor).  False when a conductor finished the row meanwhile (its
    re-drive reads the database, not the broker): the allocation then exists.
    """
    return ctx.session.execute(_ALLOC.delete().where(
        _ALLOC.c.id == alloc_id, _ALLOC.c.state == ALLOCATING)).rowcount == 1
