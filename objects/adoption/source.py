"""A Placement database read for the import: one read-only snapshot into a State.

Only SELECTs are sent (a read-only database user is enough).  Every table
is read in one transaction that sees one snapshot: REPEATABLE READ and READ
ONLY on PostgreSQL, ``START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY``
on MySQL/MariaDB, one ``BEGIN`` on a SQLite file opened with ``mode=ro``.
Rows that break Placement's own rules are collected as *problems* (one line
each), never dropped silently: the caller refuses them, or leaves them out
when the operator asked to (``skip``).
"""

from __future__ import annotations

import collections
import dataclasses
import os
import sqlite3
from typing import Any

import sqlalchemy as sa

from objects.adoption import placement_schema as ps
from objects.adoption import state as state_mod


class SourceError(Exception):
    """The source cannot be used (bad URL, unreachable, refused credentials): one line."""


def shown(url: str) -> str:
    """``url`` without its password (for messages)."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        return '(unparsable URL)'


def open_engine(url: str) -> sa.engine.Engine:
    """An engine on the source; SourceError for a URL that cannot name a database."""
    try:
        parsed = sa.engine.make_url(url)
        if parsed.get_backend_name() != 'sqlite':
            return sa.create_engine(url, poolclass=sa.pool.NullPool)
    except sa.exc.NoSuchModuleError as exc:
        raise SourceError('--connection names an unknown database dialect or driver (%s)'
                          % str(exc).split(':')[-1].strip()) from None
    except ImportError as exc:
        raise SourceError('the driver of --connection is not installed (%s)'
                          % (exc.name or exc)) from None
    except (sa.exc.ArgumentError, ValueError) as exc:
        raise SourceError('--connection is not a usable database URL (%s); expected '
                          'dialect+driver://user:password@host:port/placement'
                          % str(exc).splitlines()[0]) from None
    path = parsed.database
    if not path or path == ':memory:' or not os.path.isfile(path):
        raise SourceError('%s: no such SQLite file' % shown(url))
    # mode=ro: the file is never created nor written
    return sa.create_engine('sqlite://', poolclass=sa.pool.NullPool, creator=lambda: (
        sqlite3.connect('file:%s?mode=ro' % os.path.abspath(path), uri=True,
                        isolation_level=None, check_same_thread=False)))


def connect(engine: sa.engine.Engine, url: str) -> sa.engine.Connection:
    """A connection in one read-only snapshot transaction; SourceError when refused."""
    name = engine.dialect.name
    try:
        conn = engine.connect()
        if name == 'postgresql':
            conn = conn.execution_options(isolation_level='REPEATABLE READ',
                                          postgresql_readonly=True)
            conn.execute(sa.select(sa.literal(1)))
        elif name == 'mysql':
            conn = conn.execution_options(isolation_level='REPEATABLE READ')
            conn.exec_driver_sql('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY')
        else:
            conn.exec_driver_sql('BEGIN')
    except sa.exc.DBAPIError as exc:
        raise SourceError('cannot read %s: %s; check the host, port, user, password and '
                          'database name of --connection'
                          % (shown(url), _first_line(exc))) from None
    return conn


def _first_line(exc: sa.exc.DBAPIError) -> str:
    orig = exc.orig if exc.orig is not None else exc
    text = ' '.join(str(a) for a in orig.args) if orig.args else str(orig)
    return text.strip().splitlines()[0] if text.strip() else type(orig).__name__


def fetch(conn: sa.engine.Connection, statement) -> list[tuple]:
    """Every row of ``statement`` as plain tuples, in ``conn``'s transaction.

    On the driver's own cursor with one ``fetchall``: SQLAlchemy's result
    fetches (and wraps) row by row, which was two thirds of a catch-up's
    read time (bench/adoption.py).  Bound values (ids, uuids of a catch-up's
    ``IN`` lists) are rendered as literals.
    """
    sql = str(statement.compile(dialect=conn.dialect,
                                compile_kwargs={'literal_binds': True}))
    return _run(conn, sql, None)


def _run(conn: sa.engine.Connection, sql: str, params: Any) -> list[tuple]:
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    cursor = dbapi.cursor()
    try:
        if params is None:
            cursor.execute(sql)
        else:
            cursor.execute(sql, params)
        return list(cursor.fetchall())
    finally:
        cursor.close()


def _bound(conn: sa.engine.Connection, statement) -> tuple[str, Any]:
    """``statement``'s SQL with the driver's placeholders, and its values in the driver's
    paramstyle: a long ``IN`` list's keys bound, not rendered one literal at a time."""
    dialect = conn.dialect
    compiled = statement.compile(dialect=dialect, compile_kwargs={'render_postcompile': True})
    values = compiled.construct_params()
    procs = compiled._bind_processors
    values = {k: procs[k](v) if k in procs else v for k, v in values.items()}
    if dialect.positional:
        return str(compiled), [values[k] for k in compiled.positiontup or ()]
    return str(compiled), values


def fetch_in(conn: sa.engine.Connection, statement, column, keys) -> list[tuple]:
    """``fetch`` of ``statement`` limited to rows whose ``column`` is in ``keys``.

    ``keys`` None: every row.  Otherwise in ``IN`` lists of CHUNK keys.
    """
    if keys is None:
        return fetch(conn, statement)
    keys = sorted(keys)
    out: list[tuple] = []
    for i in range(0, len(keys), CHUNK):
        out += _run(conn, *_bound(conn, statement.where(column.in_(keys[i:i + CHUNK]))))
    return out


CHUNK = 2000                 # keys per IN list of a catch-up's reads

ProviderRow = collections.namedtuple('ProviderRow',
                                     'id uuid name generation parent_provider_id')


@dataclasses.dataclass
class Snapshot:
    revision: str
    state: state_mod.State
    problems: list          # one line per inconsistent source row
    null_generations: int   # providers whose NULL generation is imported as 0


def read(conn: sa.engine.Connection) -> Snapshot:
    """The source's State at one snapshot, without the problem rows (listed in ``problems``)."""
    reader = Reader(conn)
    reader.base()
    reader.details()
    return reader.snapshot()


class Reader:
    """The source read in two steps, for a catch-up that reads only what may have changed.

    :meth:`base` reads the small tables, providers and aggregate links in
    full, and every consumer's uuid and generation; :meth:`details` the
    inventories and trait links of some providers and the rows and
    allocations of some consumers (all by default).
    """

    def __init__(self, conn: sa.engine.Connection) -> None:
        self.conn = conn
        self.revision = ps.schema_revision(conn)
        self.st = state_mod.State()
        self.problems: list[str] = []
        self.null_generations = 0

    def snapshot(self) -> Snapshot:
        return Snapshot(self.revision, self.st, self.problems, self.null_generations)

    def base(self) -> None:
        conn, st, problems = self.conn, self.st, self.problems

        def ids(table, col):
            return dict(fetch(conn, sa.select(table.c.id, table.c[col])))

        self.classes = classes = ids(ps.resource_classes, 'name')
        self.traits = ids(ps.traits, 'name')
        projects = ids(ps.projects, 'external_id')
        users = ids(ps.users, 'external_id')
        types = (ids(ps.consumer_types, 'name') if ps.has_consumer_types(self.revision)
                 else {})
        aggs = ids(ps.placement_aggregates, 'uuid')
        st.resource_classes = set(classes.values())
        st.traits = set(self.traits.values())
        st.projects = set(projects.values())
        st.users = set(users.values())
        st.consumer_types = set(types.values())
        st.placement_aggregates = {u for u in aggs.values() if u is not None}
        rp = ps.resource_providers
        rows = [ProviderRow(*r) for r in fetch(conn, sa.select(
            rp.c.id, rp.c.uuid, rp.c.name, rp.c.generation, rp.c.parent_provider_id))]
        providers, self.null_generations = _providers(rows, problems)
        st.resource_providers = providers
        self.by_id = by_id = {r.id: r.uuid for r in rows if r.uuid in providers}
        self.provider_ids = {u: i for i, u in by_id.items()}
        rpa = ps.resource_provider_aggregates
        links = st.resource_provider_aggregates
        for rp_id, agg_id in fetch(conn, sa.select(rpa.c.resource_provider_id,
                                                   rpa.c.aggregate_id)):
            agg = aggs.get(agg_id)
            if agg is not None and rp_id in by_id:      # most rows: no _missing call
                links.add((by_id[rp_id], agg))
                continue
            where = _missing(('provider', rp_id, by_id), ('aggregate', agg_id, aggs))
            if where or aggs[agg_id] is None:
                problems.append('aggregate link provider id %s aggregate id %s: %s'
                                % (rp_id, agg_id, where or 'aggregate has no uuid'))
                continue
            st.resource_provider_aggregates.add((by_id[rp_id], aggs[agg_id]))
        self.names = (projects, users, types)
        c = ps.consumers
        # narrow: the catch-up compares generations and reads whole rows of the ones that moved
        self.consumer_generations = fetch(conn, sa.select(          # (uuid, generation)
            c.c.uuid, sa.func.coalesce(c.c.generation, 0)))

    def _consumers(self, keys) -> None:
        """Consumers (``keys``: uuids, None: all) with their project, user and type joined in
        SQL (one pass in C)."""
        projects, users, types = self.names
        c, pj, us, ct = ps.consumers, ps.projects, ps.users, ps.consumer_types
        joined = c.outerjoin(pj, pj.c.id == c.c.project_id).outerjoin(
            us, us.c.id == c.c.user_id)
        type_cols: list[Any] = [sa.null(), sa.null()]
        if ps.has_consumer_types(self.revision):
            joined = joined.outerjoin(ct, ct.c.id == c.c.consumer_type_id)
            type_cols = [ct.c.name, c.c.consumer_type_id]
        # (uuid, project, user, type, generation, type id, project id, user id)
        rows = fetch_in(self.conn, sa.select(
            c.c.uuid, pj.c.external_id, us.c.external_id, type_cols[0],
            sa.func.coalesce(c.c.generation, 0), type_cols[1], c.c.project_id,
            c.c.user_id).select_from(joined), c.c.uuid, keys)
        good = {r[0]: r[1:5] for r in rows if r[1] is not None and r[2] is not None
                and (r[3] is not None or r[5] is None)}
        self.st.consumers.update(good)
        if len(good) < len(rows):
            for r in rows:
                if r[0] not in good:
                    where = _missing(('project', r[6], projects), ('user', r[7], users),
                                     ('consumer type', r[5], types) if r[5] is not None
                                     else None)
                    self.problems.append('consumer %s: %s' % (r[0], where))

    def details(self, providers=None, consumers=None) -> None:
        """Inventories and trait links of the ``providers`` (uuids), rows and allocations of
        the ``consumers`` (uuids); None: of every one."""
        conn, st, problems = self.conn, self.st, self.problems
        by_id, classes = self.by_id, self.classes
        rp_ids = (None if providers is None else
                  {self.provider_ids[u] for u in providers if u in self.provider_ids})
        inv = ps.inventories
        for r in fetch_in(conn, sa.select(inv.c.resource_provider_id,
                                          inv.c.resource_class_id,
                                          *[inv.c[f] for f in state_mod.INVENTORY_FIELDS]),
                          inv.c.resource_provider_id, rp_ids):
            where = _missing(('provider', r[0], by_id), ('resource class', r[1], classes))
            if where:
                problems.append('inventory of provider id %s class id %s: %s'
                                % (r[0], r[1], where))
                continue
            st.inventories[(by_id[r[0]], classes[r[1]])] = (
                r[2], r[3], r[4], r[5], r[6], float(r[7]))
        rpt = ps.resource_provider_traits
        for rp_id, trait_id in fetch_in(conn, sa.select(rpt.c.resource_provider_id,
                                                        rpt.c.trait_id),
                                        rpt.c.resource_provider_id, rp_ids):
            where = _missing(('provider', rp_id, by_id), ('trait', trait_id, self.traits))
            if where:
                problems.append('trait link provider id %s trait id %s: %s'
                                % (rp_id, trait_id, where))
                continue
            st.resource_provider_traits.add((by_id[rp_id], self.traits[trait_id]))
        self._consumers(consumers)
        al = ps.allocations
        allocations, known = st.allocations, st.consumers
        for r in fetch_in(conn, sa.select(al.c.id, al.c.consumer_id,
                                          al.c.resource_provider_id,
                                          al.c.resource_class_id, al.c.used),
                          al.c.consumer_id, consumers):
            rp_uuid, rc_name = by_id.get(r[2]), classes.get(r[3])
            key = (r[1], rp_uuid, rc_name)
            if rp_uuid is not None and rc_name is not None and r[1] in known \
                    and key not in allocations:
                allocations[key] = r[4]
                continue
            where = _missing(('provider', r[2], by_id), ('resource class', r[3], classes))
            if not where and r[1] not in known:
                where = 'consumer %s is missing or left out' % r[1]
            if not where:
                where = 'a second allocation of the same consumer, provider and class'
            problems.append('allocation id %s of consumer %s: %s' % (r[0], r[1], where))

    def max_ids(self) -> dict[str, int]:
        """The highest row id of the tables whose ids a catch-up compares with the last run's."""
        return {t.name: int(self.conn.execute(sa.select(sa.func.max(t.c.id))).scalar() or 0)
                for t in WATERMARKED}

    def written_since(self, marks: dict[str, int]) -> tuple[set, set]:
        """Provider and consumer uuids with a row newer than the ids in ``marks``.

        Providers made (or deleted and made again with the same uuid) or
        given a new inventory row, consumers made (or made again) or given
        a new allocation row since the run that recorded ``marks``.
        """
        conn, rp, inv = self.conn, ps.resource_providers, ps.inventories
        cons, al = ps.consumers, ps.allocations
        providers = {r[0] for r in fetch(conn, sa.select(rp.c.uuid).where(
            rp.c.id > marks.get('resource_providers', 0)))}
        providers.update(self.by_id[r[0]] for r in fetch(conn, sa.select(
            inv.c.resource_provider_id).distinct().where(
                inv.c.id > marks.get('inventories', 0))) if r[0] in self.by_id)
        consumers = {r[0] for r in fetch(conn, sa.select(cons.c.uuid).where(
            cons.c.id > marks.get('consumers', 0)))}
        consumers.update(r[0] for r in fetch(conn, sa.select(al.c.consumer_id).distinct()
                                             .where(al.c.id > marks.get('allocations', 0))))
        return providers, consumers


# the tables whose highest id a run records: a catch-up re-reads what lies above it
WATERMARKED = (ps.resource_providers, ps.inventories, ps.consumers, ps.allocations)


def _missing(*refs) -> str:
    """'<what> id N is missing' for the first reference not found, else ''."""
    for ref in refs:
        if ref is None:
            continue
        what, ref_id, known = ref
        if ref_id is None or ref_id not in known:
            return '%s id %s is missing' % (what, ref_id)
    return ''


def _providers(rows, problems):
    """uuid -> (name, generation, parent uuid, root uuid); roots found by walking parents.

    A NULL generation (very old rows) is imported as 0, as Placement's
    first write on that provider would make it 1; a NULL root (before
    611cd6dffd7b) is the top of the provider's parent chain.  A provider with
    no name, or whose parent chain is broken or loops, is a problem (with
    its descendants).
    """
    by_id = {r.id: r for r in rows}
    bad: dict[int, str] = {}
    for r in rows:
        if r.name is None:
            bad[r.id] = 'provider %s has no name' % r.uuid
        elif r.parent_provider_id is not None and r.parent_provider_id not in by_id:
            bad[r.id] = 'provider %s: parent provider id %s is missing' % (
                r.uuid, r.parent_provider_id)
    out = {}
    nulls = 0
    for r in rows:
        if r.parent_provider_id is None and r.id not in bad:     # a root: most rows
            if r.generation is None:
                nulls += 1
            out[r.uuid] = (r.name, int(r.generation or 0), None, r.uuid)
            continue
        chain, node = [], r
        while node.parent_provider_id is not None and node.id not in bad:
            chain.append(node.id)
            if len(chain) > len(rows):
                bad[r.id] = 'provider %s: its parent chain loops' % r.uuid
                break
            node = by_id.get(node.parent_provider_id, node)
        culprit = next((i for i in (*chain, node.id) if i in bad), None)
        if culprit is not None:
            problems.append(bad[culprit] if culprit == r.id else
                            'provider %s: under %s' % (r.uuid, bad[culprit]))
            continue
        parent = by_id[r.parent_provider_id].uuid if r.parent_provider_id else None
        if r.generation is None:
            nulls += 1
        out[r.uuid] = (r.name, int(r.generation or 0), parent, node.uuid)
    return out, nulls
