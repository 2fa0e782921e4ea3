"""Import of the compute nodes of an existing Nova cell database (read-only source).

Each live source row is copied into berth's ``compute_nodes`` (matched by
uuid, or by host and hypervisor_hostname for a row without one) and written
as a provider with inventories through ``objects.legacy.compute_node.apply_plan``,
one berth transaction per batch and one savepoint per row.  Running the
import again updates what changed and never duplicates a node.  The source
is opened read-only and only ever SELECTed from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import dataclasses
import logging
import os
import sqlite3

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.legacy import compute_node, compute_node_migration, inventory_rules

LOG = logging.getLogger('berth.' + __name__)

_CN = models.ComputeNode.__table__
COPIED = ('uuid', 'host', 'hypervisor_hostname', 'vcpus', 'memory_mb', 'local_gb',
          'vcpus_used', 'memory_mb_used', 'local_gb_used', 'cpu_allocation_ratio',
          'ram_allocation_ratio', 'disk_allocation_ratio', 'disk_available_least',
          'pci_stats', 'numa_topology')
# what makes a database a Nova cell database, for this import
REQUIRED_TABLES = ('compute_nodes', 'instances', 'services')
REQUIRED_COLUMNS = ('id', 'deleted') + COPIED


@dataclasses.dataclass
class Totals:
    found: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list = dataclasses.field(default_factory=list)   # [(source id, reason)]
    batches: int = 0


def _url_problem(exc):
    """One line saying what is wrong with a ``--from`` URL."""
    if isinstance(exc, sa.exc.NoSuchModuleError):
        return 'unknown database dialect or driver (%s)' % str(exc).split(':')[-1].strip()
    if isinstance(exc, ImportError):
        return 'its driver is not installed (%s)' % (exc.name or exc)
    if isinstance(exc, ValueError) and 'int()' in str(exc):
        return 'the port is not a number'
    return str(exc).splitlines()[0] + (
        ' (expected dialect+driver://user:password@host:port/database)')


class Source:
    """A read-only view of a Nova cell database's ``compute_nodes``."""

    def __init__(self, url):
        self.url = url
        try:
            self.shown_url = sa.engine.make_url(url).render_as_string(hide_password=True)
            self.engine = self._engine(url)
        except (sa.exc.ArgumentError, ValueError, ImportError) as exc:
            # a malformed URL, a bad port, an unknown dialect or driver
            raise exception.InvalidSourceURL(reason=_url_problem(exc)) from None
        self.table: sa.Table | None = None     # set by check()

    def _engine(self, url):
        parsed = sa.engine.make_url(url)
        if parsed.get_backend_name() != 'sqlite':
            return sa.create_engine(url, poolclass=sa.pool.NullPool)
        path = parsed.database
        if not path or path == ':memory:' or not os.path.isfile(path):
            raise exception.NotNovaCellDatabase(url=self.shown_url,
                                                reason='no such SQLite file')
        # mode=ro: the file is never created nor written
        return sa.create_engine('sqlite://', poolclass=sa.pool.NullPool, creator=lambda:
                                sqlite3.connect('file:%s?mode=ro' % os.path.abspath(path),
                                                uri=True))

    def check(self) -> Source:
        """NotNovaCellDatabase unless the source has the Nova cell tables and columns."""
        try:
            inspector = sa.inspect(self.engine)
            tables = set(inspector.get_table_names())
            missing = [t for t in REQUIRED_TABLES if t not in tables]
            if missing:
                raise exception.NotNovaCellDatabase(
                    url=self.shown_url, reason='missing table(s) %s' % ', '.join(missing))
            columns = {c['name'] for c in inspector.get_columns('compute_nodes')}
        except sa.exc.SQLAlchemyError as exc:
            raise exception.NotNovaCellDatabase(
                url=self.shown_url, reason='cannot be read (%s)'
                                           % str(exc).splitlines()[0])
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            raise exception.NotNovaCellDatabase(
                url=self.shown_url,
                reason='compute_nodes has no column(s) %s' % ', '.join(missing))
        meta = sa.MetaData()
        self.table = sa.Table('compute_nodes', meta,
                              *[sa.Column(c) for c in REQUIRED_COLUMNS])
        return self

    def _checked(self) -> sa.Table:
        if self.table is None:
            raise RuntimeError('Source.check() reads the table first')
        return self.table

    def _read(self, query):
        with self.engine.connect() as conn:
            if self.engine.dialect.name in ('postgresql', 'mysql'):
                conn.exec_driver_sql('SET TRANSACTION READ ONLY')
            rows = conn.execute(query).all()
            conn.rollback()
        return rows

    def count(self) -> int:
        t = self._checked()
        return self._read(sa.select(sa.func.count()).select_from(t)
                          .where(t.c.deleted == 0))[0][0]

    def rows(self, limit: int, marker: int | None = None) -> list[sa.Row]:
        """Up to ``limit`` live rows with id > marker, by id."""
        t = self._checked()
        query = (sa.select(*[t.c[c] for c in REQUIRED_COLUMNS]).where(t.c.deleted == 0)
                 .order_by(t.c.id).limit(limit))
        if marker is not None:
            query = query.where(t.c.id > marker)
        return self._read(query)

    def close(self) -> None:
        self.engine.dispose()


def _match(ctx, src):
    """berth's live row for a source row (locked), or None."""
    query = sa.select(_CN).where(_CN.c.deleted == 0)
    if src.uuid:
        query = query.where(_CN.c.uuid == src.uuid)
    else:
        query = query.where(_CN.c.host == src.host).where(
            _CN.c.hypervisor_hostname == src.hypervisor_hostname)
    return ctx.session.execute(query.order_by(_CN.c.id).limit(1).with_for_update()).first()


def _import_row(ctx, src, rules):
    """Copy and migrate one source row in a savepoint; 'created'|'updated'|'unchanged'."""
    mine = _match(ctx, src)
    values = {c: getattr(src, c) for c in COPIED}
    if mine is not None:
        values['uuid'] = mine.uuid or src.uuid or uuidutils.generate_uuid()
    else:
        values['uuid'] = src.uuid or uuidutils.generate_uuid()
    new = inventory_rules.LegacyNode(id=src.id, **values)
    plan = inventory_rules.plan(new, rules)
    with ctx.session.begin_nested():
        if mine is None:
            ctx.session.execute(_CN.insert().values(created_at=models._now(), **values))
            managed = set()
        else:
            old = inventory_rules.LegacyNode.from_row(mine)
            managed = inventory_rules.managed_classes(old, rules)
            if any(mine._mapping[c] != v for c, v in values.items()):
                ctx.session.execute(_CN.update().where(_CN.c.id == mine.id).values(
                    updated_at=models._now(), **values))
        outcome = compute_node.apply_plan(ctx, plan, rules, managed=managed)
    if mine is None:
        return 'created'
    changed = any(mine._mapping[c] != v for c, v in values.items())
    return 'updated' if changed and outcome == 'unchanged' else outcome


@db_api.writer
def import_batch(ctx: RequestContext, conf: cfg.ConfigOpts,
                 rows: Iterable[sa.Row]) -> tuple[int, int, int, list[tuple[int, str]]]:
    """Import source ``rows`` in one transaction; (created, updated, unchanged, failed)."""
    rules = inventory_rules.Rules.from_conf(conf)
    counts = {'created': 0, 'updated': 0, 'unchanged': 0}
    failed = []
    for src in rows:
        try:
            counts[_import_row(ctx, src, rules)] += 1
        except (inventory_rules.BadComputeNode, exception.BerthException) as exc:
            reason = compute_node_migration.row_error(exc)
            LOG.info('nova compute node %s not imported: %s', src.id, reason)
            failed.append((src.id, reason))
    return counts['created'], counts['updated'], counts['unchanged'], failed


def _import_batch(ctx, conf, rows, attempts=3):
    """import_batch, again when a concurrent import inserted one of the nodes first.

    On PostgreSQL and MySQL two imports really run at once (SQLite serialises
    them); the loser's duplicate insert fails once the winner commits, and the
    batch run again finds that row and updates or keeps it.
    """
    for attempt in range(1, attempts + 1):
        try:
            return import_batch(ctx, conf, rows)
        except db_exc.DBDuplicateEntry:
            if attempt == attempts:
                raise
            LOG.info('A concurrent import created a node of this batch; retrying it')


def run(ctx: RequestContext, conf: cfg.ConfigOpts, source: Source,
        progress: Callable[[int, int], object] | None = None) -> Totals:
    """Import every live row of ``source`` (a checked Source) in batches; Totals.

    ``progress(done, total)`` is called after each batch.
    """
    size = conf.compute_migration.batch_size
    totals = Totals()
    total = source.count()
    marker = None
    while True:
        rows = source.rows(size, marker)
        if not rows:
            break
        created, updated, unchanged, failed = _import_batch(ctx, conf, rows)
        totals.batches += 1
        totals.found += len(rows)
        totals.created += created
        totals.updated += updated
        totals.unchanged += unchanged
        totals.failed.extend(failed)
        marker = rows[-1].id
        if progress is not None:
            progress(totals.found, total)
    return totals
