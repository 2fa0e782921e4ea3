"""``berth-manage import placement``: a running Placement's data into berth, and catch-ups.

One run: read the source in one read-only snapshot (objects/adoption/source.py),
read berth's Placement tables, diff them by natural keys (state.py) and
write only the differences in **one** berth write transaction
(target.py), with a row in ``placement_imports``.  Any error (source,
refusal, a failed write) leaves berth exactly as it was.  Every uuid and
every provider and consumer generation is kept as the source has it.

A second run is a catch-up: it brings berth to the source's current state
(inserts, updates and deletes) and touches nothing that did not change.
It reads only what may have changed since the last run from the same
source (catch_up.py; the run's row keeps the source's highest ids for the
next one); ``full`` compares every row, as the first import does.
Refusals, each one line: a source that is not a known Placement schema
(placement_schema.SchemaError), an unusable source (source.SourceError),
inconsistent source rows (listed; ``skip_inconsistent`` leaves them out
and still lists them), and a berth database holding Placement data that no
import wrote (unless ``allow_existing``).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import sqlalchemy as sa

from objects.adoption import catch_up
from objects.adoption import source as source_mod
from objects.adoption import state as state_mod
from objects.adoption import target as target_mod
from objects.placement import resource_class, trait


class Refused(Exception):
    """berth's database is not a target this run may write (one line)."""


class Inconsistent(Exception):
    """The source holds rows that break Placement's own rules; ``problems`` lists them."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__('%d inconsistent source row(s)' % len(problems))
        self.problems = problems


@dataclasses.dataclass
class Result:
    revision: str
    source_counts: dict[str, int]
    changes: dict[str, tuple[int, int, int]]     # table -> (inserted, updated, deleted)
    skipped: list[str]                          # problem rows left out (skip_inconsistent)
    null_generations: int
    seconds: float = 0.0
    mode: str = 'full'                          # or 'catch-up': only what may have changed
    phases: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def changed(self) -> int:
        return sum(sum(c) for c in self.changes.values())


def _keep_berth_standards(changes: dict[str, state_mod.Change]) -> None:
    """Never delete berth's own standard classes and traits (berth syncs them at start)."""
    for table, standards in (('resource_classes', resource_class.STANDARDS),
                             ('traits', trait.STANDARDS)):
        ch = changes[table]
        ch.deleted = [n for n in ch.deleted if n not in standards]


def run(ctx: Any, url: str, allow_existing: bool = False, skip_inconsistent: bool = False,
        progress=None, full: bool = False) -> Result:
    """Import (or catch up with) the Placement database at ``url`` into ``ctx.db``.

    ``progress(message)`` is called between phases.  Raises
    placement_schema.SchemaError, source.SourceError, Inconsistent or
    Refused without writing anything.  A catch-up reads only what may have
    changed (objects/adoption/catch_up.py) unless ``full``.
    """
    say = progress or (lambda message: None)
    started_wall = target_mod.now()
    started = time.monotonic()
    phases: dict[str, float] = {}
    mark = [started]

    def phase(name):
        t = time.monotonic()
        phases[name] = phases.get(name, 0.0) + t - mark[0]
        mark[0] = t

    engine = source_mod.open_engine(url)
    try:
        say('reading %s' % source_mod.shown(url))
        conn = source_mod.connect(engine, url)
        try:
            reader = _on_source(url, lambda: source_mod.Reader(conn))
            _on_source(url, reader.base)
            max_ids = _on_source(url, reader.max_ids)
            phase('read source')
            with ctx.db.core_writer(ctx) as bconn:
                result = _write(bconn, url, reader, max_ids, allow_existing,
                                skip_inconsistent, full, started_wall, say, phase)
        finally:
            conn.close()
    finally:
        engine.dispose()
    phase('commit')
    result.seconds = time.monotonic() - started
    result.phases = phases
    return result


def _on_source(url, call):
    """``call()``; a database error of the source is a one-line SourceError."""
    try:
        return call()
    except sa.exc.DBAPIError as exc:
        raise source_mod.SourceError('cannot read %s: %s' % (
            source_mod.shown(url), source_mod._first_line(exc))) from None


def _write(bconn, url, reader, max_ids, allow_existing, skip_inconsistent, full,
           started_wall, say, phase) -> Result:
    """Everything after the source's base read, in berth's one write transaction."""
    shown = source_mod.shown(url)
    if not allow_existing and not target_mod.imported_before(bconn) \
            and target_mod.has_placement_data(bconn):
        raise Refused('berth\'s database already holds resource providers, consumers, '
                      'allocations or aggregates that no import wrote; import into an '
                      'empty berth, or pass --allow-existing to replace them with the '
                      'source\'s')
    last = None if full else target_mod.last_run(bconn)
    marks = last[2] if last is not None and last[0] == shown[:255] \
        and last[1] == reader.revision else None
    incremental = marks is not None
    if marks is not None:
        dst, ids = target_mod.read_base(bconn)
        phase('read berth')
        providers, consumers = _on_source(url, lambda: catch_up.scope(
            bconn, reader, dst, ids, marks))
        _on_source(url, lambda: reader.details(providers, consumers))
        phase('read source')
    else:
        _on_source(url, reader.details)
        phase('read source')
    snap = reader.snapshot()
    if snap.problems and not skip_inconsistent:
        raise Inconsistent(snap.problems)
    src = snap.state
    if incremental:
        target_mod.read_details(bconn, dst, ids, providers, consumers)
    else:
        dst, ids = target_mod.read(bconn)
    phase('read berth')
    say('read %s%s' % (', '.join('%d %s' % (n, t) for t, n in src.counts().items()),
                       ' (a catch-up: only what may have changed)' if incremental else ''))
    changes = state_mod.diff(dst, src)
    _keep_berth_standards(changes)
    phase('diff')
    say('writing %d change(s)' % sum(len(c) for c in changes.values()))

    def step(name):
        say('written: %s' % name)

    target_mod.apply(bconn, src, dst, changes, ids, started_wall, step)
    counts = state_mod.summary(changes)
    target_mod.record(bconn, shown, snap.revision, started_wall,
                      {t: list(c) for t, c in counts.items()}, max_ids)
    source_counts = src.counts()
    if incremental:                  # the tables read in part: berth holds the source's now
        for table in catch_up.PARTIAL:
            source_counts[table] = target_mod.count(bconn, table)
    phase('write berth')
    return Result(snap.revision, source_counts, counts,
                  snap.problems if skip_inconsistent else [], snap.null_generations,
                  mode='catch-up' if incremental else 'full')
