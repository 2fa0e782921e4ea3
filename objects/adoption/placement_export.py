"""``berth-manage export placement``: berth's state written into Placement's own schema.

The way back after an adoption.  The target is an empty Placement database
(``placement-manage db sync`` has run on it; Placement may have started on it
once, which writes its standard classes and traits).  Everything berth holds is
written in one transaction with the same uuids and generations, so that a
Placement started on the target answers as berth did:

* resource classes by name: standard ones at the id Placement gives them (their
  index in os-resource-classes), custom ones from 10000 in berth's order;
* traits by name: the ones the target lacks are added;
* projects, users, consumer types by their external id / name;
* providers (parent and root), aggregates, inventories, provider traits and
  aggregates, consumers and allocations with berth's own row ids (the target
  holds none of them), the PostgreSQL sequences moved past them afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
import datetime
import os
from typing import Any

import os_resource_classes
import sqlalchemy as sa

from common.context import RequestContext
from db import api as db_api
from db import models
from objects.adoption import placement_schema as ps

# rows per INSERT statement
BATCH = 2000
# target tables that must be empty (the state berth writes owns them)
MUST_BE_EMPTY = ('resource_providers', 'consumers', 'allocations', 'inventories',
                 'placement_aggregates')
_STANDARD_RC_ID = {name: i for i, name in enumerate(os_resource_classes.STANDARDS)}


class ExportRefused(Exception):
    """The target cannot take the export: one line saying what and what to do."""


def shown_url(url: str) -> str:
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return '<unparsable URL>'


def _rows(ctx: RequestContext, model: Any, order: Any = None) -> list[Any]:
    table = model.__table__
    query = sa.select(table)
    if order is not None:
        query = query.order_by(order)
    elif 'id' in table.c:
        query = query.order_by(table.c.id)
    return list(ctx.session.execute(query))


@db_api.reader
def read_berth(ctx: RequestContext) -> dict[str, list[Any]]:
    """Every Placement row berth holds, read in one transaction."""
    return {
        'resource_classes': _rows(ctx, models.ResourceClass),
        'traits': _rows(ctx, models.Trait),
        'projects': _rows(ctx, models.Project),
        'users': _rows(ctx, models.User),
        'consumer_types': _rows(ctx, models.ConsumerType),
        'resource_providers': _rows(ctx, models.ResourceProvider),
        'placement_aggregates': _rows(ctx, models.PlacementAggregate),
        'resource_provider_aggregates': _rows(
            ctx, models.ResourceProviderAggregate,
            models.ResourceProviderAggregate.__table__.c.resource_provider_id),
        'resource_provider_traits': _rows(
            ctx, models.ResourceProviderTrait,
            models.ResourceProviderTrait.__table__.c.resource_provider_id),
        'inventories': _rows(ctx, models.Inventory),
        'consumers': _rows(ctx, models.Consumer),
        'allocations': _rows(ctx, models.Allocation),
    }


def _engine(url: str) -> sa.engine.Engine:
    try:
        parsed = sa.engine.make_url(url)
        if parsed.get_backend_name() == 'sqlite' and not os.path.isfile(
                parsed.database or ''):
            # never create a file: the target must exist and be db-synced
            raise ExportRefused('the target %s is not an existing SQLite file; run '
                                'placement-manage db sync on it first' % shown_url(url))
        return sa.create_engine(url, poolclass=sa.pool.NullPool)
    except (sa.exc.ArgumentError, ValueError) as exc:
        raise ExportRefused('--connection %r is not a SQLAlchemy URL (%s); expected '
                            'dialect+driver://user:password@host:port/database'
                            % (shown_url(url), str(exc).splitlines()[0])) from None
    except ImportError as exc:
        raise ExportRefused('the driver of --connection %s is not installed (%s)'
                            % (shown_url(url), exc.name or exc)) from None


def _stamp(row: Any) -> dict[str, Any]:
    return {'created_at': row.created_at or datetime.datetime.utcnow(),
            'updated_at': row.updated_at}


def _insert(conn: sa.engine.Connection, table: sa.Table, rows: Iterable[dict]) -> int:
    batch: list[dict] = []
    count = 0
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            conn.execute(table.insert(), batch)
            count += len(batch)
            batch = []
    if batch:
        conn.execute(table.insert(), batch)
        count += len(batch)
    return count


def _by_name(conn: sa.engine.Connection, table: sa.Table, key: str) -> dict[str, int]:
    return {r[0]: r[1] for r in conn.execute(sa.select(table.c[key], table.c.id))}


def _check_target(conn: sa.engine.Connection, url: str) -> str:
    try:
        revision = ps.schema_revision(conn)
    except ps.SchemaError as exc:
        raise ExportRefused('%s: %s' % (shown_url(url), exc)) from None
    for name in MUST_BE_EMPTY:
        table = ps.metadata.tables[name]
        count = conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()
        if count:
            raise ExportRefused(
                'the target %s is not empty (%d row(s) in %s); export writes only into '
                'an empty Placement database: create a new one and run placement-manage '
                'db sync on it' % (shown_url(url), count, name))
    return revision


def _named(conn: sa.engine.Connection, table: sa.Table, key: str, rows: list[Any],
           id_for: Any) -> tuple[dict[int, int], int]:
    """Map berth's ids to the target's by name; insert the names the target lacks."""
    have = _by_name(conn, table, key)
    next_id = max(have.values(), default=0) + 1
    taken = set(have.values())
    mapping, new = {}, []
    for row in rows:
        name = getattr(row, key)
        if name in have:
            mapping[row.id] = have[name]
            continue
        target_id = id_for(name) if id_for else None
        if target_id is None or target_id in taken:
            target_id = next_id
        next_id = max(next_id, target_id + 1)
        taken.add(target_id)
        have[name] = mapping[row.id] = target_id
        new.append({'id': target_id, key: name, **_stamp(row)})
    return mapping, _insert(conn, table, new)


def _class_ids(conn: sa.engine.Connection, rows: list[Any]) -> tuple[dict[int, int], int]:
    """Standard classes at Placement's ids, custom ones from 10000 in berth's order."""
    table = ps.resource_classes
    have = _by_name(conn, table, 'name')
    taken = set(have.values())
    next_custom = max([i for i in taken if i >= ps.FIRST_CUSTOM_RESOURCE_CLASS_ID]
                      + [ps.FIRST_CUSTOM_RESOURCE_CLASS_ID - 1]) + 1
    mapping, new = {}, []
    for row in rows:
        if row.name in have:
            mapping[row.id] = have[row.name]
            continue
        target_id = _STANDARD_RC_ID.get(row.name)
        if target_id is None or target_id in taken:
            target_id, next_custom = next_custom, next_custom + 1
        taken.add(target_id)
        have[row.name] = mapping[row.id] = target_id
        new.append({'id': target_id, 'name': row.name, **_stamp(row)})
    return mapping, _insert(conn, table, new)


def _reset_sequences(conn: sa.engine.Connection) -> None:
    """On PostgreSQL, move each id sequence past the ids written explicitly."""
    if conn.dialect.name != 'postgresql':
        return
    for table in ps.TABLES:
        if 'id' not in table.c:
            continue
        seq = conn.execute(sa.select(sa.func.pg_get_serial_sequence(table.name, 'id'))
                           ).scalar()
        if seq:
            following = sa.select(sa.func.coalesce(sa.func.max(table.c.id), 0) + 1)
            conn.execute(sa.select(sa.func.setval(seq, following.scalar_subquery(),
                                                  sa.false())))


def write(conn: sa.engine.Connection, url: str, state: dict[str, list[Any]]) -> dict:
    """Write ``state`` (from :func:`read_berth`) through ``conn``; counts per table."""
    revision = _check_target(conn, url)
    if conn.dialect.name == 'mysql':
        # VCPU's id is 0 in Placement: keep MySQL from taking 0 as "next id"
        conn.execute(sa.text("SET SESSION sql_mode = "
                             "CONCAT(@@SESSION.sql_mode, ',NO_AUTO_VALUE_ON_ZERO')"))
    typed = ps.has_consumer_types(revision)
    if not typed and any(c.consumer_type_id for c in state['consumers']):
        raise ExportRefused('the target %s is at Placement schema revision %s, before '
                            'consumer types; run placement-manage db sync on it'
                            % (shown_url(url), revision))
    counts: dict[str, int] = {}
    rc_map, counts['resource_classes'] = _class_ids(conn, state['resource_classes'])
    trait_map, counts['traits'] = _named(conn, ps.traits, 'name', state['traits'], None)
    project_map, counts['projects'] = _named(conn, ps.projects, 'external_id',
                                             state['projects'], None)
    user_map, counts['users'] = _named(conn, ps.users, 'external_id', state['users'], None)
    type_map: dict[int, int] = {}
    if typed:
        type_map, counts['consumer_types'] = _named(conn, ps.consumer_types, 'name',
                                                    state['consumer_types'], None)
    providers = state['resource_providers']
    counts['resource_providers'] = _insert(conn, ps.resource_providers, (
        {'id': p.id, 'uuid': p.uuid, 'name': p.name, 'generation': p.generation,
         'root_provider_id': None, 'parent_provider_id': None, **_stamp(p)}
        for p in providers))
    tree = [p for p in providers if p.parent_provider_id or p.root_provider_id]
    rp = ps.resource_providers
    for start in range(0, len(tree), BATCH):
        conn.execute(
            rp.update().where(rp.c.id == sa.bindparam('b_id')).values(
                root_provider_id=sa.bindparam('b_root'),
                parent_provider_id=sa.bindparam('b_parent')),
            [{'b_id': p.id, 'b_root': p.root_provider_id or p.id,
              'b_parent': p.parent_provider_id} for p in tree[start:start + BATCH]])
    counts['placement_aggregates'] = _insert(conn, ps.placement_aggregates, (
        {'id': a.id, 'uuid': a.uuid, **_stamp(a)} for a in state['placement_aggregates']))
    counts['resource_provider_aggregates'] = _insert(
        conn, ps.resource_provider_aggregates,
        ({'resource_provider_id': r.resource_provider_id, 'aggregate_id': r.aggregate_id,
          **_stamp(r)} for r in state['resource_provider_aggregates']))
    counts['resource_provider_traits'] = _insert(conn, ps.resource_provider_traits, (
        {'resource_provider_id': r.resource_provider_id,
         'trait_id': trait_map[r.trait_id], **_stamp(r)}
        for r in state['resource_provider_traits']))
    counts['inventories'] = _insert(conn, ps.inventories, (
        {'id': i.id, 'resource_provider_id': i.resource_provider_id,
         'resource_class_id': rc_map[i.resource_class_id], 'total': i.total,
         'reserved': i.reserved, 'min_unit': i.min_unit, 'max_unit': i.max_unit,
         'step_size': i.step_size, 'allocation_ratio': i.allocation_ratio, **_stamp(i)}
        for i in state['inventories']))

    def consumer(c: Any) -> dict[str, Any]:
        row = {'id': c.id, 'uuid': c.uuid, 'project_id': project_map[c.project_id],
               'user_id': user_map[c.user_id], 'generation': c.generation, **_stamp(c)}
        if typed:
            row['consumer_type_id'] = type_map.get(c.consumer_type_id)
        return row

    consumers = ps.consumers if typed else sa.Table(
        'consumers', sa.MetaData(), *[col.copy() for col in ps.consumer_columns(revision)],
        sa.Column('created_at', sa.DateTime), sa.Column('updated_at', sa.DateTime))
    counts['consumers'] = _insert(conn, consumers, (consumer(c) for c in state['consumers']))
    counts['allocations'] = _insert(conn, ps.allocations, (
        {'id': a.id, 'resource_provider_id': a.resource_provider_id,
         'resource_class_id': rc_map[a.resource_class_id], 'consumer_id': a.consumer_id,
         'used': a.used, **_stamp(a)} for a in state['allocations']))
    _reset_sequences(conn)
    return counts


def run(ctx: RequestContext, url: str) -> dict[str, int]:
    """Export berth's state (``ctx``) into the Placement database at ``url``, all or nothing."""
    engine = _engine(url)
    try:
        try:
            with engine.connect() as probe:
                probe.execute(sa.select(sa.literal(1)))
        except sa.exc.SQLAlchemyError as exc:
            raise ExportRefused('cannot open the target %s (%s); check --connection'
                                % (shown_url(url), str(exc.orig if hasattr(exc, 'orig')
                                                       else exc).splitlines()[0])) from None
        state = read_berth(ctx)
        try:
            with engine.begin() as conn:
                return write(conn, url, state)
        except sa.exc.SQLAlchemyError as exc:
            raise ExportRefused('writing to the target %s failed, nothing was written '
                                '(%s); is it a Placement database after placement-manage '
                                'db sync?' % (shown_url(url), str(getattr(exc, 'orig', exc)
                                                                   ).splitlines()[0])) from None
    finally:
        engine.dispose()
