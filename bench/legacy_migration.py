"""Legacy compute node migration benchmark: 10,000 varied rows on a fresh SQLite berth.

Starts an embedded berth (API + conductors) in a temporary directory, loads
``--rows`` Nova-style compute nodes (tests/nova_cell.py: shared storage, PCI,
NUMA, missing ratios, 16% bad rows) and times

* ``migrate``: ``berth-manage db online_data_migrations`` (the objects call
  behind it) into berth's own ``compute_nodes``, and
* ``import``: ``berth-manage import compute-nodes`` from a Nova-cell-shaped
  SQLite file, then once more (re-run: nothing changes),

then prints the ``berth-manage status`` table, a summary table and a final
JSON line.

    .venv/bin/python -m bench.legacy_migration                  # 10,000 rows, both
    .venv/bin/python -m bench.legacy_migration --rows 2000 --modes migrate

Recorded 2026-11-22 (shared 2-CPU VM under load average ~20 from other test
runs, SQLite, batch_size 50), 10,000 rows of which 400 soft-deleted and 1,600 bad:

    mode    | found | migrated | skipped | batches | seconds | rows/s
    migrate |  9600 |     8000 |    1600 |     192 |  133.3  |  72.0
    import  |  9600 |     8000 |    1600 |     192 |  123.1  |  78.0
    import re-run: 8000 unchanged, 0 created, 23.4 s

``online_data_migrations`` exits 2 (bad rows remain); ``status`` exits 1
(Warning: 1600 compute nodes cannot be migrated; one conductor; in-process
transport).
"""

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time

from cli import manage_status
from common import context as berth_context
from objects.legacy import compute_node_import, online_migrations
from tests import fixtures, nova_cell
from tests.functional import legacy_helpers


def _stack(tmp, batch_size):
    conf = fixtures.make_conf(os.path.join(tmp, 'state'))
    conf.set_override('batch_size', batch_size, group='compute_migration')
    nova_cell.set_conf(conf)
    return conf, fixtures.start_embedded(conf)


def _migrate(tmp, rows, batch_size):
    conf, stack = _stack(tmp, batch_size)
    try:
        ctx = berth_context.admin_context(stack.db)
        legacy_helpers.insert_legacy_rows(stack.db, rows)
        start = time.perf_counter()
        code, summaries = online_migrations.run(ctx, conf)
        elapsed = time.perf_counter() - start
        nodes = summaries[0]
        status_out, status_code = _status(conf)
        return {'mode': 'migrate', 'rows': len(rows), 'found': nodes.found,
                'migrated': nodes.done, 'skipped': len(nodes.failed),
                'batches': nodes.batches, 'seconds': round(elapsed, 2),
                'rows_per_s': round(nodes.found / elapsed, 1), 'exit_code': code,
                'status_exit_code': status_code}, status_out
    finally:
        stack.stop()


def _import(tmp, rows, batch_size):
    conf, stack = _stack(tmp, batch_size)
    url = 'sqlite:///%s' % os.path.join(tmp, 'nova_cell1.sqlite')
    nova_cell.create(url, rows)
    try:
        ctx = berth_context.admin_context(stack.db)
        times, totals = [], []
        for _ in range(2):
            source = compute_node_import.Source(url).check()
            start = time.perf_counter()
            totals.append(compute_node_import.run(ctx, conf, source))
            times.append(time.perf_counter() - start)
            source.close()
        first, again = totals
        return {'mode': 'import', 'rows': len(rows), 'found': first.found,
                'migrated': first.created, 'skipped': len(first.failed),
                'batches': first.batches, 'seconds': round(times[0], 2),
                'rows_per_s': round(first.found / times[0], 1),
                'rerun_seconds': round(times[1], 2), 'rerun_unchanged': again.unchanged,
                'rerun_created': again.created}, None
    finally:
        stack.stop()


def _status(conf):
    out = io.StringIO()
    checks = manage_status.Checks(conf)
    try:
        with contextlib.redirect_stdout(out):
            code = checks.check()
    finally:
        checks.close()
    return out.getvalue(), int(code)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rows', type=int, default=10000)
    parser.add_argument('--batch-size', type=int, default=50)
    parser.add_argument('--modes', default='migrate,import')
    args = parser.parse_args(argv)
    rows = nova_cell.make_rows(args.rows)
    results, status_out = [], None
    for mode in args.modes.split(','):
        with tempfile.TemporaryDirectory(prefix='berth-bench-') as tmp:
            if mode == 'migrate':
                result, status_out = _migrate(tmp, rows, args.batch_size)
            else:
                result, _ = _import(tmp, rows, args.batch_size)
        results.append(result)
    if status_out:
        print('berth-manage status after the migration:')
        print(status_out)
    cols = ['mode', 'rows', 'found', 'migrated', 'skipped', 'batches', 'seconds',
            'rows_per_s']
    print(' | '.join('%-9s' % c for c in cols))
    for r in results:
        print(' | '.join('%-9s' % r[c] for c in cols))
    print(json.dumps({'benchmark': 'legacy_migration', 'batch_size': args.batch_size,
                      'results': results}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
