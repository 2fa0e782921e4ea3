"""Online data migrations: batched, one transaction per batch, idempotent and resumable.

A migration is a :class:`Migration`: ``pending(ctx, conf)`` counts the rows
it still has to look at, and ``batch(ctx, conf, limit, marker)`` migrates up
to ``limit`` of them with ids above ``marker`` in *one* write transaction and
returns a :class:`Batch`.  A row that cannot be migrated is reported in
``Batch.failed`` with its id and skipped (its savepoint is rolled back, so
nothing of it is half-written); the marker moves past it, so one run never
stops on a bad row, and the next run finds it again until it is fixed.

A row is done once its migrated form exists, so running a migration again
finds only what is left: an interrupted run just resumes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import dataclasses

from oslo_config import cfg

from common.context import RequestContext
from objects.legacy import compute_node_migration, incomplete_consumer

# exit codes of "berth-manage db online_data_migrations"
DONE = 0
MORE = 1
FAILED_ROWS = 2


@dataclasses.dataclass
class Batch:
    found: int = 0              # rows looked at
    done: int = 0               # rows migrated
    failed: list = dataclasses.field(default_factory=list)   # [(row id, reason)]
    marker: object = None       # the last id looked at (None: nothing found)


@dataclasses.dataclass
class Migration:
    name: str
    pending: Callable[[RequestContext, cfg.ConfigOpts], int]
    # (ctx, conf, limit, marker) -> Batch
    batch: Callable[[RequestContext, cfg.ConfigOpts, int, object], Batch]


@dataclasses.dataclass
class Summary:
    """What one run of one migration did."""
    name: str
    pending: int = 0            # rows left when the run started
    found: int = 0
    done: int = 0
    failed: list = dataclasses.field(default_factory=list)
    batches: int = 0
    complete: bool = False      # every pending row was looked at


def _compute_nodes_batch(ctx, conf, limit, marker):
    return Batch(*compute_node_migration.migrate_batch(ctx, conf, limit, marker))


def _consumers_batch(ctx, conf, limit, marker):
    return Batch(*incomplete_consumer.migrate_batch(ctx, conf, limit, marker))


MIGRATIONS = (
    Migration('compute nodes -> providers', compute_node_migration.count_pending,
              _compute_nodes_batch),
    Migration('incomplete consumers -> consumers', incomplete_consumer.count_pending,
              _consumers_batch),
)


def pending(ctx: RequestContext, conf: cfg.ConfigOpts,
            migrations: Iterable[Migration] = MIGRATIONS) -> dict[str, int]:
    """{migration name: rows left} (bad rows included)."""
    return {m.name: m.pending(ctx, conf) for m in migrations}


def run(ctx: RequestContext, conf: cfg.ConfigOpts, max_count: int | None = None,
        progress: Callable[[Summary], object] | None = None,
        migrations: Iterable[Migration] = MIGRATIONS) -> tuple[int, list[Summary]]:
    """Run every migration in batches of ``[compute_migration] batch_size``.

    ``max_count`` bounds the rows looked at over all migrations (None: all).
    ``progress(summary)`` is called after each batch.  Returns
    ``(exit code, [Summary])``: MORE while rows were left unexamined,
    FAILED_ROWS when everything was looked at but some rows could not be
    migrated, DONE otherwise.
    """
    size = conf.compute_migration.batch_size
    budget = max_count
    summaries = []
    for migration in migrations:
        summary = Summary(migration.name, pending=migration.pending(ctx, conf))
        summaries.append(summary)
        marker = None
        while budget is None or budget > 0:
            limit = size if budget is None else min(size, budget)
            batch = migration.batch(ctx, conf, limit, marker)
            if batch.found == 0:
                summary.complete = True
                break
            summary.batches += 1
            summary.found += batch.found
            summary.done += batch.done
            summary.failed.extend(batch.failed)
            marker = batch.marker
            if budget is not None:
                budget -= batch.found
            if progress is not None:
                progress(summary)
            if batch.found < limit:
                summary.complete = True
                break
    if not all(s.complete for s in summaries):
        return MORE, summaries
    if any(s.failed for s in summaries):
        return FAILED_ROWS, summaries
    return DONE, summaries
