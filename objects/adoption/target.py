"""berth's own Placement tables as a State, and the writes that turn it into the source's.

Everything here runs on one Core connection inside the caller's single
write transaction: an error anywhere rolls every write of the run back.
Only the rows a :class:`~objects.adoption.state.Change` names are written;
unchanged rows are not touched.  Surviving providers whose row,
inventories, traits or aggregates change get a new ``updated_at`` (the
candidate index re-reads a provider whose scanned row changed); usage is
summed by the index on every refresh, and the commit itself moves the
change token that the answer caches key on (db/change.py).
"""

from __future__ import annotations

from collections.abc import Iterable
import datetime
import functools
import json
import operator
from typing import Any

import sqlalchemy as sa

from db import models
from objects.adoption import source
from objects.adoption import state as state_mod

_RC = models.ResourceClass.__table__
_TRAIT = models.Trait.__table__
_PROJ = models.Project.__table__
_USER = models.User.__table__
_CT = models.ConsumerType.__table__
_RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_AGG = models.PlacementAggregate.__table__
_RPA = models.ResourceProviderAggregate.__table__
_RPT = models.ResourceProviderTrait.__table__
_CONS = models.Consumer.__table__
_ALLOC = models.Allocation.__table__
_IMPORTS = models.PlacementImport.__table__

# the tables whose rows are names: (table, name column)
_NAMED = {'resource_classes': (_RC, 'name'), 'traits': (_TRAIT, 'name'),
          'projects': (_PROJ, 'external_id'), 'users': (_USER, 'external_id'),
          'consumer_types': (_CT, 'name'), 'placement_aggregates': (_AGG, 'uuid')}
CHUNK = 5000                  # rows per executemany / ids per IN list


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class Ids:
    """berth's local ids of the natural keys (filled by :func:`read`, kept up to date)."""

    def __init__(self) -> None:
        self.named: dict[str, dict[str, int]] = {t: {} for t in _NAMED}
        self.providers: dict[str, int] = {}
        self.inventories: dict[tuple, int] = {}
        self.consumers: dict[str, int] = {}
        self.allocations: dict[tuple, int] = {}
        self.uuid_of: dict[int, str] = {}
        self.consumer_generations: list[tuple[str, int]] = []  # (uuid, generation)


def read(conn: sa.engine.Connection) -> tuple[state_mod.State, Ids]:
    """berth's Placement data as a State, with the ids of every key."""
    st, ids = read_base(conn)
    read_details(conn, st, ids)
    return st, ids


def read_base(conn: sa.engine.Connection) -> tuple[state_mod.State, Ids]:
    """Names, providers, aggregate links, consumers' generations (not :func:`read_details`'s)."""
    st, ids = state_mod.State(), Ids()
    for table, (t, col) in _NAMED.items():
        ids.named[table] = {r[1]: r[0] for r in _rows(conn, sa.select(t.c.id, t.c[col]))}
    st.resource_classes = set(ids.named['resource_classes'])
    st.traits = set(ids.named['traits'])
    st.projects = set(ids.named['projects'])
    st.users = set(ids.named['users'])
    st.consumer_types = set(ids.named['consumer_types'])
    st.placement_aggregates = set(ids.named['placement_aggregates'])
    rows = list(_rows(conn, sa.select(_RP.c.id, _RP.c.uuid, _RP.c.name, _RP.c.generation,
                                      _RP.c.parent_provider_id, _RP.c.root_provider_id)))
    ids.uuid_of = uuid_of = {r[0]: r[1] for r in rows}
    for r in rows:
        ids.providers[r[1]] = r[0]
        st.resource_providers[r[1]] = (r[2], r[3], uuid_of.get(r[4]), uuid_of.get(r[5]))
    st.resource_provider_aggregates = set(_rows(conn, sa.select(_RP.c.uuid, _AGG.c.uuid)
                                                .select_from(_RPA.join(
                                                    _RP, _RP.c.id == _RPA.c.resource_provider_id)
                                                    .join(_AGG, _AGG.c.id == _RPA.c.aggregate_id))))
    # narrow: the catch-up compares generations and reads whole rows of the ones that moved
    ids.consumer_generations = source.fetch(conn, sa.select(_CONS.c.uuid, _CONS.c.generation))
    return st, ids


def read_details(conn: sa.engine.Connection, st: state_mod.State, ids: Ids,
                 providers=None, consumers=None) -> None:
    """Inventories and trait links of the ``providers`` (uuids), rows and allocations of the
    ``consumers`` (uuids), into ``st`` and ``ids``; None: of every one."""
    # names joined in SQL: one pass in C over what may be millions of rows
    crows = source.fetch_in(conn, sa.select(
        _CONS.c.uuid, _PROJ.c.external_id, _USER.c.external_id, _CT.c.name,
        _CONS.c.generation, _CONS.c.id).select_from(
            _CONS.join(_PROJ, _PROJ.c.id == _CONS.c.project_id)
            .join(_USER, _USER.c.id == _CONS.c.user_id)
            .outerjoin(_CT, _CT.c.id == _CONS.c.consumer_type_id)), _CONS.c.uuid, consumers)
    st.consumers.update((r[0], r[1:5]) for r in crows)
    ids.consumers.update((r[0], r[5]) for r in crows)
    uuid_of = ids.uuid_of
    rc = {v: k for k, v in ids.named['resource_classes'].items()}
    rp_ids = (None if providers is None else
              {ids.providers[u] for u in providers if u in ids.providers})
    for r in source.fetch_in(conn, sa.select(
            _INV.c.id, _INV.c.resource_provider_id, _INV.c.resource_class_id,
            *[_INV.c[f] for f in state_mod.INVENTORY_FIELDS]),
            _INV.c.resource_provider_id, rp_ids):
        key = (uuid_of[r[1]], rc[r[2]])
        ids.inventories[key] = r[0]
        st.inventories[key] = (r[3], r[4], r[5], r[6], r[7], float(r[8]))
    traits = {v: k for k, v in ids.named['traits'].items()}
    st.resource_provider_traits.update(
        (uuid_of[p], traits[t]) for p, t in source.fetch_in(
            conn, sa.select(_RPT.c.resource_provider_id, _RPT.c.trait_id),
            _RPT.c.resource_provider_id, rp_ids))
    for r in source.fetch_in(conn, sa.select(_ALLOC.c.id, _ALLOC.c.consumer_id,
                                             _ALLOC.c.resource_provider_id,
                                             _ALLOC.c.resource_class_id, _ALLOC.c.used),
                             _ALLOC.c.consumer_id, consumers):
        akey = (r[1], uuid_of[r[2]], rc[r[3]])
        ids.allocations[akey] = r[0]
        st.allocations[akey] = r[4]


def consumers_on(conn: sa.engine.Connection, ids: Ids, providers) -> set[str]:
    """Uuids of the consumers holding allocations on the ``providers`` (uuids)."""
    rp_ids = {ids.providers[u] for u in providers if u in ids.providers}
    if not rp_ids:
        return set()
    return {r[0] for r in source.fetch_in(conn, sa.select(_ALLOC.c.consumer_id).distinct(),
                                          _ALLOC.c.resource_provider_id, rp_ids)}


def _rows(conn: sa.engine.Connection, statement: Any) -> Iterable[Any]:
    return source.fetch(conn, statement)


def has_placement_data(conn: sa.engine.Connection) -> bool:
    """Whether berth holds any provider, consumer, allocation or aggregate."""
    return any(conn.execute(sa.select(t.c[col]).limit(1)).first() is not None
               for t, col in ((_RP, 'id'), (_CONS, 'id'), (_ALLOC, 'id'), (_AGG, 'id')))


def imported_before(conn: sa.engine.Connection) -> bool:
    return conn.execute(sa.select(_IMPORTS.c.id).limit(1)).first() is not None


def record(conn, source, revision, started, counts, max_ids=None) -> None:
    """The run's row; ``max_ids``: the source's highest ids, for the next catch-up."""
    changes = dict(counts)
    if max_ids is not None:
        changes[MAX_IDS] = max_ids
    conn.execute(_IMPORTS.insert().values(
        source=source[:255], revision=revision, started_at=started, finished_at=now(),
        changes=json.dumps(changes, sort_keys=True)))


MAX_IDS = 'source_max_ids'    # the key of the source's highest ids in a run's ``changes``


def last_run(conn) -> tuple[str, str, dict[str, int] | None] | None:
    """(source, revision, the source's highest ids or None) of the latest run, or None."""
    row = conn.execute(sa.select(_IMPORTS.c.source, _IMPORTS.c.revision, _IMPORTS.c.changes)
                       .order_by(_IMPORTS.c.id.desc()).limit(1)).first()
    if row is None:
        return None
    try:
        marks = json.loads(row[2]).get(MAX_IDS)
    except (ValueError, AttributeError):
        marks = None
    return row[0], row[1], marks if isinstance(marks, dict) else None


def count(conn, table: str) -> int:
    t = {'inventories': _INV, 'resource_provider_traits': _RPT, 'consumers': _CONS,
         'allocations': _ALLOC}[table]
    return conn.execute(sa.select(sa.func.count()).select_from(t)).scalar_one()


def _chunks(items: list, size: int = CHUNK) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _many(conn, statement, params: list) -> None:
    if params and conn.dialect.name == 'sqlite' and _many_sqlite(conn, statement, params):
        return
    for chunk in _chunks(params):
        conn.execute(statement, chunk)


def _many_sqlite(conn: sa.engine.Connection, statement: Any, params: list) -> bool:
    """The statement on the driver's ``executemany``; False: not a plain one, do nothing.

    SQLAlchemy's per-row parameter handling (and its DateTime conversion of
    the one ``created_at`` of every row) was half of a full import's write
    time at 100,000 providers, and most of a catch-up's provider updates
    (bench/adoption.py).  Here the rows become tuples in C and each bound
    parameter's processor runs once per distinct value.  Only statements
    whose parameters name exactly what the statement binds (no Python-side
    defaults or values fixed in the statement to fill in) take this way.
    """
    dialect = conn.dialect
    keys = list(params[0])
    compiled = statement.compile(dialect=dialect, column_keys=keys)
    order = list(compiled.positiontup or ())
    if sorted(order) != sorted(keys):
        return False
    binds = compiled.binds
    procs = [binds[k].type.dialect_impl(dialect).bind_processor(dialect) for k in order]
    # typed: 1, 1.0 and True apart
    procs = [functools.lru_cache(maxsize=None, typed=True)(p) if p else None for p in procs]
    getters = [operator.itemgetter(k) for k in order]
    sql = str(compiled)
    for chunk in _chunks(params):
        conn.exec_driver_sql(sql, list(zip(*[
            map(proc, map(get, chunk)) if proc else map(get, chunk)
            for get, proc in zip(getters, procs, strict=True)], strict=True)))
    return True


def _delete_ids(conn, table, ids: list) -> None:
    for chunk in _chunks(sorted(ids)):
        conn.execute(table.delete().where(table.c.id.in_(chunk)))


def _refresh_named(conn, ids: Ids, table: str) -> None:
    t, col = _NAMED[table]
    ids.named[table] = {r[1]: r[0] for r in conn.execute(sa.select(t.c.id, t.c[col]))}


def apply(conn, src: state_mod.State, dst: state_mod.State,
          changes: dict[str, state_mod.Change], ids: Ids, stamp: datetime.datetime,
          progress=None) -> None:
    """Write ``changes`` (berth's ``dst`` -> ``src``) on ``conn``; ``progress(step)`` after
    each step."""
    step = progress or (lambda name: None)
    for table in _NAMED:                      # new names first: rows below refer to them
        t, col = _NAMED[table]
        new = changes[table].inserted
        if new:
            _many(conn, t.insert(), [{col: v, 'created_at': stamp} for v in new])
            _refresh_named(conn, ids, table)
    step('names')
    _delete_links(conn, changes, ids)
    step('deletions')
    _write_providers(conn, src, dst, changes['resource_providers'], ids, stamp)
    step('resource_providers')
    _write_inventories(conn, src, changes['inventories'], ids, stamp)
    _write_links(conn, changes, ids, stamp)
    step('inventories, traits and aggregates')
    _write_consumers(conn, src, changes['consumers'], ids, stamp)
    _write_allocations(conn, src, changes['allocations'], ids, stamp)
    step('consumers and allocations')
    for table in _NAMED:                      # names no longer used by the source last
        gone = changes[table].deleted
        if gone:
            _delete_ids(conn, _NAMED[table][0], [ids.named[table][v] for v in gone])
    touched = state_mod.touched_providers(changes)
    if touched:
        stmt = (_RP.update().where(_RP.c.id == sa.bindparam('_id'))
                .values(updated_at=stamp))
        _many(conn, stmt, [{'_id': ids.providers[u]} for u in sorted(touched)])
    step('done')


def _delete_links(conn, changes, ids: Ids) -> None:
    """Rows that go, children first: allocations, links, inventories, consumers."""
    _delete_ids(conn, _ALLOC, [ids.allocations[k] for k in changes['allocations'].deleted])
    for table, t, other, col, name_table in (
            ('resource_provider_aggregates', _RPA, _RPA.c.aggregate_id, 'aggregate_id',
             'placement_aggregates'),
            ('resource_provider_traits', _RPT, _RPT.c.trait_id, 'trait_id', 'traits')):
        gone = changes[table].deleted
        stmt = t.delete().where(t.c.resource_provider_id == sa.bindparam('_rp'),
                                other == sa.bindparam('_other'))
        _many(conn, stmt, [{'_rp': ids.providers[p], '_other': ids.named[name_table][v]}
                           for p, v in gone])
    _delete_ids(conn, _INV, [ids.inventories[k] for k in changes['inventories'].deleted])
    _delete_ids(conn, _CONS, [ids.consumers[k] for k in changes['consumers'].deleted])


def _write_providers(conn, src, dst, ch, ids: Ids, stamp) -> None:
    """Providers: free names and parents of the ones that go, insert, update, link, delete.

    Names are unique, so a provider that goes or is renamed first takes a
    temporary name (its uuid, prefixed); a provider that goes first loses
    its parent and root, so deleting it never trips the self-references.
    """
    rps = src.resource_providers
    gone = [ids.providers[u] for u in ch.deleted]
    renamed = [u for u in ch.updated if rps[u][0] != dst.resource_providers[u][0]]
    freeing = ([{'_id': i, 'name': '~import~%d' % i} for i in gone] +
               [{'_id': ids.providers[u], 'name': '~import~%d' % ids.providers[u]}
                for u in renamed])
    if gone:
        _many(conn, _RP.update().where(_RP.c.id == sa.bindparam('_id')).values(
            parent_provider_id=None, root_provider_id=None),
            [{'_id': i} for i in gone])
    if freeing:
        _many(conn, _RP.update().where(_RP.c.id == sa.bindparam('_id')).values(
            name=sa.bindparam('name')), freeing)
    if ch.inserted:
        _many(conn, _RP.insert(), [{'uuid': u, 'name': rps[u][0], 'generation': rps[u][1],
                                    'created_at': stamp} for u in ch.inserted])
        new = set(ch.inserted)
        for chunk in _chunks(ch.inserted):
            ids.providers.update(
                (r[1], r[0]) for r in conn.execute(
                    sa.select(_RP.c.id, _RP.c.uuid).where(_RP.c.uuid.in_(chunk)))
                if r[1] in new)
    rows = []
    for u in (*ch.inserted, *ch.updated):
        name, generation, parent, root = rps[u]
        rows.append({'_id': ids.providers[u], 'name': name, 'generation': generation,
                     'parent_provider_id': ids.providers[parent] if parent else None,
                     'root_provider_id': ids.providers[root], 'updated_at': stamp})
    if rows:
        _many(conn, _RP.update().where(_RP.c.id == sa.bindparam('_id')).values(
            name=sa.bindparam('name'), generation=sa.bindparam('generation'),
            parent_provider_id=sa.bindparam('parent_provider_id'),
            root_provider_id=sa.bindparam('root_provider_id'),
            updated_at=sa.bindparam('updated_at')), rows)
    if gone:
        _delete_ids(conn, _RP, gone)
        for u in ch.deleted:
            del ids.providers[u]


def _write_inventories(conn, src, ch, ids: Ids, stamp) -> None:
    rc = ids.named['resource_classes']
    fields = state_mod.INVENTORY_FIELDS

    def values(key):
        return dict(zip(fields, src.inventories[key], strict=True))

    if ch.inserted:
        _many(conn, _INV.insert(), [
            {'resource_provider_id': ids.providers[p], 'resource_class_id': rc[c],
             'created_at': stamp, **values((p, c))} for p, c in ch.inserted])
    if ch.updated:
        stmt = _INV.update().where(_INV.c.id == sa.bindparam('_id')).values(
            **{f: sa.bindparam(f) for f in fields}, updated_at=stamp)
        _many(conn, stmt, [{'_id': ids.inventories[k], **values(k)} for k in ch.updated])


def _write_links(conn, changes, ids: Ids, stamp) -> None:
    aggs, traits = ids.named['placement_aggregates'], ids.named['traits']
    new = changes['resource_provider_aggregates'].inserted
    if new:
        _many(conn, _RPA.insert(), [{'resource_provider_id': ids.providers[p],
                                     'aggregate_id': aggs[a], 'created_at': stamp}
                                    for p, a in new])
    new = changes['resource_provider_traits'].inserted
    if new:
        _many(conn, _RPT.insert(), [{'resource_provider_id': ids.providers[p],
                                     'trait_id': traits[t], 'created_at': stamp}
                                    for p, t in new])


def _consumer_values(src, ids: Ids, uuid: str) -> dict:
    project, user, ctype, generation = src.consumers[uuid]
    return {'project_id': ids.named['projects'][project],
            'user_id': ids.named['users'][user],
            'consumer_type_id': ids.named['consumer_types'][ctype] if ctype else None,
            'generation': generation}


def _write_consumers(conn, src, ch, ids: Ids, stamp) -> None:
    if ch.inserted:
        _many(conn, _CONS.insert(), [{'uuid': u, 'created_at': stamp,
                                      **_consumer_values(src, ids, u)}
                                     for u in ch.inserted])
    if ch.updated:
        stmt = _CONS.update().where(_CONS.c.id == sa.bindparam('_id')).values(
            project_id=sa.bindparam('project_id'), user_id=sa.bindparam('user_id'),
            consumer_type_id=sa.bindparam('consumer_type_id'),
            generation=sa.bindparam('generation'), updated_at=stamp)
        _many(conn, stmt, [{'_id': ids.consumers[u], **_consumer_values(src, ids, u)}
                           for u in ch.updated])


def _write_allocations(conn, src, ch, ids: Ids, stamp) -> None:
    rc = ids.named['resource_classes']
    if ch.inserted:
        _many(conn, _ALLOC.insert(), [
            {'consumer_id': c, 'resource_provider_id': ids.providers[p],
             'resource_class_id': rc[k], 'used': src.allocations[(c, p, k)],
             'created_at': stamp} for c, p, k in ch.inserted])
    if ch.updated:
        stmt = _ALLOC.update().where(_ALLOC.c.id == sa.bindparam('_id')).values(
            used=sa.bindparam('used'), updated_at=stamp)
        _many(conn, stmt, [{'_id': ids.allocations[k], 'used': src.allocations[k]}
                           for k in ch.updated])
