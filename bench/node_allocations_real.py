"""Node allocation benchmark on real servers: RabbitMQ, Redis (tooz), PostgreSQL.

Same bursts as bench/node_allocations.py, against ``berth-api`` and N
``berth-conductor`` processes started here (throwaway servers from
tests/services.py on free loopback ports, stopped by PID).  Prints a table
and a final JSON line.

    .venv/bin/python bench/node_allocations_real.py [--conductors 1,2,4]
        [--client sdk|osc]

``--client``: how each client waits for its allocation (see
bench/node_allocations.py): ``sdk`` (default) as openstacksdk, ``osc`` as
python-ironicclient (``openstack baremetal allocation create --wait``: a
GET after every POST); ``--wait``: what each POST asks berth to wait for
(3 s by default, as in every run recorded below; 0: Ironic's answer).

2026-11-25 session 11 (issue 20), ``python -W ignore -m
bench.node_allocations_real --conductors 2 --nodes 200 [--client osc]``,
base (main 363bdcb) and after alternating, shared 2-CPU VM.  Nothing of
the POST path on PostgreSQL changed (the one-statement hold is SQLite's);
the GET of an allocation reads with a statement built once.  CPU ms per
allocation (200 requests; 250 requests beside):

    run              | alloc/s | p50 | p95 | api         | cond.       | pg          | rabbit | clients | load
    base sdk  03:01  | 374.5   | 36  | 82  | 1.75 (1.44) | 1.2 (1.2)   | 0.45 (0.64) | 0.25   | 0.35    | 0.9
    base sdk  03:13  | 262.6   | 56  | 109 | 1.65 (1.4)  | 1.35 (1.24) | 0.5 (0.68)  | 0.3    | 0.3     | 2.4
    base sdk  03:29  | 389.8   | 34  | 88  | 1.5 (1.52)  | 1.1 (1.28)  | 0.55 (0.64) | 0.25   | 0.35    | 1.2-3.2
    after sdk 03:19  | 348.8   | 39  | 87  | 1.65 (1.76) | 1.2 (1.64)  | 0.55 (0.76) | 0.25   | 0.35    | 2.7-3.9
    after sdk 03:34  | 371.9   | 37  | 97  | 1.75 (1.48) | 1.25 (1.32) | 0.55 (0.68) | 0.3    | 0.4     | 1.1-1.5
    base osc  03:14  | 212.3   | 71  | 117 | 2.7 (2.8)   | 1.45 (1.52) | 0.75 (0.92) | 0.4    | 0.5     | 1.4-2.3
    base osc  03:36  | 224.5   | 56  | 156 | 2.55 (2.52) | 1.45 (1.48) | 0.7 (1.32)  | 0.35   | 0.45    | 1.2-2.4
    after osc 03:21  | 199.5   | 74  | 153 | 2.2 (2.64)  | 1.3 (1.64)  | 0.6 (1.12)  | 0.3    | 0.5     | 2.7-3.8
    after osc 03:38  | 199.1   | 67  | 140 | 2.8 (2.4)   | 1.6 (1.48)  | 0.8 (0.92)  | 0.4    | 0.5     | 2.0-2.2

The POST path costs the same (~3.5 ms over
every process with sdk clients); python-ironicclient's GET after every
POST adds ~1 ms on the API (its HTTP request, policy, a read transaction
and the answer: the generic request path is most of it) and ~0.3 ms
elsewhere, so 600/s at that fidelity needs both paths cut by a third.
The 200-request bursts last 0.5-1 s: run to run the API's share swings by
+-0.3 ms, more than the GET's statement built once saves on PostgreSQL
(~0.1 ms in-process).  A py-spy profile (--gil, 2000 nodes) of the API
shows no single large cost: HTTP/WSGI and middleware ~18 %, the INSERT
transaction ~15 %, the oslo.messaging call and its reply thread ~20 %,
the access log line ~6 %, policy ~3 %; of a conductor: the oslo.messaging
read, dispatch and reply (with publisher confirms) about half, the
reservation statement a fifth.  With 1000 or 2000 nodes instead of 200
PostgreSQL's CPU per allocation grows (0.45 -> 0.9 -> 1.2 ms): the pick
orders every node that fits by random() to take one.

2026-11-25 (issue 20), ``python -W ignore -m
bench.node_allocations_real --conductors 2 --nodes 200``, shared 2-CPU VM.
Fewer statements per allocation (PostgreSQL, counted with a
``before_cursor_execute`` listener; BEGIN/COMMIT not counted): 10.0 -> 2.4.
The API no longer looks up a node by instance uuid for a uuid it made; the
conductor checks the create rule once per call (no row read for an
unrestricted caller), reads a batch's rows in one query, drops the
savepoint per row, and chooses, activates and holds the node in one
statement (CTEs, SKIP LOCKED; objects/baremetal/node_choice.py).

Before (23:36, load 2.1-2.7):

    conductors | requests | active | errors | 5xx | dup | alloc/s | p50 ms | p95 ms | srv p50/p95 | load
    2          | 200      | 200    | 0      | 0   | 0   | 268.9   | 55     | 99     | 32 / 62     | 2.7
    2          | 250      | 200    | 50     | 0   | 0   | 168.0   | 65     | 160    | 38 / 100    | 2.1

CPU ms per request: API 2.3, conductors 1.95, PostgreSQL 1.25, RabbitMQ
0.25, clients 0.35 (~6.1 ms); 250 requests: API 2.96, conductors 2.48,
PostgreSQL 1.72.

After the first three steps (23:54, load 1.9-2.3; pick + batch read, no
savepoints, PostgreSQL's reservation still three statements): 439.0/s,
p50 30 ms, p95 92 ms; API 1.45, conductors 1.05, PostgreSQL 0.55,
RabbitMQ 0.25, clients 0.3; 250 requests 261.3/s.

After (00:12, load 2.5-3.2):

    2          | 200      | 200    | 0      | 0   | 0   | 453.2   | 29     | 93     | 17 / 67     | 3.2
    2          | 250      | 200    | 50     | 0   | 0   | 359.4   | 32     | 74     | 21 / 56     | 2.5

CPU ms per request: API 1.5, conductors 0.9, PostgreSQL 0.5, RabbitMQ 0.2,
clients 0.3 (~3.4 ms, was ~6.1); 250 requests: API 1.44, conductors 1.12,
PostgreSQL 0.6.  Repeated at 00:32 (load 3.0-3.3, others' runs going):
346.0/s, p50 41 ms, p95 83 ms; API 1.65, conductors 1.1, PostgreSQL 0.5,
RabbitMQ 0.2, clients 0.35: the throughput follows the machine's load,
the CPU per allocation much less.  The 600/s target needs <= ~3.3 ms on two idle cores and
the rest is mostly the API's generic request path (HTTP, middleware,
oslo.messaging call) and the conductors' oslo.messaging dispatch, outside
the allocation code; the p95 is the burst's start (pools and reply queues
warming up: p50 is 29 ms).

With the API process's trims beside it (main at 3bf22ac, 00:38, load
0.7-0.9): 425.0/s, p50 32 ms, p95 96 ms (250 requests: 372.4/s, p95 82 ms);
CPU ms per request: API 1.55, conductors 1.0, PostgreSQL 0.45, RabbitMQ 0.25,
clients 0.3 (~3.55 ms).  Embedded (bench/node_allocations.py, 00:38):
476.9 / 407.8 / 350.2 per s with 1 / 2 / 4 conductors.

2026-11-22 13:49 (load 2.2-2.7), after the conductor's side was trimmed
(the lock UPDATE and the candidate query built once; the allocations of one
``create_allocations`` call reserved in one transaction, a savepoint each):

    conductors | requests | active | errors | 5xx | dup | alloc/s | p50 ms | p95 ms | srv p50/p95 | load
    2          | 200      | 200    | 0      | 0   | 0   | 137.5   | 113    | 249    | 80 / 167    | 2.7
    2          | 250      | 200    | 50     | 0   | 0   | 106.6   | 110    | 199    | 82 / 153    | 2.2

CPU per request: API 3.3 ms, conductors 3.6 ms (was 4.4-5.0; 3.8-4.05
with the prebuilt statements alone, 13:48, load 2.8-4.0), PostgreSQL
1.75-2.1 ms, RabbitMQ 0.55 ms, clients 0.55 ms: ~9.9 ms per allocation.

Recorded 2026-11-22 13:22 with ``--conductors 2`` (shared 2-CPU VM, load
average 2.5-3.7 from other engineers; database backend; POST waits for the
conductor, ``[api] allocation_wait`` = 3 s; waiting calls to one conductor
coalesced: the requests that arrive while a call to it is out go together
in the next ``create_allocations`` call, RPC 1.5, see
conductor/rpcapi/allocation_batch.py):

    conductors | requests | active | errors | 5xx | dup | alloc/s | p50 ms | p95 ms | srv p50/p95 | load
    2          | 200      | 200    | 0      | 0   | 0   | 134.7   | 109    | 202    | 75 / 156    | 2.5
    2          | 250      | 200    | 50     | 0   | 0   | 107.5   | 112    | 233    | 75 / 158    | 2.7

CPU per request: API 3.4 ms, conductors 5.0 ms, PostgreSQL 1.95 ms,
RabbitMQ 0.5 ms, clients 0.65 ms: ~11.5 ms per allocation (13:19, load
2.2-3.2: 146.7/s, p50 97 ms, p95 218 ms; API 3.4, conductors 4.4,
PostgreSQL 1.65, RabbitMQ 0.55).  Two batch calls out per conductor instead
of one made the batches smaller and cost more (13:21, load 2.6-3.5:
119.4/s, p95 262 ms, API 3.55, conductors 5.2, RabbitMQ 0.85).

Before the coalescing (13:12, load 3.3-4.0, one call per allocation):

    2          | 200      | 200    | 0      | 0   | 0   | 110.5   | 123    | 316    | 72 / 218    | 4.0
    2          | 250      | 200    | 50     | 0   | 0   | 78.0    | 135    | 312    | 87 / 226    | 3.3

CPU per request: API 5.0 ms, conductors 6.25 ms, PostgreSQL 1.85 ms,
RabbitMQ 1.55 ms, clients 0.65 ms: ~15 ms per allocation (was ~22-25 ms
with the cast and polls: 12:19, load 2.9: 55.9/s, p50 191 ms, p95 789 ms,
API 11.2, conductors 7.3, PostgreSQL 4.7, RabbitMQ 0.65, clients 1.7).
Numbers swing by +-30 % with the machine's load (13:11, load 6.9: 64.4/s,
p95 511 ms).  The 200/s target needs <= ~10 ms per allocation on 2 idle
cores; what is left is mostly oslo.messaging (receive, dispatch, reply),
SQLAlchemy per statement and the pool's pre-ping per checkout.

Earlier runs (cast + polls):

2026-11-22 09:30 (shared 2-CPU VM, load average 33-43 from other
engineers' runs; every server, the API, the conductors and the 16 clients on
the same 2 CPUs; clients poll every 20 ms; "srv" is insert-to-active as the
database saw it; database backend):

    conductors | requests | active | errors | 5xx | dup | alloc/s | p50 ms | p95 ms | srv p50/p95 | load
    1          | 200      | 200    | 0      | 0   | 0   | 30.4    | 221    | 1508   | 134 / 1336  | 43.3
    2          | 200      | 200    | 0      | 0   | 0   | 39.2    | 373    | 782    | 215 / 648   | 38.1
    4          | 200      | 200    | 0      | 0   | 0   | 22.3    | 638    | 1461   | 326 / 757   | 36.7
    2          | 250      | 200    | 50     | 0   | 0   | 30.5    | 355    | 941    | 206 / 485   | 32.7

CPU per request (2 conductors): API 10.2 ms, conductors 6.8 ms, PostgreSQL
4.1 ms, RabbitMQ 0.7 ms (clients 1.9 ms): about 22 ms of CPU per allocation,
so two idle cores cap this at about 90/s; the 200/s target needs about 4.5
free cores at this cost (the API's share is mostly the clients' polls).
``--backend placement`` (2 conductors, 10:23, load 36-39): 8.3/s, p50 1668 ms,
p95 3488 ms; 250 requests: 11.3/s, exactly 50 errors; 0 duplicates, no 5xx;
CPU per request API 24 ms, conductors 19-32 ms, PostgreSQL 13-17 ms (the
claim: consumer, quota, provider locks and generations, the mirror's
reserved unit).  The database backend in the same minutes (load 45-50):
14.6/s, p50 942 ms, p95 2291 ms; 250 requests 14.9/s, exactly 50 errors;
the numbers follow the machine's load more than the code.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import psutil
import requests
import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import matrix, profile_hook  # noqa: E402
from bench import node_allocations as bench  # noqa: E402
from db import api as db_api  # noqa: E402
from tests import services  # noqa: E402

BIN = os.path.dirname(sys.executable)


BACKEND = {'name': 'database'}
# ``--conductor-option`` lines: the [conductor] group of every process's conf
CONDUCTOR_OPTIONS: list[str] = []


def _conf(tmp, name, rabbit, redis, pg_url, bm_port, placement_port=None):
    path = os.path.join(tmp, '%s.conf' % name)
    with open(path, 'w') as f:
        f.write('[DEFAULT]\nhost = %s\ntransport_url = %s\n'
                '[database]\nconnection = %s\nmax_pool_size = 20\n'
                '[coordination]\nbackend_url = %s\n'
                '[api]\nauth_strategy = noauth2\nworkers = 1\nthreads = 32\n'
                'placement_port = %d\nbaremetal_port = %d\n'
                '[allocation]\nbackend = %s\n[conductor]\n%s'
                % (name, rabbit.url, pg_url, redis.url(),
                   placement_port or services.free_port(), bm_port,
                   BACKEND['name'], ''.join(o + '\n' for o in CONDUCTOR_OPTIONS)))
        f.write(services.RPC_CONF)
    return path


class Cluster:
    """``apis`` berth-api processes plus N berth-conductor processes on the shared servers.

    Each berth-api is one process of 32 threads (``[api] workers = 1``):
    ``workers = 32`` alone now reads as 32 threads in one process per CPU.
    """

    def __init__(self, tmp, conductors, rabbit, redis, pg_url, apis=1):
        self.procs = []
        self.conductors = [self._spawn(tmp, 'bench-c%d' % i, 'berth-conductor', rabbit,
                                       redis, pg_url, 0) for i in range(conductors)]
        self.apis, self.urls, self.metrics_urls = [], [], []
        for i in range(apis):
            port, placement = services.free_port(), services.free_port()
            self.apis.append(self._spawn(tmp, 'bench-api%d' % i, 'berth-api', rabbit,
                                         redis, pg_url, port, placement))
            self.urls.append('http://127.0.0.1:%d' % port)
            # /metrics of an API process is served on its Placement port
            self.metrics_urls.append('http://127.0.0.1:%d' % placement)
        try:
            self._wait(tmp)
        except BaseException:
            self.stop()   # never leave the conductors running
            raise
        time.sleep(3)  # let every conductor's join reach the API's ring

    def _wait(self, tmp):
        deadline = time.monotonic() + 120
        for url in self.urls:
            while True:
                try:
                    if requests.get(url + '/v1', timeout=1).ok:
                        break
                except requests.ConnectionError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError('berth-api did not start (logs in %s)' % tmp)
                time.sleep(0.2)

    def _spawn(self, tmp, name, binary, rabbit, redis, pg_url, bm_port,
               placement_port=None):
        conf = _conf(tmp, name, rabbit, redis, pg_url, bm_port, placement_port)
        log = open(os.path.join(tmp, '%s.log' % name), 'wb')
        proc = subprocess.Popen(
            [os.path.join(BIN, binary), '--config-file', conf], stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.procs.append(proc)
        return proc

    def stop(self):
        matrix.stop_processes(self.procs)


def _reset(db):
    with db.engine.begin() as conn:
        conn.execute(sa.text('UPDATE nodes SET allocation_id = NULL'))
        conn.execute(sa.text('DELETE FROM node_allocations'))
        conn.execute(sa.text('DELETE FROM node_traits'))
        conn.execute(sa.text('DELETE FROM nodes'))
        for table in ('allocations', 'consumers', 'inventories',
                      'resource_provider_traits', 'resource_providers'):
            conn.execute(sa.text('DELETE FROM %s' % table))  # the placement mirror


def _vacuum(db):
    """VACUUM ANALYZE before a burst (untimed): the dead rows of the last
    cell's reset are not cleaned up by an autovacuum worker inside the next
    burst's CPU window, and the planner sees this cell's nodes."""
    with db.engine.connect().execution_options(isolation_level='AUTOCOMMIT') as conn:
        conn.execute(sa.text('VACUUM ANALYZE'))


def cpu_seconds(pids, descendants=True):
    """User + system CPU seconds of ``pids`` (and their descendants)."""
    total = 0.0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            family = root.children(recursive=True) if descendants else []
            for proc in [root] + family:
                times = proc.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def rpc_calls(urls):
    """``{method: calls}`` summed over the ``/metrics`` of every API in ``urls``."""
    total: dict[str, float] = {}
    for url in urls:
        try:
            text = requests.get(url + '/metrics', timeout=30).text
        except requests.RequestException:
            continue
        for method, n in matrix.rpc_counts(matrix.parse_prometheus(text)).items():
            total[method] = total.get(method, 0) + n
    return total


def rpc_per_request(calls, count):
    """RPC messages per request and allocations per create call, from ``calls``."""
    creates = calls.get('create_allocations', 0) + calls.get('create_allocation', 0)
    return {'rpc_calls': {m: int(n) for m, n in sorted(calls.items()) if n},
            'rpc_msgs_per_request': round(matrix.rpc_messages(calls) / count, 2),
            'batch': {'allocations_per_rpc_call': round(count / creates, 2)
                      if creates else None}}


def pg_commits(pg):
    """Transactions committed in the ``berth`` database so far, or None."""
    return matrix.pg_commits(pg, 'berth')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--clients', type=int, default=16)
    parser.add_argument('--nodes', type=int, default=200)
    parser.add_argument('--conductors', default='1,2,4')
    parser.add_argument('--apis', type=int, default=1,
                        help='berth-api processes (clients spread over them, as '
                             'behind a load balancer)')
    parser.add_argument('--matrix', default=None,
                        help='API processes x conductors cells instead of '
                             '--conductors/--apis, e.g. 1x1,2x3; each row adds RPC '
                             'messages and allocations per RPC call')
    bench.add_poll_args(parser)
    bench.add_matrix_args(parser)
    args = parser.parse_args(argv)
    bench.set_poll(args)
    BACKEND['name'] = args.backend
    CONDUCTOR_OPTIONS[:] = args.conductor_option or ()
    tmp = tempfile.mkdtemp(prefix='berth-bench-')
    os.chmod(tmp, 0o755)  # PostgreSQL runs as its own user
    servers = [services.RabbitMQ(tmp).start(), services.Redis(tmp).start(),
               services.PostgreSQL(tmp).start()]
    rabbit, redis, pg = servers
    rows: list[dict] = []
    try:
        manage_conf = _conf(tmp, 'manage', rabbit, redis, pg.url, 0)
        subprocess.run([os.path.join(BIN, 'berth-manage'), '--config-file', manage_conf,
                        'db', 'sync'], check=True, capture_output=True)
        db = db_api.Database(pg.url)
        if args.matrix:
            scenarios = [(c, args.nodes, a) for a, c in matrix.parse_matrix(args.matrix)
                         for _ in range(args.repeat)]
        else:
            scenarios = [(int(c), args.nodes, args.apis)
                         for c in args.conductors.split(',')]
            scenarios.append((2, args.nodes + 50, args.apis))
        for conductors, count, apis in scenarios:
            _reset(db)
            bench.make_nodes(db, args.nodes, args.backend)
            _vacuum(db)
            cluster = Cluster(tmp, conductors, rabbit, redis, pg.url, apis)
            groups = {'api': [p.pid for p in cluster.apis],
                      'conductors': [p.pid for p in cluster.conductors],
                      'postgresql': [pg.proc.pid], 'rabbitmq': [rabbit.proc.pid],
                      'coordination': [redis.proc.pid],
                      'clients': [os.getpid()]}   # this process only: the servers are its children

            def cpu():
                return {k: cpu_seconds(v, k != 'clients') for k, v in groups.items()}
            # BERTH_BENCH_PYSPY: py-spy over the API and conductors during the burst
            recorder = profile_hook.Recorder.from_env(
                'nodes_%dx%d_%d' % (apis, conductors, len(rows)))
            try:
                calls0 = rpc_calls(cluster.metrics_urls)
                commits0 = pg_commits(pg)
                if recorder is not None:
                    recorder.start({'api': groups['api'],
                                    'conductor': groups['conductors']})
                before = cpu()
                results, wall = bench.burst(cluster.urls, count, args.clients)
                used = {k: v - before[k] for k, v in cpu().items()}
                if recorder is not None:
                    recorder.stop()
                # an idle PostgreSQL backend reports its commits up to 10 s late
                time.sleep(11)
                commits1 = pg_commits(pg)
                calls = matrix.delta(rpc_calls(cluster.metrics_urls), calls0)
            finally:
                cluster.stop()
            row = bench.summarize(results, wall, bench.held_in_db(db),
                                  bench.server_times(db), conductors=conductors,
                                  apis=apis, nodes=args.nodes, clients=args.clients,
                                  backend=args.backend)
            row.update(rpc_per_request(calls, count))
            row['http_per_request'] = bench.requests_per_alloc(count)
            # CPU milliseconds per request, per part: what one allocation costs
            row['cpu_ms_per_request'] = {k: round(1000 * v / count, 2)
                                         for k, v in used.items()}
            # every server process (API, conductors, PostgreSQL, RabbitMQ, Redis)
            row['cpu_ms_per_request']['servers'] = round(1000 * sum(
                v for k, v in used.items() if k != 'clients') / count, 2)
            if commits0 is not None and commits1 is not None:
                # the two reads of the counter are transactions of their own
                row['pg_commits_per_request'] = round((commits1 - commits0 - 1) / count, 2)
            row['conductor_options'] = list(CONDUCTOR_OPTIONS)
            rows.append(row)
            print('.', end='', file=sys.stderr, flush=True)
        db.dispose()
    finally:
        for server in reversed(servers):
            server.stop()
    print(file=sys.stderr)
    bench.print_table(rows, {'transport': 'rabbitmq', 'database': 'postgresql',
                             'coordination': 'redis'})
    last = rows[-1]
    ok = (all(r['duplicates'] == 0 and r['http_errors'] == 0 for r in rows)
          and last['errors'] == last['requests'] - last['nodes'])
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
