"""What a node allocation's trait filter costs PostgreSQL: planning, execution, server CPU.

A throwaway PostgreSQL (tests/services.py) with ``--nodes`` available nodes of
one resource class, each holding ``--node-traits`` traits (every fourth node
lacks one of the requested traits, so the filter has work to do).  For an
allocation asking ``--traits`` traits the two statements the conductor runs
(objects/baremetal/node_choice.py) are measured:

* ``limited``: the candidate query (``limited_query``, limit 1), read-only;
* ``reserve``: PostgreSQL's one-statement pick and reservation
  (``pick_and_reserve``), its writes rolled back after every run.

For each: the median ``Planning Time`` and ``Execution Time`` of ``--runs``
``EXPLAIN (ANALYZE)`` runs, and the server CPU per plain execution (the
backend's utime+stime from /proc over ``--runs`` runs; psycopg2 prepares
nothing, so every execution is planned again, as in production).  Prints a
table and a final JSON line.

    .venv/bin/python -m bench.trait_filter [--traits 50] [--nodes 2000] [--runs 50]

Recorded 2026-11-27 ~17:15 UTC on the shared 2-CPU machine (load ~7; PostgreSQL
15, 200 nodes with 50 traits each, 50 traits asked; planning and execution
are medians of EXPLAIN (ANALYZE) wall times, server CPU is the backend's
utime+stime per plain execution, 10 ms tick resolution):

    code                          runs  query    planning ms  execution ms  server CPU ms
    before (d20f38b, 64 EXISTS)   1     limited  34,612.6     34.5          6,940
    before (d20f38b, 65 EXISTS)   1     reserve  27,042.1     31.7          8,190
    after (one counted subquery)  10    limited  0.208        2.5           2.0
    after (one counted subquery)  10    reserve  0.347        6.9           2.0

With 2,000 nodes of 60 traits the old query had not finished planning after
6 minutes of backend CPU (9 GB resident); it was stopped.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import types
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import psycopg2  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from db import api as db_api  # noqa: E402
from db import migration, models  # noqa: E402
from objects.baremetal import node_choice  # noqa: E402
from tests import services  # noqa: E402

TICK = os.sysconf('SC_CLK_TCK')


def _fill(engine, nodes, node_traits, wanted):
    node_t, trait_t = models.Node.__table__, models.NodeTrait.__table__
    extra = ['CUSTOM_OTHER_%d' % i for i in range(max(0, node_traits - len(wanted)))]
    with engine.begin() as conn:
        conn.execute(node_t.insert(), [
            dict(uuid=str(uuid.uuid4()), name='node-%d' % i, driver='fake-hardware',
                 resource_class='bench', provision_state='available',
                 power_state='power off', maintenance=False, conductor_group='')
            for i in range(nodes)])
        ids = [r.id for r in conn.execute(sa.select(node_t.c.id))]
        rows: list[dict] = []
        for n, node_id in enumerate(ids):
            have = wanted[1:] if n % 4 == 0 else wanted   # every fourth lacks one
            rows.extend(dict(node_id=node_id, trait=t) for t in have + extra)
        conn.execute(trait_t.insert(), rows)
        conn.exec_driver_sql('ANALYZE')


def _captured(engine, statement, params):
    """The SQL string and DBAPI parameters SQLAlchemy sends for ``statement``."""
    seen = []

    def grab(conn, cursor, sql, parameters, context, executemany):
        seen.append((sql, parameters))

    sa.event.listen(engine, 'before_cursor_execute', grab)
    try:
        with engine.connect() as conn:
            conn.execute(statement, params)
            conn.rollback()
    finally:
        sa.event.remove(engine, 'before_cursor_execute', grab)
    return seen[-1]


def _backend_cpu(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _measure(engine, sql, params, runs):
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        cur.execute('SELECT pg_backend_pid()')
        pid = cur.fetchone()[0]
        plans, execs = [], []
        for _ in range(runs):
            cur.execute('EXPLAIN (ANALYZE, FORMAT JSON) ' + sql, params)
            plan = cur.fetchone()[0][0]
            plans.append(plan['Planning Time'])
            execs.append(plan['Execution Time'])
            raw.rollback()
        for _ in range(3):                      # warm the backend's caches
            cur.execute(sql, params)
            raw.rollback()
        before = _backend_cpu(pid)
        for _ in range(runs):
            cur.execute(sql, params)
            cur.fetchall()
            raw.rollback()
        cpu = (_backend_cpu(pid) - before) / runs
    finally:
        raw.close()
    return {'planning_ms': round(statistics.median(plans), 3),
            'execution_ms': round(statistics.median(execs), 3),
            'server_cpu_ms': round(cpu * 1000, 2)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--traits', type=int, default=50)
    parser.add_argument('--nodes', type=int, default=2000)
    parser.add_argument('--node-traits', type=int, default=60)
    parser.add_argument('--runs', type=int, default=50)
    parser.add_argument('--timeout-s', type=int, default=60,
                        help='statement_timeout of every measured statement')
    args = parser.parse_args(argv)
    wanted = ['CUSTOM_WANT_%d' % i for i in range(args.traits)]
    with tempfile.TemporaryDirectory() as work:
        pg = services.PostgreSQL(work).start()
        try:
            db = db_api.Database(pg.url)
            migration.upgrade(db)
            engine = sa.create_engine(pg.url, poolclass=sa.pool.NullPool, connect_args={
                'options': '-c statement_timeout=%d' % (args.timeout_s * 1000)})
            _fill(engine, args.nodes, args.node_traits, wanted)
            alloc = types.SimpleNamespace(
                id=0, uuid=str(uuid.uuid4()), name=None, owner=None, candidate_nodes=None,
                resource_class='bench', traits=wanted)
            params = node_choice.shape_params(alloc)
            statements = {
                'limited': (node_choice.limited_query('postgresql', alloc, 1, ()), params),
                'reserve': (node_choice._reserve_statement(alloc), dict(
                    params, host='bench', alloc_id=0, now=None,
                    hold_instance=alloc.uuid, hold_traits=wanted)),
            }
            results = {}
            for label, (statement, stmt_params) in statements.items():
                try:
                    sql, dbapi_params = _captured(engine, statement, stmt_params)
                    results[label] = _measure(engine, sql, dbapi_params, args.runs)
                except (sa.exc.OperationalError, psycopg2.OperationalError) as exc:
                    # statement_timeout
                    results[label] = {'error': str(getattr(exc, 'orig', exc)).strip()}
                    continue
                results[label]['exists_in_sql'] = sql.upper().count('EXISTS')
            engine.dispose()
            db.dispose()
        finally:
            pg.stop()
    print('%-8s %12s %13s %15s %7s' % ('query', 'planning ms', 'execution ms',
                                       'server CPU ms', 'EXISTS'))
    for label, r in results.items():
        if 'error' in r:
            print('%-8s %s' % (label, r['error']))
            continue
        print('%-8s %12.3f %13.3f %15.2f %7d' % (
            label, r['planning_ms'], r['execution_ms'], r['server_cpu_ms'],
            r['exists_in_sql']))
    print(json.dumps({'bench': 'trait_filter', 'traits': args.traits, 'nodes': args.nodes,
                      'node_traits': args.node_traits, 'runs': args.runs,
                      'results': results}))


if __name__ == '__main__':
    main()
