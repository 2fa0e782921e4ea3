"""Benchmark of node allocations through the /v1 API on an embedded berth.

For each scenario: a fresh embedded deployment (SQLite, in-process transport)
with N conductors, ``nodes`` available nodes, and 16 client threads that POST
``/v1/allocations`` and poll each one until it is ``active`` or ``error``.
Reports allocations/s (active ones over the wall time of the burst), p50/p95
time from POST to active, duplicates (nodes held by two allocations: must be
0) and errors.  Prints a table and a final JSON line.

    .venv/bin/python bench/node_allocations.py [--clients 16] [--conductors 1,2,4]

Recorded 2026-11-22 (shared 2-CPU VM, load average ~38 from other test runs;
SQLite file, in-process transport, 16 clients polling every 10 ms):

    conductors | requests | active | errors | 5xx | dup | alloc/s | p50 ms | p95 ms
    1          | 200      | 200    | 0      | 0   | 0   | 13.5    | 614    | 4243
    2          | 200      | 200    | 0      | 0   | 0   | 10.1    | 674    | 4885
    4          | 200      | 200    | 0      | 0   | 0   |  7.4    | 793    | 8450
    2          | 250      | 200    | 50     | 0   | 0   |  8.5    | 882    | 4748

The tail is SQLite's busy handler (writers of one process wait in sleeps of
up to 100 ms for the file lock); see bench/node_allocations_real.py for
PostgreSQL.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import statistics
import sys
import tempfile
import threading
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import context as berth_context  # noqa: E402
from objects import node as node_obj  # noqa: E402
from tests import fixtures  # noqa: E402

HEADER = {'X-OpenStack-Ironic-API-Version': '1.60'}


def _percentile(values, pct):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(pct / 100.0 * (len(values) - 1))))]


def make_nodes(db, count):
    ctx = berth_context.admin_context(db)
    for i in range(count):
        node_obj.create(ctx, {'driver': 'fake-hardware', 'name': 'bench-%d' % i,
                              'resource_class': 'baremetal',
                              'provision_state': node_obj.AVAILABLE,
                              'power_state': node_obj.POWER_OFF})


def _one(session, url):
    start = time.monotonic()
    resp = session.post(url + '/v1/allocations', headers=HEADER,
                        json={'resource_class': 'baremetal'})
    if resp.status_code != 201:
        return {'status': resp.status_code, 'state': 'http-%d' % resp.status_code}
    uuid = resp.json()['uuid']
    body = resp.json()
    while body['state'] == 'allocating':
        time.sleep(0.01)
        got = session.get(url + '/v1/allocations/' + uuid, headers=HEADER)
        if got.status_code >= 500:
            return {'status': got.status_code, 'state': 'http-%d' % got.status_code}
        body = got.json()
    return {'status': 201, 'state': body['state'], 'node': body['node_uuid'],
            'uuid': uuid, 'seconds': time.monotonic() - start}


def burst(url, count, clients):
    """``count`` allocations from ``clients`` threads; (results, wall seconds)."""
    local = threading.local()

    def task(_):
        if not hasattr(local, 'session'):
            local.session = requests.Session()
        return _one(local.session, url)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(task, range(count)))
    return results, time.monotonic() - start


def summarize(results, wall, held, **labels):
    """The scenario's row: throughput, latency percentiles, duplicates, errors."""
    active = [r for r in results if r['state'] == 'active']
    per_node = collections.Counter(r['node'] for r in active)
    times = [r['seconds'] for r in active]
    return dict(labels, **{
        'requests': len(results), 'active': len(active),
        'errors': sum(1 for r in results if r['state'] == 'error'),
        'http_errors': sum(1 for r in results if r['status'] >= 500),
        'duplicates': sum(c - 1 for c in per_node.values() if c > 1) + held,
        'allocations_per_s': round(len(active) / wall, 1) if wall else None,
        'p50_ms': round(1000 * statistics.median(times), 1) if times else None,
        'p95_ms': round(1000 * _percentile(times, 95), 1) if times else None,
        'wall_s': round(wall, 2),
    })


def run_scenario(conductors, nodes, requests_count, clients):
    with tempfile.TemporaryDirectory() as tmp:
        conf = fixtures.make_conf(os.path.join(tmp, 'state'))
        conf.set_override('embedded_conductors', conductors, group='conductor')
        conf.set_override('workers', max(16, clients * 2), group='api')
        stack = fixtures.start_embedded(conf)
        try:
            make_nodes(stack.db, nodes)
            results, wall = burst(stack.baremetal_url, requests_count, clients)
            held = held_in_db(stack.db)
        finally:
            stack.stop()
    return summarize(results, wall, held, conductors=conductors, nodes=nodes,
                     clients=clients)


def held_in_db(db):
    """Nodes whose instance is not the allocation that claims them (0 when sound)."""
    ctx = berth_context.admin_context(db)
    bad = 0
    for node in node_obj.list_nodes(ctx, limit=None):
        if node.allocation_uuid is not None and node.instance_uuid != node.allocation_uuid:
            bad += 1
    return bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--clients', type=int, default=16)
    parser.add_argument('--nodes', type=int, default=200)
    parser.add_argument('--conductors', default='1,2,4')
    args = parser.parse_args(argv)
    scenarios = [(int(c), args.nodes, args.nodes) for c in args.conductors.split(',')]
    scenarios.append((2, args.nodes, args.nodes + 50))
    rows = []
    for conductors, nodes, count in scenarios:
        rows.append(run_scenario(conductors, nodes, count, args.clients))
        print('.', end='', file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print_table(rows, {'transport': 'embedded', 'database': 'sqlite'})
    last = rows[-1]
    ok = (all(r['duplicates'] == 0 and r['http_errors'] == 0 for r in rows)
          and last['errors'] == last['requests'] - last['nodes'])
    return 0 if ok else 1


def print_table(rows, labels):
    """The table, then one JSON line with every row."""
    cols = ('conductors', 'nodes', 'requests', 'active', 'errors', 'http_errors',
            'duplicates', 'allocations_per_s', 'p50_ms', 'p95_ms', 'wall_s')
    print(' | '.join('%-10s' % c[:10] for c in cols))
    for row in rows:
        print(' | '.join('%-10s' % row[c] for c in cols))
    print(json.dumps(dict(labels, benchmark='node_allocations',
                          load_avg=round(os.getloadavg()[0], 1), scenarios=rows)))


if __name__ == '__main__':
    sys.exit(main())
