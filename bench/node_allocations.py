"""Benchmark of node allocations through the /v1 API on an embedded berth.

For each scenario: a fresh embedded deployment (SQLite, in-process transport)
with N conductors, ``nodes`` available nodes, and 16 client threads that POST
``/v1/allocations`` and poll each one until it is ``active`` or ``error``.
Reports allocations/s (active ones over the wall time of the burst), p50/p95
time from POST to active, duplicates (nodes held by two allocations: must be
0) and errors.  Prints a table and a final JSON line.

    .venv/bin/python bench/node_allocations.py [--clients 16] [--conductors 1,2,4]
        [--client sdk|osc]

How a client waits (``--client``): ``sdk`` (the default) as openstacksdk's
``Allocation.wait`` (nova, metalsmith): a GET only while the POST's answer
is ``allocating``, which with a wait (``--wait``) is rare; ``osc`` as
python-ironicclient's ``allocation.wait`` behind ``openstack baremetal
allocation create --wait``: one GET at once after every POST, whatever it
answered.  ``--wait`` (3 s by default, what every run below was recorded
with) is the wait each POST asks for (the ``Berth-Allocation-Wait``
header; ``[api] allocation_wait`` was 3 s by default then); ``--wait 0``
takes Ironic's asynchronous answer, now berth's default.  "CPU ms per
request" is the whole process's (service and clients: it is one process).

2026-11-25 session 11 (issue 20), ``python -W ignore -m
bench.node_allocations --conductors 2 --nodes 1000 [--client osc]``, base
(main 363bdcb) and after alternating, shared 2-CPU VM: SQLite chooses a
node and gives it the allocation in one UPDATE (node_choice.pick_and_hold;
one statement per allocation fewer, the node's lock no longer written and
cleared), and the allocation lookups of GET/PATCH/DELETE are built once.
sdk, 1000 requests (1050: 50 errors beside):

    run                | alloc/s | p50 ms | p95 ms | CPU ms/alloc | load
    base 03:23         | 414.4   | 37     | 55     | 2.57 (2.55)  | 2.3-2.9
    after 03:25        | 618.5   | 25     | 37     | 1.66 (1.71)  | 2.1-4.3
    base 03:26         | 553.2   | 28     | 39     | 1.98 (1.87)  | 3.3-4.3
    after 03:27        | 604.6   | 26     | 34     | 1.83 (1.83)  | 3.2-3.4

osc, 1000 requests: base 03:29 303.2/s, p95 76 ms, 3.49 (3.58) ms, load
1.2-3.0; after 03:38 252.7/s, p95 94 ms, 3.42 (3.3) ms, load 1.7-2.0 (the
full test suite running beside it).  The standard command (``--conductors
1,2 --nodes 200``; alloc/s with 1 / 2 conductors / 250 requests, process
CPU ms per request): sdk base 03:16 662.4 / 564.1 / 304.1, 1.62 / 1.49 /
2.04 (load 1.3-2.1); after 03:22 695.7 / 681.2 / 543.4, 1.45 / 1.47 /
1.54 (load 2.5); base 03:38 427.5 / 465.0 / 353.9, 2.43 / 2.35 / 2.41
(load 2.2-2.5, the test suite beside); osc base 03:17 331.3 / 212.2 /
227.1, 3.31 / 4.95 / 2.75; after 03:22 378.7 / 282.4 / 241.4, 2.96 / 3.81 /
3.54 (load 2.3-2.7); second pair: sdk after 03:40 718.8 / 741.2 / 436.4,
1.44 / 1.38 / 1.98 (load 2.3-3.3, base beside it 03:38 above); osc base
03:46 288.1 / 262.2 / 174.6, 3.14 / 3.36 / 3.51; after 03:47 305.1 / 245.6
/ 241.9, 2.81 / 2.89 / 3.12 (load 6-6.7): 200-request bursts (0.3-0.9 s)
swing by a third.

With python-ironicclient's GET the process spends ~3 ms per allocation,
not the ~2.3 that a POST and a lone GET cost apart.  One client alone
(in-process, 2,000 GETs) gets ~440 GET /v1/allocations/{uuid} per s for
~0.95 ms of CPU each: py-spy (--idle) finds the request thread half its
time in the response's socket write, i.e. waiting for the GIL again after
the send; ``sys.setswitchinterval(0.0005)`` takes it to ~665/s.  Left
alone: it is the one process's GIL, which berth-api with its conductors
apart does not share with them.

~1.75 ms after against ~1.95 (the first base run an outlier, 2.57): the
GIL caps one process at ~1/1.75 ms = 570/s, so 1,000/s embedded needs
~1 ms, which is beyond trims of the allocation path: with 16 clients in
the process a bare ``GET /v1`` costs ~0.3 ms (client and server), a
``GET /v1/allocations/{uuid}`` 0.72 -> 0.60 ms (one client, in-process,
2,000 GETs after 200 warm-ups), the POST ~1.2 ms more.  With 1000 nodes
instead of 200 the pick (``ORDER BY random() LIMIT 1`` over the nodes that
fit) costs more per allocation on SQLite and PostgreSQL alike.

2026-11-25 (issue 20), ``python -W ignore -m
bench.node_allocations --conductors 1,2 --nodes 200``, shared 2-CPU VM
(see bench/node_allocations_real.py for what changed).  Before (23:35,
load 1.1-1.2):

    conductors | requests | active | errors | 5xx | dup | alloc/s | p50 ms | p95 ms | srv p50/p95
    1          | 200      | 200    | 0      | 0   | 0   | 321.6   | 45     | 71     | 21 / 38
    2          | 200      | 200    | 0      | 0   | 0   | 259.7   | 49     | 165    | 22 / 40
    2          | 250      | 200    | 50     | 0   | 0   | 265.7   | 45     | 65     | 23 / 37

After (00:10, load 3.4-3.6):

    1          | 200      | 200    | 0      | 0   | 0   | 646.7   | 24     | 31     | 9 / 15
    2          | 200      | 200    | 0      | 0   | 0   | 700.2   | 20     | 41     | 11 / 20
    2          | 250      | 200    | 50     | 0   | 0   | 605.3   | 19     | 28     | 10 / 18

The whole process (clients included) spends ~1.6 ms of CPU per allocation
(was ~3.7; SQL statements per allocation 13.4 -> 5.7 with SQLite's BEGINs),
and it is one process: the GIL makes that one core's worth, so 1,000/s
needs <= ~1 ms, most of which is now HTTP (the clients' and cheroot's)
and the API's generic request path.  ``python -m bench.report --only
node_allocations,node_allocations_real`` (00:15, load 3.3-4.1; conductors
1/2/4): embedded 895.6 / 784.5 / 599.9 alloc/s, 250 requests 509.7;
RabbitMQ + PostgreSQL 369.6 / 339.9 / 267.0, 250 requests 268.7
(bench/results/node_allocations*.json; their ``before`` is the baseline).

Recorded 2026-11-22 09:37 (shared 2-CPU VM, load average 44-48; SQLite file,
in-process transport, 16 clients polling every 20 ms):

    conductors | requests | active | errors | 5xx | dup | alloc/s | p50 ms | p95 ms | srv p50/p95
    1          | 200      | 200    | 0      | 0   | 0   | 22.0    | 668    | 1044   | 355 / 671
    2          | 200      | 196    | 0      | 4*  | 0   | 20.9    | 654    | 1386   | 302 / 782
    4          | 200      | 200    | 0      | 0   | 0   | 10.6    | 1370   | 2612   | 662 / 1802
    2          | 250      | 200    | 50     | 0   | 0   | 17.8    | 633    | 1297   | 313 / 431

(*) four POSTs got a connection reset: cheroot closed idle keep-alive
connections beyond its default limit of 10 (fixed in api/server.py since).
SQLite serialises every writer of the process; see
bench/node_allocations_real.py for PostgreSQL.
"""

import argparse
import collections
import concurrent.futures
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from typing import Any
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import context as berth_context  # noqa: E402
from objects.baremetal import allocation as node_alloc_obj  # noqa: E402
from objects.baremetal import node as node_obj  # noqa: E402
from tests import fixtures  # noqa: E402

HEADER = {'X-OpenStack-Ironic-API-Version': '1.60'}


def _percentile(values, pct):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(pct / 100.0 * (len(values) - 1))))]


def make_nodes(db, count, backend='database'):
    """``count`` available nodes (mirrored as providers with the placement backend)."""
    ctx = berth_context.admin_context(db)
    for i in range(count):
        node_obj.create(ctx, {'driver': 'fake-hardware', 'name': 'bench-%d' % i,
                              'resource_class': 'baremetal',
                              'provision_state': node_obj.AVAILABLE,
                              'power_state': node_obj.POWER_OFF},
                        mirror=backend == 'placement')


POLL: dict[str, Any] = {'first': 0.01, 'every': 0.01, 'client': 'sdk', 'wait': 3.0}
# HTTP requests the clients sent during bursts, by method (what each one costs the API)
SENT: collections.Counter = collections.Counter()


class _Client:
    """One keep-alive HTTP/1.1 connection (http.client: a light load generator,
    so that the clients' own CPU does not starve the service on a small box)."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        self.conn: http.client.HTTPConnection | None = None

    def call(self, method, path, body=None, extra_headers=None):
        """(status, decoded JSON or None); one reconnect for a dropped keep-alive."""
        data = json.dumps(body).encode() if body is not None else None
        headers = dict(HEADER, **({'Content-Type': 'application/json'} if data else {}))
        headers.update(extra_headers or {})
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            SENT[method] += 1
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt or method != 'GET':
                    raise
                continue
            return resp.status, (json.loads(raw) if raw else None)


def _one(client):
    start = time.monotonic()
    try:
        status, body = client.call('POST', '/v1/allocations',
                                   {'resource_class': 'baremetal'},
                                   {'Berth-Allocation-Wait': str(POLL['wait'])})
    except (ConnectionError, http.client.HTTPException) as exc:  # counted, never hidden
        print('POST failed: %s' % exc, file=sys.stderr)
        return {'status': 599, 'state': 'connection-error'}
    if status != 201:
        return {'status': status, 'state': 'http-%d' % status}
    uuid = body['uuid']
    pause = POLL['first']
    if POLL['client'] == 'osc':
        # python-ironicclient's wait (``openstack baremetal allocation create
        # --wait``) GETs the allocation at once, whatever the POST answered
        status, body = client.call('GET', '/v1/allocations/' + uuid)
        if status >= 500:
            return {'status': status, 'state': 'http-%d' % status}
    # openstacksdk's wait (nova, metalsmith) polls only what is not active yet
    while body['state'] == 'allocating':
        time.sleep(pause)
        pause = POLL['every']
        status, body = client.call('GET', '/v1/allocations/' + uuid)
        if status >= 500:
            return {'status': status, 'state': 'http-%d' % status}
    return {'status': 201, 'state': body['state'], 'node': body['node_uuid'],
            'uuid': uuid, 'seconds': time.monotonic() - start}


def burst(urls, count, clients):
    """``count`` allocations from ``clients`` threads; (results, wall seconds).

    ``urls``: one API URL, or several that the clients spread over.
    """
    urls = [urls] if isinstance(urls, str) else list(urls)
    # every client connects (and is served once) before the clock starts, as
    # long-lived clients are: 16 connects at once overflow cheroot's listen
    # backlog (5) on a loaded machine, and a POST on such a connection is reset
    idle = [_Client(urls[i % len(urls)]) for i in range(clients)]
    for client in idle:
        client.call('GET', '/v1')
    local = threading.local()
    lock = threading.Lock()

    def task(_):
        if not hasattr(local, 'client'):
            with lock:
                local.client = idle.pop()
        return _one(local.client)

    SENT.clear()
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(task, range(count)))
    return results, time.monotonic() - start


def requests_per_alloc(count):
    """HTTP requests per allocation of the last burst: POST, GET and in all."""
    out = {m.lower(): round(n / count, 2) for m, n in sorted(SENT.items())}
    out['all'] = round(sum(SENT.values()) / count, 2)
    return out


def server_times(db):
    """Seconds from insert to active of every active allocation (the server's part)."""
    ctx = berth_context.admin_context(db)
    return [(a.updated_at - a.created_at).total_seconds()
            for a in node_alloc_obj.list_allocations(ctx, {'state': 'active'})]


def summarize(results, wall, held, server=(), **labels):
    """The scenario's row: throughput, latency percentiles, duplicates, errors."""
    active = [r for r in results if r['state'] == 'active']
    per_node = collections.Counter(r['node'] for r in active)
    times = [r['seconds'] for r in active]
    server = sorted(server)
    return dict(labels, **{
        'requests': len(results), 'active': len(active),
        'errors': sum(1 for r in results if r['state'] == 'error'),
        'http_errors': sum(1 for r in results if r['status'] >= 500),
        'duplicates': sum(c - 1 for c in per_node.values() if c > 1) + held,
        'allocations_per_s': round(len(active) / wall, 1) if wall else None,
        'p50_ms': round(1000 * statistics.median(times), 1) if times else None,
        'p95_ms': round(1000 * _percentile(times, 95), 1) if times else None,
        'p99_ms': round(1000 * _percentile(times, 99), 1) if times else None,
        'srv_p50_ms': round(1000 * statistics.median(server), 1) if server else None,
        'srv_p95_ms': round(1000 * _percentile(server, 95), 1) if server else None,
        'wall_s': round(wall, 2), 'load_avg': round(os.getloadavg()[0], 1),
    })


def run_scenario(conductors, nodes, requests_count, clients, backend='database'):
    with tempfile.TemporaryDirectory() as tmp:
        conf = fixtures.make_conf(os.path.join(tmp, 'state'))
        conf.set_override('embedded_conductors', conductors, group='conductor')
        conf.set_override('backend', backend, group='allocation')
        conf.set_override('workers', max(16, clients * 2), group='api')
        stack = fixtures.start_embedded(conf)
        try:
            make_nodes(stack.db, nodes, backend)
            cpu = time.process_time()
            results, wall = burst(stack.baremetal_url, requests_count, clients)
            cpu = time.process_time() - cpu
            held = held_in_db(stack.db)
            server = server_times(stack.db)
        finally:
            stack.stop()
    row = summarize(results, wall, held, server, conductors=conductors, nodes=nodes,
                    clients=clients, backend=backend)
    # one process: the service and its clients, what one allocation costs in all
    row['cpu_ms_per_request'] = {'process': round(1000 * cpu / requests_count, 2)}
    return row


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
    parser.add_argument('--matrix', default=None,
                        help='API processes x conductors (e.g. 1x1,2x3): run '
                             'bench.node_allocations_real (RabbitMQ, Redis, '
                             'PostgreSQL) on those cells instead')
    add_poll_args(parser)
    add_matrix_args(parser)
    args = parser.parse_args(argv)
    if args.matrix:
        # the real-servers bench builds on this module: the process becomes it
        # (its command line, same arguments) rather than importing it back
        os.execv(sys.executable, [sys.executable, *('-W' + w for w in sys.warnoptions),
                                  '-m', 'bench.node_allocations_real',
                                  *(sys.argv[1:] if argv is None else argv)])
    set_poll(args)
    scenarios = [(int(c), args.nodes, args.nodes) for c in args.conductors.split(',')]
    scenarios.append((2, args.nodes, args.nodes + 50))
    rows = []
    for conductors, nodes, count in scenarios:
        rows.append(run_scenario(conductors, nodes, count, args.clients, args.backend))
        print('.', end='', file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print_table(rows, {'transport': 'embedded', 'database': 'sqlite'})
    last = rows[-1]
    ok = (all(r['duplicates'] == 0 and r['http_errors'] == 0 for r in rows)
          and last['errors'] == last['requests'] - last['nodes'])
    return 0 if ok else 1


def add_poll_args(parser):
    parser.add_argument('--backend', default='database',
                        choices=('database', 'placement'),
                        help='[allocation] backend of the service')
    parser.add_argument('--poll-first-ms', type=float, default=20,
                        help='client pause before its first GET after the POST')
    parser.add_argument('--poll-ms', type=float, default=20,
                        help='client pause between two GETs of one allocation')
    parser.add_argument('--client', default='sdk', choices=('sdk', 'osc'),
                        help="how a client waits for its allocation: 'sdk' as "
                             "openstacksdk's Allocation.wait (GETs only while the "
                             "POST's answer is allocating), 'osc' as "
                             "python-ironicclient's (one GET at once after every POST)")
    parser.add_argument('--wait', type=float, default=3.0,
                        help='seconds each POST asks berth to wait for the outcome '
                             '(the Berth-Allocation-Wait header; 0: answered '
                             'allocating at once, as Ironic)')


def add_matrix_args(parser):
    """The options of the real-server runs (bench/node_allocations_real.py)."""
    from bench import matrix
    matrix.add_cell_options(parser, 'allocation_routing = allocation')


def set_poll(args):
    POLL.update(first=args.poll_first_ms / 1000.0, every=args.poll_ms / 1000.0,
                client=args.client, wait=args.wait)


def print_table(rows, labels):
    """The table, then one JSON line with every row."""
    cols = ('conductors', 'nodes', 'requests', 'active', 'errors', 'http_errors',
            'duplicates', 'allocations_per_s', 'p50_ms', 'p95_ms', 'p99_ms', 'srv_p50_ms',
            'srv_p95_ms', 'wall_s', 'load_avg')
    print(' | '.join('%-10s' % c[:10] for c in cols))
    for row in rows:
        print(' | '.join('%-10s' % row[c] for c in cols))
    for row in rows:
        if 'cpu_ms_per_request' in row:
            print('CPU ms per request, %d conductors, %d requests: %s' % (
                row['conductors'], row['requests'], ', '.join(
                    '%s %s' % kv for kv in row['cpu_ms_per_request'].items())))
        if 'rpc_msgs_per_request' in row:
            print('RPC, %s API x %d conductors: %s messages per request, %s '
                  'allocations per create call, %s PostgreSQL commits per request%s' % (
                      row.get('apis'), row['conductors'], row['rpc_msgs_per_request'],
                      row['batch']['allocations_per_rpc_call'],
                      row.get('pg_commits_per_request'),
                      ''.join('; ' + o for o in row.get('conductor_options') or ())))
        if 'http_per_request' in row:
            print('HTTP requests per allocation: %s' % ', '.join(
                '%s %s' % kv for kv in row['http_per_request'].items()))
    print(json.dumps(dict(labels, benchmark='node_allocations',
                          poll_ms={k: POLL[k] for k in ('first', 'every')},
                          client=POLL['client'],
                          load_avg=round(os.getloadavg()[0], 1), scenarios=rows)))


if __name__ == '__main__':
    sys.exit(main())
