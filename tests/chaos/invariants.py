"""Invariants of a chaos run, read straight from the database (SQLAlchemy Core only).

:class:`Checker` runs the state invariants on one REPEATABLE READ snapshot,
any time (continuously during a run): no provider over capacity for any
class, no node held by two allocations, node and allocation pointers agree,
provider and consumer generations never go down.  :func:`check_records`
runs once the deployment is recovered and quiet: every answer of the run
against what is stored (see :mod:`tests.chaos.load` for which answers
guarantee presence or absence), nothing left ``allocating``, and the usage
totals the API reports equal to the sum of the allocations.
"""

import collections

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from db import models

_RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RC = models.ResourceClass.__table__
_CONSUMER = models.Consumer.__table__
_PROJECT = models.Project.__table__
_NODE = models.Node.__table__
_NODE_ALLOC = models.NodeAllocation.__table__
SETTLED = ('active', 'error')


def _capacity(conn):
    used = (sa.select(_ALLOC.c.resource_provider_id.label('rp_id'),
                      _ALLOC.c.resource_class_id.label('rc_id'),
                      sa.func.sum(_ALLOC.c.used).label('used'))
            .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id)
            .subquery())
    rows = conn.execute(
        sa.select(_RP.c.uuid, _RC.c.name, used.c.used, _INV.c.total, _INV.c.reserved,
                  _INV.c.allocation_ratio)
        .select_from(used.join(_RP, _RP.c.id == used.c.rp_id)
                     .join(_RC, _RC.c.id == used.c.rc_id)
                     .outerjoin(_INV, sa.and_(_INV.c.resource_provider_id == used.c.rp_id,
                                              _INV.c.resource_class_id == used.c.rc_id))))
    found = []
    for rp, rc, amount, total, reserved, ratio in rows:
        capacity = 0 if total is None else (total - reserved) * ratio
        if amount > capacity:
            found.append('capacity: provider %s uses %d %s of %s' % (rp, amount, rc,
                                                                   capacity))
    return found


def _nodes(conn):
    found = []
    held = conn.execute(
        sa.select(_NODE_ALLOC.c.node_id, sa.func.count())
        .where(_NODE_ALLOC.c.node_id.is_not(None), _NODE_ALLOC.c.state == 'active')
        .group_by(_NODE_ALLOC.c.node_id).having(sa.func.count() > 1))
    found += ['node: node id %s has %d active allocations' % tuple(r) for r in held]
    # a node points at an allocation that exists and points back at it
    pointers = conn.execute(
        sa.select(_NODE.c.uuid, _NODE.c.allocation_id, _NODE_ALLOC.c.node_id,
                  _NODE.c.id, _NODE_ALLOC.c.state)
        .select_from(_NODE.outerjoin(_NODE_ALLOC,
                                     _NODE_ALLOC.c.id == _NODE.c.allocation_id))
        .where(_NODE.c.allocation_id.is_not(None)))
    for node, alloc_id, back, node_id, state in pointers:
        if back != node_id or state != 'active':
            found.append('node: node %s points at allocation id %s (its node id %s, '
                         'state %s)' % (node, alloc_id, back, state))
    # an active allocation's node points back at it
    active = conn.execute(
        sa.select(_NODE_ALLOC.c.uuid, _NODE_ALLOC.c.id, _NODE.c.allocation_id)
        .select_from(_NODE_ALLOC.outerjoin(_NODE, _NODE.c.id == _NODE_ALLOC.c.node_id))
        .where(_NODE_ALLOC.c.state == 'active'))
    for uuid, alloc_id, pointer in active:
        if pointer != alloc_id:
            found.append('node: active allocation %s is not on its node (node points '
                         'at %s)' % (uuid, pointer))
    return found


class Checker:
    """State invariants on one snapshot; remembers generations between samples."""

    def __init__(self, db_url):
        self.engine = sa.create_engine(db_url, pool_pre_ping=True, pool_size=2)
        self.generations = {}        # ('rp'|'consumer', uuid) -> last generation seen
        self.samples = 0
        self.skipped = 0             # samples the database could not answer (restart)

    def _generations(self, conn):
        found = []
        for table, label in ((_RP, 'rp'), (_CONSUMER, 'consumer')):
            for uuid, gen in conn.execute(sa.select(table.c.uuid, table.c.generation)):
                key = (label, uuid)
                last = self.generations.get(key)
                if last is not None and gen < last:
                    found.append('generation: %s %s went from %d to %d'
                                 % (label, uuid, last, gen))
                self.generations[key] = gen if last is None else max(gen, last)
        return found

    def check(self):
        """Violations on one snapshot (a list of strings); None if the DB is away."""
        try:
            with self.engine.connect().execution_options(
                    isolation_level='REPEATABLE READ') as conn:
                with conn.begin():
                    found = _capacity(conn) + _nodes(conn) + self._generations(conn)
        except sa_exc.OperationalError:
            self.skipped += 1
            return None
        self.samples += 1
        return found

    def allocating(self):
        """Uuids of node allocations still ``allocating``."""
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                sa.select(_NODE_ALLOC.c.uuid).where(_NODE_ALLOC.c.state == 'allocating'))]

    def consumer_allocations(self):
        """``{consumer: {rp uuid: {class: used}}}`` of every allocation."""
        stored = collections.defaultdict(lambda: collections.defaultdict(dict))
        with self.engine.connect() as conn:
            for consumer, rp, rc, used in conn.execute(
                    sa.select(_ALLOC.c.consumer_id, _RP.c.uuid, _RC.c.name, _ALLOC.c.used)
                    .select_from(_ALLOC.join(_RP, _RP.c.id == _ALLOC.c.resource_provider_id)
                                 .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id))):
                stored[consumer][rp][rc] = used
        return {c: {rp: {'resources': rcs} for rp, rcs in by_rp.items()}
                for c, by_rp in stored.items()}

    def node_allocations(self):
        """``{uuid: state}`` of every node allocation."""
        with self.engine.connect() as conn:
            return {u: s for u, s in conn.execute(
                sa.select(_NODE_ALLOC.c.uuid, _NODE_ALLOC.c.state))}

    def usages(self):
        """``{rp uuid: {class: sum of used}}`` of every allocation."""
        by_rp = collections.defaultdict(dict)
        with self.engine.connect() as conn:
            for rp, rc, used in conn.execute(
                    sa.select(_RP.c.uuid, _RC.c.name, sa.func.sum(_ALLOC.c.used))
                    .select_from(_ALLOC.join(_RP, _RP.c.id == _ALLOC.c.resource_provider_id)
                                 .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id))
                    .group_by(_RP.c.uuid, _RC.c.name)):
                by_rp[rp][rc] = int(used)
        return by_rp

    def project_usages(self, project):
        """``{class: sum of used}`` of the consumers of one project."""
        with self.engine.connect() as conn:
            return {rc: int(used) for rc, used in conn.execute(
                sa.select(_RC.c.name, sa.func.sum(_ALLOC.c.used))
                .select_from(_ALLOC.join(_CONSUMER, _CONSUMER.c.uuid == _ALLOC.c.consumer_id)
                             .join(_PROJECT, _PROJECT.c.id == _CONSUMER.c.project_id)
                             .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id))
                .where(_PROJECT.c.external_id == project).group_by(_RC.c.name))}

    def dispose(self):
        self.engine.dispose()


def _final_expectation(records):
    """``'present'``, ``'absent'`` or ``'either'`` from a key's create and deletes."""
    create = next((r for r in records if r['op'] == 'create'), None)
    deletes = [r for r in records if r['op'] == 'delete']
    if create is None or create['outcome'] == 'refused':
        return 'absent', create
    if any(d['outcome'] == 'ok' for d in deletes):
        return 'absent', create
    if create['outcome'] == 'ambiguous' or any(d['outcome'] == 'ambiguous'
                                               for d in deletes):
        return 'either', create
    return 'present', create


def _same_claim(expect, stored):
    if expect is not None:
        return stored == expect
    # an unanswered schedule-and-claim: one provider, exactly what was asked
    from tests.chaos import load
    return len(stored) == 1 and next(iter(stored.values())) == {
        'resources': dict(load.CLAIM)}


def check_records(checker, records):
    """Violations of the run's answers against the stored state (deployment quiet)."""
    by_key = collections.defaultdict(list)
    for record in records:
        by_key[(record['kind'], record['key'])].append(record)
    stored = checker.consumer_allocations()
    nodes = checker.node_allocations()
    found = []
    for (kind, key), recs in sorted(by_key.items()):
        want, create = _final_expectation(recs)
        if kind == 'node':
            state = nodes.get(key)
            if want == 'absent' and state is not None:
                found.append('node allocation %s answered %s is stored (%s)'
                             % (key, _answers(recs), state))
            elif want == 'present' and state not in SETTLED:
                found.append('node allocation %s answered %s is %s'
                             % (key, _answers(recs), state or 'missing'))
            elif want == 'either' and state is not None and state not in SETTLED:
                found.append('node allocation %s answered %s is %s'
                             % (key, _answers(recs), state))
            continue
        have = stored.get(key)
        expect = create['expect'] if create else None
        if want == 'absent' and have is not None:
            found.append('%s %s answered %s is stored: %s' % (kind, key, _answers(recs),
                                                              have))
        elif want == 'present' and (have is None or not _same_claim(expect, have)):
            found.append('%s %s answered %s is %s (expected %s)'
                         % (kind, key, _answers(recs), have or 'missing', expect))
        elif want == 'either' and have is not None and not _same_claim(expect, have):
            found.append('%s %s answered %s is partial: %s (expected %s)'
                         % (kind, key, _answers(recs), have, expect))
    found += ['node allocation %s left allocating' % u for u in checker.allocating()]
    return found


def _answers(records):
    return ', '.join('%s %s' % (r['op'], r['status'] or 'no answer') for r in records)


def check_usages(checker, session, placement_url, providers, project):
    """The API's usage totals (per provider and per project) against the allocations."""
    by_rp = checker.usages()
    found = []
    for rp in providers:
        resp = session.get('%s/resource_providers/%s/usages' % (placement_url, rp))
        if resp.status_code != 200:
            found.append('usages: provider %s answered %d' % (rp, resp.status_code))
            continue
        api = {k: v for k, v in resp.json()['usages'].items() if v}
        if api != by_rp.get(rp, {}):
            found.append('usages: provider %s reports %s, allocations sum %s'
                         % (rp, api, by_rp.get(rp, {})))
    resp = session.get('%s/usages?project_id=%s' % (placement_url, project))
    if resp.status_code != 200:
        return found + ['usages: project %s answered %d' % (project, resp.status_code)]
    api = {k: v for k, v in resp.json()['usages'].items() if v}
    mine = {k: v for k, v in checker.project_usages(project).items() if v}
    if api != mine:
        found.append('usages: project %s reports %s, allocations sum %s'
                     % (project, api, mine))
    return found
