"""Consumers of allocations, with their projects, users, types and generations.

A consumer row exists only while it holds allocations.  It is created with
generation 0 by its first allocation write, and every write that includes it
bumps the generation with a compare-and-swap in the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
import dataclasses
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.sql import in_list

_CONSUMER = models.Consumer.__table__
_PROJECT = models.Project.__table__
_USER = models.User.__table__
_TYPE = models.ConsumerType.__table__
_ALLOC = models.Allocation.__table__

UNKNOWN_TYPE = 'unknown'


@dataclasses.dataclass
class Consumer:
    id: int
    uuid: str
    project_id: str
    user_id: str
    generation: int
    consumer_type: str | None = None
    updated_at: object = None


def _new_id(result: sa.CursorResult[Any]) -> int:
    """The id of the one row ``result``'s INSERT made (its key is always there)."""
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError('an INSERT without its primary key')
    return key[0]


def _external_id(ctx, table, external_id):
    """The internal id of a project or user row, created on first use."""
    sel = sa.select(table.c.id).where(table.c.external_id == external_id)
    found = db_api.connection(ctx).execute(sel).scalar()
    if found is not None:
        return found
    try:
        return _new_id(db_api.connection(ctx).execute(table.insert().values(
            external_id=external_id, created_at=models._now())))
    except db_exc.DBDuplicateEntry:
        # another transaction created it; the caller's transaction retries
        raise exception.ConcurrentUpdate(
            what=table.name, reason='%s was created concurrently' % external_id)


def _scalar_id(table, column, param):
    return (sa.select(table.c.id).where(column == sa.bindparam(param))
            .scalar_subquery())


# the project, user and type ids of a write in one round trip (NULL = new)
_OWNER_IDS = sa.select(_scalar_id(_PROJECT, _PROJECT.c.external_id, 'project'),
                       _scalar_id(_USER, _USER.c.external_id, 'user'),
                       _scalar_id(_TYPE, _TYPE.c.name, 'type'))


def _owner_ids(ctx, project_id, user_id, consumer_type):
    """(project pk, user pk, type pk or None), creating the rows still missing."""
    project_pk, user_pk, type_pk = db_api.connection(ctx).execute(
        _OWNER_IDS, {'project': project_id, 'user': user_id,
                     'type': consumer_type or ''}).one()
    if project_pk is None:
        project_pk = _external_id(ctx, _PROJECT, project_id)
    if user_pk is None:
        user_pk = _external_id(ctx, _USER, user_id)
    if consumer_type is not None and type_pk is None:
        type_pk = _type_id(ctx, consumer_type)
    return project_pk, user_pk, type_pk


def new_consumer_columns(with_type: bool) -> list[str]:
    """The consumer columns :func:`new_consumer_select` fills, in order."""
    names = ['uuid', 'project_id', 'user_id']
    if with_type:
        names.append('consumer_type_id')
    return names + ['generation', 'created_at']


def new_consumer_select(with_type: bool, suffix: str = '') -> sa.Select:
    """The row of a new consumer whose project, user (and type) rows exist, by name.

    Its bind parameters are ``uuid``, ``project``, ``user`` (``type``),
    ``generation`` and ``now``, each followed by ``suffix``.  When one of
    the owner rows is missing the SELECT finds nothing.
    """
    user = _scalar_id(_USER, _USER.c.external_id, 'user' + suffix)
    columns = [sa.bindparam('uuid' + suffix, type_=_CONSUMER.c.uuid.type), _PROJECT.c.id,
               user]
    found = [_PROJECT.c.external_id == sa.bindparam('project' + suffix), user.is_not(None)]
    if with_type:
        kind = _scalar_id(_TYPE, _TYPE.c.name, 'type' + suffix)
        columns.append(kind)
        found.append(kind.is_not(None))
    columns += [sa.bindparam('generation' + suffix, type_=_CONSUMER.c.generation.type),
                sa.bindparam('now' + suffix, type_=_CONSUMER.c.created_at.type)]
    return sa.select(*columns).where(*found)


def _new_consumer(with_type):
    """INSERT of a new consumer whose project, user (and type) rows exist, by name.

    One statement instead of a lookup and an insert: when one of those rows
    is missing the SELECT finds nothing and no row is inserted (rowcount 0).
    """
    return _CONSUMER.insert().from_select(new_consumer_columns(with_type),
                                          new_consumer_select(with_type))


_NEW_CONSUMER = {False: _new_consumer(False), True: _new_consumer(True)}


def _type_id(ctx, name):
    sel = sa.select(_TYPE.c.id).where(_TYPE.c.name == name)
    found = db_api.connection(ctx).execute(sel).scalar()
    if found is not None:
        return found
    try:
        return _new_id(db_api.connection(ctx).execute(_TYPE.insert().values(
            name=name, created_at=models._now())))
    except db_exc.DBDuplicateEntry:
        raise exception.ConcurrentUpdate(
            what='consumer type', reason='%s was created concurrently' % name)


def _select():
    return (sa.select(_CONSUMER.c.id, _CONSUMER.c.uuid, _CONSUMER.c.generation,
                      _CONSUMER.c.created_at, _CONSUMER.c.updated_at,
                      _CONSUMER.c.project_id.label('project_pk'),
                      _CONSUMER.c.user_id.label('user_pk'),
                      _CONSUMER.c.consumer_type_id,
                      _PROJECT.c.external_id.label('project'),
                      _USER.c.external_id.label('user'),
                      _TYPE.c.name.label('type_name'))
            .join(_PROJECT, _PROJECT.c.id == _CONSUMER.c.project_id)
            .join(_USER, _USER.c.id == _CONSUMER.c.user_id)
            .outerjoin(_TYPE, _TYPE.c.id == _CONSUMER.c.consumer_type_id))


def _from_row(row):
    return Consumer(row.id, row.uuid, row.project, row.user, row.generation,
                    row.type_name, row.updated_at or row.created_at)


# built once: executing a prebuilt statement skips its construction and cache key
_BY_UUIDS = in_list.Statement(
    lambda uuids: _select().where(in_list.member(_CONSUMER.c.uuid, uuids)), 'uuids')


@db_api.reader
def get_by_uuids(ctx: RequestContext, uuids: Iterable[str]) -> dict[str, Consumer]:
    """{uuid: Consumer} of the consumers that exist."""
    rows = _BY_UUIDS.execute(db_api.connection(ctx), uuids=sorted(uuids))
    return {r.uuid: _from_row(r) for r in rows}


def _generation_conflict(uuid, expected, actual):
    def show(gen):
        return 'null' if gen is None else str(gen)
    return exception.ConsumerGenerationConflict(
        # Placement's words: "expected" is the consumer's, "got" the client's
        reason='expected %s but got %s (consumer %s)'
               % (show(actual), show(expected), uuid))


def check_generation(uuid: str, existing: Consumer | None, expected: int | None) -> None:
    """Raise ConsumerGenerationConflict unless ``expected`` matches (null = new)."""
    actual = existing.generation if existing is not None else None
    if expected != actual:
        raise _generation_conflict(uuid, expected, actual)


def prepare(ctx: RequestContext, uuid: str, existing: Consumer | None, project_id: str,
            user_id: str, consumer_type: str | None = None) -> int:
    """Create or update a consumer for a write and bump its generation.

    ``existing`` is the Consumer read in this transaction (or None).  A new
    consumer is inserted with generation 0 and bumped to 1 by this write;
    project, user and (when given) type are set to the request's values.
    Returns the consumer's new generation.  Must run in a writer transaction.
    """
    if existing is None and _insert_new(ctx, uuid, project_id, user_id, consumer_type):
        return 1
    project_pk, user_pk, type_pk = _owner_ids(ctx, project_id, user_id, consumer_type)
    values = {'project_id': project_pk, 'user_id': user_pk}
    if consumer_type is not None:
        values['consumer_type_id'] = type_pk
    if existing is None:
        insert_counted(ctx, uuid, _CONSUMER.insert(), dict(
            values, uuid=uuid, generation=1, created_at=models._now()))
        return 1
    generation = existing.generation
    params = {'c_uuid': uuid, 'expected': generation, 'new_generation': generation + 1,
              'now': models._now(), 'project_pk': project_pk, 'user_pk': user_pk}
    if consumer_type is not None:
        params['type_pk'] = type_pk
    res = db_api.connection(ctx).execute(_BUMP[consumer_type is not None], params)
    if res.rowcount != 1:
        raise exception.ConcurrentUpdate(
            what='consumer', reason='%s changed concurrently' % uuid)
    return generation + 1


def _bump(with_type: bool) -> sa.Update:
    """The consumer's generation compare-and-swap, setting its owners (and type)."""
    bump = (_CONSUMER.update().where(_CONSUMER.c.uuid == sa.bindparam('c_uuid'))
            .where(_CONSUMER.c.generation == sa.bindparam('expected'))
            .values(generation=sa.bindparam('new_generation'),
                    updated_at=sa.bindparam('now'), project_id=sa.bindparam('project_pk'),
                    user_id=sa.bindparam('user_pk')))
    if with_type:
        bump = bump.values(consumer_type_id=sa.bindparam('type_pk'))
    return bump


# prebuilt (one per shape): a rewrite of an existing consumer runs it every time
_BUMP = {False: _bump(False), True: _bump(True)}


def insert_counted(ctx: RequestContext, uuid: str, statement: sa.Insert,
                   params: dict[str, Any]) -> int:
    """Run a consumer INSERT; its row count (a duplicate is a lost race, ``uuid``'s)."""
    try:
        return db_api.connection(ctx).execute(statement, params).rowcount
    except db_exc.DBDuplicateEntry:
        # created by a concurrent write: retried, then checked again
        raise exception.ConcurrentUpdate(
            what='consumer', reason='%s was created concurrently' % uuid)


def _insert_new(ctx, uuid, project_id, user_id, consumer_type):
    """Insert a new consumer in one statement if its owner rows exist; whether it did.

    Generation 0, bumped by this same write: stored as 1.
    """
    params = {'uuid': uuid, 'project': project_id, 'user': user_id,
              'generation': 1, 'now': models._now()}
    if consumer_type is not None:
        params['type'] = consumer_type
    return insert_counted(ctx, uuid, _NEW_CONSUMER[consumer_type is not None], params) == 1


def delete_unused(ctx: RequestContext, uuids: Iterable[str]) -> None:
    """Remove the consumers among ``uuids`` that hold no allocations."""
    if not uuids:
        return
    db_api.connection(ctx).execute(
        _CONSUMER.delete().where(_CONSUMER.c.uuid.in_(list(uuids))).where(
            ~sa.exists().where(_ALLOC.c.consumer_id == _CONSUMER.c.uuid)))
