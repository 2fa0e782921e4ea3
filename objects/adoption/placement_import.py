"""``berth-manage import placement``: a running Placement's data into berth, and catch-ups.

One run: read the source in one read-only snapshot (objects/adoption/source.py),
read berth's Placement tables, diff them by natural keys (state.py) and
write only the differences in **one** berth write transaction
(target.py), with a row in ``placement_imports``.  Any error (source,
refusal, a failed write) leaves berth exactly as it was.  Every uuid and
every provider and consumer generation is kept as the source has it.

A second run is a catch-up: it brings berth to the source's current state
(inserts, updates and deletes) and touches nothing that did not change.
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
        progress=None) -> Result:
    """Import (or catch up) the Placement database at ``url`` into ``ctx.db``.

    ``progress(message)`` is called between phases.  Raises
    placement_schema.SchemaError, source.SourceError, Inconsistent or
    Refused without writing anything.
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
            snap = source_mod.read(conn)
        except sa.exc.DBAPIError as exc:
            raise source_mod.SourceError('cannot read %s: %s' % (
                source_mod.shown(url), source_mod._first_line(exc))) from None
        finally:
            conn.close()
    finally:
        engine.dispose()
    phase('read source')
    if snap.problems and not skip_inconsistent:
        raise Inconsistent(snap.problems)
    src = snap.state
    say('read %s' % ', '.join('%d %s' % (n, t) for t, n in src.counts().items()))
    with ctx.db.core_writer(ctx) as conn:
        if not allow_existing and not target_mod.imported_before(conn) \
                and target_mod.has_placement_data(conn):
            raise Refused('berth\'s database already holds resource providers, consumers, '
                          'allocations or aggregates that no import wrote; import into an '
                          'empty berth, or pass --allow-existing to replace them with the '
                          'source\'s')
        dst, ids = target_mod.read(conn)
        phase('read berth')
        changes = state_mod.diff(dst, src)
        _keep_berth_standards(changes)
        phase('diff')
        say('writing %d change(s)' % sum(len(c) for c in changes.values()))

        def step(name):
            say('written: %s' % name)

        target_mod.apply(conn, src, dst, changes, ids, started_wall, step)
        counts = state_mod.summary(changes)
        target_mod.record(conn, source_mod.shown(url), snap.revision, started_wall,
                          {t: list(c) for t, c in counts.items()})
        phase('write berth')
    phase('commit')
    return Result(snap.revision, src.counts(), counts, snap.problems if skip_inconsistent
                  else [], snap.null_generations, time.monotonic() - started, phases)
