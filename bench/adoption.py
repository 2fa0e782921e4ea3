"""Adoption benchmark: ``import placement`` of N providers, then a catch-up after 1 % changed.

Builds a Placement 16 database (objects/adoption/placement_schema.py, the
schema a real Placement's ``db sync`` makes; tests/integration checks the
two agree) in a SQLite file with perfload-like trees: every compute node a
root with VCPU 32 (ratio 16), MEMORY_MB 131072 (ratio 1.5), DISK_GB 2000,
two traits and one of 50 aggregates; every tenth one with two SR-IOV child
providers of a CUSTOM class; one consumer per 4 VCPU of capacity (8 per
compute node, 3 allocations each, 30 % of them also on a child).  Then

* ``full``: the import into an empty berth (SQLite, in process);
* ``catch-up``: after 1 % of the providers got a new inventory total,
  1 % of the consumers were deleted and as many new ones allocated (the
  generations of every provider involved moving, as Placement moves them),
  the second run (it reads only what may have changed: objects/adoption/catch_up.py);
* ``no-op``: a third run that finds nothing to do;
* ``full check``: ``--full``, comparing every row of both sides as the
  first import does: it must find nothing (the catch-up left berth exactly
  as a full import would), and it times what a catch-up cost before it was
  incremental;
* ``export`` (``--export``): ``export placement`` of berth's state (the way
  back) into an empty Placement 16 database in a SQLite file.

Prints a table and a final JSON line.  Exits 1 when the full check finds a
change.

    python -m bench.adoption                                # 2,000 providers
    python -m bench.adoption --providers 10000 --export
    python -m bench.adoption --providers 100000 --export    # the issue's figure
"""

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa

from common import context as berth_context
from objects import database
from objects.adoption import placement_export, placement_import
from objects.adoption import placement_schema as ps
from tests import fixtures

CLASSES = ['VCPU', 'MEMORY_MB', 'DISK_GB']
CUSTOM = 'CUSTOM_SRIOV_VF'


def _u(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def build_source(path, providers, seed=1):
    """A Placement database at ``path`` with ``providers`` compute roots; row counts."""
    rng = random.Random(seed)
    engine = sa.create_engine('sqlite:///%s' % path)
    rows: dict[str, list[dict]] = {t.name: [] for t in ps.TABLES}
    rows['resource_classes'] = [{'id': i, 'name': n} for i, n in enumerate(CLASSES)] + [
        {'id': 10000, 'name': CUSTOM}]
    rows['traits'] = [{'id': 1, 'name': 'HW_CPU_X86_AVX2'}, {'id': 2, 'name': 'CUSTOM_RACK'},
                      {'id': 3, 'name': 'COMPUTE_STATUS_DISABLED'}]
    rows['projects'] = [{'id': i, 'external_id': 'project-%d' % i} for i in range(1, 201)]
    rows['users'] = [{'id': i, 'external_id': 'user-%d' % i} for i in range(1, 501)]
    rows['consumer_types'] = [{'id': 1, 'name': 'INSTANCE'}, {'id': 2, 'name': 'MIGRATION'}]
    rows['placement_aggregates'] = [{'id': i, 'uuid': _u(rng)} for i in range(1, 51)]
    rp_id = consumer_id = 0
    for n in range(providers):
        rp_id += 1
        root = rp_id
        rows['resource_providers'].append({
            'id': root, 'uuid': _u(rng), 'name': 'compute-%06d' % n,
            'generation': rng.randint(1, 40), 'root_provider_id': root,
            'parent_provider_id': None})
        for rc, total, ratio in ((0, 32, 16.0), (1, 131072, 1.5), (2, 2000, 1.0)):
            rows['inventories'].append({
                'resource_provider_id': root, 'resource_class_id': rc, 'total': total,
                'reserved': 0 if rc else 2, 'min_unit': 1, 'max_unit': total,
                'step_size': 1, 'allocation_ratio': ratio})
        rows['resource_provider_traits'] += [{'resource_provider_id': root, 'trait_id': 1},
                                             {'resource_provider_id': root, 'trait_id': 2}]
        rows['resource_provider_aggregates'].append(
            {'resource_provider_id': root, 'aggregate_id': n % 50 + 1})
        children = []
        if n % 10 == 0:
            for _ in range(2):
                rp_id += 1
                children.append(rp_id)
                rows['resource_providers'].append({
                    'id': rp_id, 'uuid': _u(rng), 'name': 'compute-%06d-pf%d' % (
                        n, len(children)), 'generation': 1, 'root_provider_id': root,
                    'parent_provider_id': root})
                rows['inventories'].append({
                    'resource_provider_id': rp_id, 'resource_class_id': 10000,
                    'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
                    'step_size': 1, 'allocation_ratio': 1.0})
        for k in range(8):          # one consumer per 4 VCPU of capacity
            consumer_id += 1
            c = _u(rng)
            rows['consumers'].append({
                'id': consumer_id, 'uuid': c, 'project_id': rng.randint(1, 200),
                'user_id': rng.randint(1, 500), 'generation': rng.randint(1, 5),
                'consumer_type_id': 1 if k else 2})
            for rc, used in ((0, 4), (1, 8192), (2, 40)):
                rows['allocations'].append({'resource_provider_id': root,
                                            'resource_class_id': rc, 'used': used,
                                            'consumer_id': c})
            if children and k < 3:
                rows['allocations'].append({'resource_provider_id': children[k % 2],
                                            'resource_class_id': 10000, 'used': 1,
                                            'consumer_id': c})
    with engine.begin() as conn:
        ps.create_at(conn, ps.HEAD)
        for table in ps.TABLES:
            for i in range(0, len(rows[table.name]), 20000):
                conn.execute(table.insert(), rows[table.name][i:i + 20000])
    engine.dispose()
    return {t: len(r) for t, r in rows.items()}


def change_one_percent(path, seed=2):
    """1 % of inventories' totals, 1 % of consumers deleted and as many made; counts.

    Generations move as Placement moves them: a provider's with its
    inventories and with every allocation written or deleted on it.
    """
    rng = random.Random(seed)
    engine = sa.create_engine('sqlite:///%s' % path)
    with engine.begin() as conn:
        rp_ids = [r[0] for r in conn.execute(sa.select(ps.resource_providers.c.id)
                                             .where(ps.resource_providers.c.parent_provider_id
                                                    .is_(None)))]
        picked = rng.sample(rp_ids, max(1, len(rp_ids) // 100))
        inv = ps.inventories
        conn.execute(inv.update().where(inv.c.resource_provider_id.in_(picked),
                                        inv.c.resource_class_id == 0).values(total=48))
        rp = ps.resource_providers
        conn.execute(rp.update().where(rp.c.id.in_(picked))
                     .values(generation=rp.c.generation + 1))
        consumers = conn.execute(sa.select(ps.consumers.c.uuid)).scalars().all()
        gone = rng.sample(consumers, max(1, len(consumers) // 100))
        al = ps.allocations
        # as Placement does: every allocation write moves its providers' generations
        touched = set(conn.execute(sa.select(al.c.resource_provider_id).distinct().where(
            al.c.consumer_id.in_(gone))).scalars())
        conn.execute(al.delete().where(al.c.consumer_id.in_(gone)))
        conn.execute(ps.consumers.delete().where(ps.consumers.c.uuid.in_(gone)))
        new = []
        targets = rng.sample(rp_ids, len(gone))
        touched.update(targets)
        conn.execute(rp.update().where(rp.c.id.in_(sorted(touched)))
                     .values(generation=rp.c.generation + 1))
        for rp_id in targets:
            c = _u(rng)
            new.append({'uuid': c, 'project_id': 1, 'user_id': 1, 'generation': 1,
                        'consumer_type_id': 1})
            conn.execute(ps.allocations.insert(), [
                {'resource_provider_id': rp_id, 'resource_class_id': 0, 'used': 2,
                 'consumer_id': c},
                {'resource_provider_id': rp_id, 'resource_class_id': 1, 'used': 4096,
                 'consumer_id': c}])
        conn.execute(ps.consumers.insert(), new)
    engine.dispose()
    return {'providers': len(picked), 'consumers_deleted': len(gone),
            'consumers_new': len(new), 'generations_moved': len(touched | set(picked))}


def run(providers, tmp, export=False):
    src = os.path.join(tmp, 'placement.sqlite')
    started = time.perf_counter()
    counts = build_source(src, providers)
    built = time.perf_counter() - started
    conf = fixtures.make_conf(os.path.join(tmp, 'state'))
    fixtures.fresh_database(tmp, conf)
    db = database.open_database(conf)
    results = []
    try:
        ctx = berth_context.admin_context(db)
        url = 'sqlite:///%s' % src

        def timed(name, full=False):
            # CPU seconds too: on a loaded shared host the wall clock says little
            cpu = time.process_time()
            result = placement_import.run(ctx, url, full=full)
            results.append((name, result, time.process_time() - cpu))

        timed('full')
        changed = change_one_percent(src)
        timed('catch-up')
        timed('no-op')
        timed('full check', full=True)
        if export:
            results.append(_export(ctx, os.path.join(tmp, 'export.sqlite')))
    finally:
        db.dispose()
    return counts, built, changed, results


def _export(ctx, path):
    """``export placement`` into an empty Placement database: a (name, Result, cpu s) row."""
    engine = sa.create_engine('sqlite:///%s' % path)
    with engine.begin() as conn:
        ps.create_at(conn, ps.HEAD)
    engine.dispose()
    cpu, wall = time.process_time(), time.monotonic()
    written = placement_export.run(ctx, 'sqlite:///%s' % path)
    seconds = time.monotonic() - wall
    result = placement_import.Result(ps.HEAD, written, {t: (n, 0, 0) for t, n in
                                                         written.items()}, [], 0, seconds,
                                     'export', {'write placement': seconds})
    return 'export', result, time.process_time() - cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--providers', type=int, default=2000)
    parser.add_argument('--export', action='store_true',
                        help='time export placement (the way back) too')
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix='berth-bench-adoption-') as tmp:
        counts, built, changed, results = run(args.providers, tmp, args.export)
    print('source: %s (built in %.1f s); 1%% change: %s' % (
        ', '.join('%d %s' % (n, t) for t, n in counts.items()), built, changed))
    print('%-10s | %8s | %8s | %8s | %s' % ('run', 'seconds', 'cpu s', 'changes',
                                            'phases (s)'))
    for name, r, cpu in results:
        print('%-10s | %8.1f | %8.1f | %8d | %s' % (name, r.seconds, cpu, r.changed, ', '.join(
            '%s %.1f' % kv for kv in r.phases.items())))
    print(json.dumps({'benchmark': 'adoption', 'providers': args.providers,
                      'source_rows': counts, 'changed': changed,
                      'runs': {name: {'seconds': round(r.seconds, 2),
                                      'cpu_seconds': round(cpu, 2), 'changes': r.changed,
                                      'phases': {k: round(v, 2) for k, v in r.phases.items()},
                                      'mode': r.mode, 'per_table': r.changes}
                               for name, r, cpu in results}}))
    check = [r for name, r, _ in results if name == 'full check']
    return 1 if check[0].changed else 0


if __name__ == '__main__':
    sys.exit(main())
