"""Claims benchmark: concurrent schedulers PUT /allocations on the placeload topology.

N compute providers (VCPU 32 max_unit 16, MEMORY_MB 8192 min_unit 128,
DISK_GB 8192 min_unit 5); aggregates cycle [A], [A,B], [A,B,C]; traits cycle
[AVX2], [AVX2,SSE2], [AVX2,SSE2,STORAGE_DISK_SSD]; every 10th compute has no
disk and shares 3 storage providers through aggregate S.  The topology is
written through the Placement API, so ``--url`` may point at any running
berth (e.g. RabbitMQ + PostgreSQL with several conductors).

Each worker claims ``PUT /allocations/{new consumer}`` (1.38, consumer
generation null) on a compute it picked (plus a storage provider for a
diskless one).  The workers run in a process of their own, and so does
berth: the embedded run starts ``berth serve`` (the README's start command:
SQLite, in-process transport, noauth, free loopback ports, a temp state
dir) and stops it by PID.  The CPU counted (``cpu ms``: user + system of
the berth processes per claim, warm-up included) is the service's alone.
Prints a table and a final JSON line: claims/s (granted claims only, 204;
``attempts_per_s`` counts every answer), p50/p95 (of every answer), the
client-visible 409s (capacity and ``placement.concurrent_update``) and the
load average.

    .venv/bin/python -W ignore -m bench.claims            # embedded (berth serve)
    .venv/bin/python -W ignore -m bench.claims --rabbit   # + RabbitMQ/PostgreSQL/etcd,
                                                          #   berth-api, 1 and 3 conductors
    .venv/bin/python -W ignore -m bench.claims --url http://127.0.0.1:8778

``--rabbit`` starts the Debian servers the integration tier uses
(bench/cluster.py; PostgreSQL without fsync), a berth-api and N
berth-conductor processes per run, each run on a database of its own.

Recorded 2026-11-22 on the shared 2-CPU box with ``--claims 1000``; other
engineers' work loads it, and both claims/s and ``cpu ms`` grow worse with
the load (GIL hand-offs, cache misses), so compare at similar loads:

    deployment              cond.  claims/s  p50 ms  p95 ms  409cu  cpu ms (API+cond.)  load
    before (12:25, lead)
    embedded (SQLite)           1     197.3    48.0    61.0      0  4.81                0.3-3.9
    rabbitmq+postgresql         1     121.8       -       -      0  8.56 (3.72+4.84)    0.3-3.9
    rabbitmq+postgresql         3     128.0       -       -      0  9.75 (3.70+6.05)    0.3-3.9
    after
    embedded (SQLite)           1     310.9    29.3    51.1      0  3.02                3.3
    rabbitmq+postgresql         3     163.9    46.6       -      0  6.77 (2.54+4.23)    3.4
    one --rabbit run (13:13)
    embedded (SQLite)           1     250.4    39.1    55.7      0  4.11                3.5
    rabbitmq+postgresql         1     127.3    74.0   134.6      0  8.64 (3.86+4.78)    4.8
    rabbitmq+postgresql         3     150.4    59.3   129.6      0  8.81 (3.35+5.46)    4.9

What made the difference: the policy enforcer looks for file changes once a
second, not per check (common/policy.py); SQLite engines keep their
connections (db/api.py); IN lists bound value by value in fixed sizes, so
statements are not re-rendered (objects/sql/in_list.py); group commit without
savepoints (a claim's checks write nothing: objects.placement.allocation.check_replace
/ apply_replace); a new consumer inserted with its owner ids in one
statement; and this load generator on plain http.client (requests cost the
box ~1 ms of CPU per claim).  Embedded throughput also follows the disk (a
commit's fsync measured 3-13 ms here), which is why the conductor commits
queued claims together (conductor/manager/claim_batch.py).  Zero
client-visible 409s in every run: every claim recorded above was granted,
so these claims/s are the same counted as they are now (granted only).

Issue 20, 2026-11-24/25 (h-cond), ``--rabbit-only --rabbit-conductors 3
--claims 2000``; CPU ms per claim by process, load average (1 min) beside:

    run                                  ok/s  cond.   API    PG  rabbit  total  load
    before (23:35, old measure)         154.7   3.64  3.70  0.73    0.61   9.04   4.0
    1.9 off, new measure, pool 16       205.3   3.17  3.31  1.38    0.51   8.66   3.0
    1.9 on,  new measure, pool 16       297.7   2.31  1.34  1.20    0.32   5.41   3.5
    after (00:18)                       183.4   2.69  1.59  1.30    0.37   6.24   4.2
    after (00:19)                       256.6   2.42  1.42  1.19    0.30   5.59   4.0

(the two middle rows: one build, the client's 1.9 coalescing switched off
and on by a temporary switch, back to back.)  What changed: the API's client
sends the claims waiting for a conductor in one ``claim_resources_many``
call (RPC 1.9, conductor/rpcapi/claim_batch.py; about 1.9 claims per call
at 10 workers), and the conductor writes them in one transaction: per
claim, one message, dispatch and reply fewer on the API, RabbitMQ and the
conductor.  Profiled before (yappi, the three conductors): about 40% of a
conductor's CPU under load went to oslo.messaging (the listener's polls,
the reply publish), about 45% to the claim's SQL (6 statements per claim,
each ~0.1 ms of SQLAlchemy/oslo.db overhead).  The "new measure" counts
the CPU of the children a process reaped (tree_cpu): PostgreSQL backends of
closed overflow connections used to take theirs with them, so PostgreSQL
read low (0.73 where 1.64 was spent); and the cluster's ``[database]
max_pool_size`` is now 16 as doc/deployment.md asks for 16 workers (the
default 5 churned connections).  Idle, the three conductors use 0.33-0.40%
CPU each (30 s, etcd watch/heartbeats, periodic tasks, polling): about
0.04 ms per claim at 300 claims/s, not worth a change.

2026-11-25 00:27-00:31, the API process's CPU per request (issue 20), each
``--claims 2000``; "before" is the tree at 0c2d432, "after" h-api's, run
alternately (load average before each run in the last column):

    deployment              cond.  claims/s  p50 ms  p95 ms  cpu ms: api  cond.  pg    rabbit  client  total  load
    before
    embedded (SQLite)           1     284.7    32.8    51.1  3.46 (server, one process)                     1.8
    rabbitmq+postgresql         3     152.4    57.8   137.7  3.96         3.84   1.04  0.62    0.30    9.85   1.7
    rabbitmq+postgresql         3     181.2    47.2   112.7  3.20         3.14   0.68  0.50    0.23    7.81   6.8
    after
    embedded (SQLite)           1     474.1    19.6    30.3  2.20 (server, one process)                     1.6
    rabbitmq+postgresql         3     208.0    38.7   118.6  1.66         3.13   0.67  0.51    0.24    6.27   3.9
    rabbitmq+postgresql         3     225.5    36.4    99.5  1.65         3.22   0.66  0.47    0.22    6.28   5.4

What made the difference in the API process: ``common.rpc.call_timeout``
re-registered every oslo.messaging option (``list_opts`` deep-copies them,
~1.0 ms of CPU) on each replayable write (RPC 1.8), i.e. on every claim; it
now reads the option (API 3.4 -> 1.43 ms per claim alone, 23:45, load 4.9).
Then, per request: the HTTP server reads a connection through one bytes
buffer instead of cheroot's pure-Python ``_pyio`` reader
(api/connection_reader.py: ~205 -> ~130 us of server CPU per keep-alive
request of a trivial app, 10 clients), request ids without oslo's webob
wrapping (api.common.middleware.RequestId: ~20 us), cheaper policy memo keys,
log values built once, the connection's local address asked once.  What the
API process still spends (py-spy --gil, rabbit run): ~55 % in oslo.messaging
(publish with confirm in the request thread, the reply waiter's thread and
its hand-off; amqp reads each frame in three recv calls, ~14 recv and ~17
poll syscalls per claim), the rest cheroot (accept/selector hand-off per
keep-alive request), the app (~150 us: the access log line ~45 us, JSON
body, policy, webob) and GIL hand-offs between 16 server threads.

Both together (main at 3bf22ac, 2026-11-25 00:37-00:39, load 0.8-1.3, the
quietest window of the night; ``--claims 2000``):

    deployment              cond.  claims/s  p50 ms  p95 ms  cpu ms: api  cond.  pg    rabbit  client  etcd  total
    embedded (SQLite)           1     604.3    15.7    22.5  1.74 (server, one process)
    rabbitmq+postgresql         3     367.6    26.0    45.0  1.15         2.19   1.13  0.29    0.18    0.03  4.98

Still short of issue 20's >= 500/s and <= 2.5 ms over every process.

2026-11-25 00:56-00:58, the claim's SQL statements (issue 20, h-sql), one
``--rabbit-only --rabbit-conductors 3 --claims 2000`` run each, "before" the
tree at 3bf22ac, during a CI rehearsal (load average beside):

    run        ok/s  p50 ms  p95 ms  cpu ms: api  cond.  pg    rabbit  client  total  load
    before    265.8    31.4    82.8         1.26   2.34  1.19  0.29    0.23    5.35   3.0
    after     318.3    27.9    60.8         1.20   2.06  1.02  0.29    0.19    4.80   4.3

Statements per claim (new consumer, consumer generation null; counted with
``before_cursor_execute``, tests/functional/test_claim_statements.py, the
same on SQLite, PostgreSQL and MariaDB): one provider 6 -> 5, a compute plus
a sharing provider 7 -> 5; rewriting an existing consumer 9 -> 8.  The
provider lock also counts the written consumers that exist (a new one is not
looked up), the providers' generation swaps are one UPDATE, and what the
rewritten consumers hold is read with the inventory.  Left as they are: the inventory and usage
read cannot join the lock (on PostgreSQL a SELECT ... FOR UPDATE that waited
re-reads the locked row but not its subqueries: usage would be stale while
the generation is fresh); the consumer and allocation INSERTs have no
portable single statement.
"""

import argparse
import collections
import concurrent.futures
import http.client
import json
import multiprocessing
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid as uuidlib

AGGS = {name: str(uuidlib.uuid4()) for name in 'ABCS'}
AGG_CYCLE = [['A'], ['A', 'B'], ['A', 'B', 'C']]
TRAIT_CYCLE = [['HW_CPU_X86_AVX2'], ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE2'],
               ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE2', 'STORAGE_DISK_SSD']]
COMPUTE_INV = {'VCPU': {'total': 32, 'max_unit': 16},
               'MEMORY_MB': {'total': 8192, 'min_unit': 128},
               'DISK_GB': {'total': 8192, 'min_unit': 5}}
STORAGE_INV = {'DISK_GB': {'total': 8192 * 10, 'min_unit': 5}}
CLAIM = {'VCPU': 1, 'MEMORY_MB': 128, 'DISK_GB': 5}


class Response:
    """The status, body and JSON of one answer."""

    def __init__(self, status_code, content):
        self.status_code = status_code
        self.content = content

    @property
    def text(self):
        return self.content.decode('utf-8', 'replace')

    def json(self):
        return json.loads(self.content)


class Client:
    """One keep-alive HTTP connection per thread, JSON in and out, admin noauth2 token.

    Plain http.client: the load generator shares the box with the service,
    and requests' per-call overhead was CPU taken from it.
    """

    def __init__(self, url, token):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.prefix = parts.path.rstrip('/')
        self.headers = {'X-Auth-Token': token,
                        'OpenStack-API-Version': 'placement 1.38',
                        'Accept': 'application/json'}
        self.local = threading.local()

    def _connection(self):
        conn = getattr(self.local, 'conn', None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection(
                self.host, self.port, timeout=600)
        return conn

    def call(self, method, path, body=None):
        headers = dict(self.headers)
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, self.prefix + path, payload, headers)
                resp = conn.getresponse()
                return Response(resp.status, resp.read())
            except (http.client.RemoteDisconnected, ConnectionResetError,
                    BrokenPipeError):
                # the server closed an idle keep-alive connection: reconnect once
                conn.close()
                self.local.conn = None
                if attempt == 2:
                    raise

    def ok(self, method, path, body=None):
        resp = self.call(method, path, body)
        if resp.status_code >= 300:
            sys.exit('%s %s -> %d %s' % (method, path, resp.status_code, resp.text))
        return resp.json() if resp.content else None


def _provider(client, name, inventories, aggs, traits):
    rp = str(uuidlib.uuid4())
    client.ok('POST', '/resource_providers', {'name': name, 'uuid': rp})
    gen = client.ok('PUT', '/resource_providers/%s/inventories' % rp, {
        'resource_provider_generation': 0,
        'inventories': inventories})['resource_provider_generation']
    gen = client.ok('PUT', '/resource_providers/%s/aggregates' % rp, {
        'resource_provider_generation': gen,
        'aggregates': [AGGS[a] for a in aggs]})['resource_provider_generation']
    client.ok('PUT', '/resource_providers/%s/traits' % rp, {
        'resource_provider_generation': gen, 'traits': traits})
    return rp


def build_topology(client, computes, threads):
    """Create the placeload providers; return [(compute, storage or None)] targets."""
    storage = [_provider(client, 'bench-storage-%d' % i, STORAGE_INV, ['S'],
                         ['MISC_SHARES_VIA_AGGREGATE']) for i in range(3)]

    def compute(i):
        diskless = i % 10 == 9
        inv = dict(COMPUTE_INV)
        aggs = list(AGG_CYCLE[i % 3])
        if diskless:
            del inv['DISK_GB']
            aggs.append('S')
        rp = _provider(client, 'bench-compute-%d-%s' % (i, uuidlib.uuid4().hex[:6]),
                       inv, aggs, TRAIT_CYCLE[i % 3])
        return rp, diskless

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        made = list(pool.map(compute, range(computes)))
    return [(rp, random.choice(storage) if diskless else None) for rp, diskless in made]


def run_claims(client, targets, claims, workers):
    """Claim from ``workers`` threads; return (elapsed seconds, [(status, code, secs)])."""
    todo = list(range(claims))
    lock = threading.Lock()
    results = []
    start = threading.Barrier(workers + 1)

    def worker():
        start.wait()
        while True:
            with lock:
                if not todo:
                    return
                todo.pop()
            compute, storage = random.choice(targets)
            allocations = {compute: {'resources': dict(CLAIM)}}
            if storage:
                del allocations[compute]['resources']['DISK_GB']
                allocations[storage] = {'resources': {'DISK_GB': CLAIM['DISK_GB']}}
            body = {'allocations': allocations, 'project_id': 'bench',
                    'user_id': 'bench', 'consumer_generation': None,
                    'consumer_type': 'INSTANCE'}
            t0 = time.perf_counter()
            resp = client.call('PUT', '/allocations/%s' % uuidlib.uuid4(), body)
            elapsed = time.perf_counter() - t0
            code = None
            if resp.status_code != 204:
                code = resp.json()['errors'][0].get('code')
            with lock:
                results.append((resp.status_code, code, elapsed))

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, results


def _percentile(values, pct):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(pct / 100.0 * (len(values) - 1))))]


def summarise(label, elapsed, results, computes, workers):
    latencies = [r[2] for r in results]
    statuses = collections.Counter((r[0], r[1]) for r in results)
    granted = statuses.get((204, None), 0)
    return {
        'deployment': label, 'computes': computes, 'workers': workers,
        'claims': len(results), 'granted': granted,
        # only granted claims (204) count: a refused one placed nothing
        'claims_per_s': round(granted / elapsed, 1),
        'attempts_per_s': round(len(results) / elapsed, 1),
        'p50_ms': round(_percentile(latencies, 50) * 1000, 1),
        'p95_ms': round(_percentile(latencies, 95) * 1000, 1),
        'mean_ms': round(statistics.fmean(latencies) * 1000, 1) if latencies else 0,
        'conflicts_409_concurrent_update': sum(
            n for (s, c), n in statuses.items()
            if s == 409 and c == 'placement.concurrent_update'),
        'conflicts_409_other': sum(n for (s, c), n in statuses.items()
                                   if s == 409 and c != 'placement.concurrent_update'),
        'other_errors': sum(n for (s, c), n in statuses.items() if s not in (204, 409)),
    }


SERVICES = ('rabbitmq', 'postgresql', 'etcd')     # not berth's: apart from its CPU
COLUMNS = (('deployment', '%-22s'), ('conductors', '%5s'), ('claims', '%6s'),
           ('granted', '%7s'), ('claims_per_s', '%8s'), ('p50_ms', '%8s'), ('p95_ms', '%8s'),
           ('conflicts_409_concurrent_update', '%5s'), ('conflicts_409_other', '%5s'),
           ('other_errors', '%5s'), ('server_cpu_ms_per_claim', '%7s'),
           ('load_average_1m', '%6s'))
HEADERS = ('deployment', 'cond.', 'claims', 'granted', 'ok/s', 'p50 ms', 'p95 ms', '409cu',
           '409', 'err', 'cpu ms', 'load')


def print_table(summaries):
    print('  '.join((fmt % h) for (_, fmt), h in zip(COLUMNS, HEADERS)))
    for summary in summaries:
        print('  '.join(fmt % (summary.get(key, '-'),) for key, fmt in COLUMNS))
    print('(ok/s: granted claims (204) per second, refusals not counted; 409cu: '
          'client-visible placement.concurrent_update; cpu ms: CPU of the berth '
          'processes per claim, clients excluded)')


def _drive(url, token, targets, claims, workers, pipe):
    """The load generator, in a process of its own: warm up, then claim.

    Sends (elapsed, results, its own CPU seconds over warm-up and claims).
    """
    c0 = time.process_time()
    client = Client(url, token)
    run_claims(client, targets, min(50, claims), workers)
    elapsed, results = run_claims(client, targets, claims, workers)
    pipe.send((elapsed, results, time.process_time() - c0))
    pipe.close()


def reaped_cpu(pid):
    """CPU seconds of the children ``pid`` has waited for (cutime + cstime, /proc)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[13]) + int(fields[14])) / os.sysconf('SC_CLK_TCK')


def tree_cpu(pid):
    """CPU seconds of ``pid``, every live descendant and the children it reaped.

    The reaped ones count: PostgreSQL forks a backend per connection, and a
    backend that exits (a pool's overflow connection closed) took its CPU
    out of the live processes' sums.
    """
    from bench import cluster as bench_cluster
    from tests.chaos import deployment

    total, todo = reaped_cpu(pid), [pid]
    while todo:
        p = todo.pop()
        total += bench_cluster.cpu_seconds(p)
        todo.extend(deployment.children(p))
    return total


def measure(url, label, args, cpu_seconds, conductors):
    """Build the topology at ``url``, claim from a client process, summarise.

    ``cpu_seconds()`` returns the CPU used so far by the berth processes,
    as a number or as ``{role: seconds}`` (reported per role too).
    """
    client = Client(url, args.token)
    t0 = time.perf_counter()
    targets = build_topology(client, args.computes, args.workers)
    print('%s: %d computes + 3 storage providers in %.1fs'
          % (label, args.computes, time.perf_counter() - t0), file=sys.stderr)
    ctx = multiprocessing.get_context('spawn')
    receiver, sender = ctx.Pipe(duplex=False)
    driver = ctx.Process(target=_drive, args=(url, args.token, targets, args.claims,
                                              args.workers, sender))
    cpu0 = cpu_seconds()       # from here on: warm-up claims + measured claims
    driver.start()
    sender.close()
    elapsed, results, client_cpu = receiver.recv()
    cpu1 = cpu_seconds()
    driver.join()
    summary = summarise(label, elapsed, results, args.computes, args.workers)
    summary['conductors'] = conductors
    counted = len(results) + min(50, args.claims)
    if isinstance(cpu1, dict):
        for role in sorted(cpu1):
            summary['cpu_ms_per_claim_%s' % role] = round(
                (cpu1[role] - cpu0[role]) * 1000 / counted, 2)
        server = [r for r in cpu1 if r not in SERVICES]
        if len(server) < len(cpu1):      # the servers too: every process of the run
            summary['cpu_ms_per_claim_client'] = round(client_cpu * 1000 / counted, 2)
            summary['total_cpu_ms_per_claim'] = round(
                (sum(cpu1.values()) - sum(cpu0.values()) + client_cpu) * 1000 / counted, 2)
        cpu0, cpu1 = sum(cpu0[r] for r in server), sum(cpu1[r] for r in server)
    summary['server_cpu_ms_per_claim'] = round((cpu1 - cpu0) * 1000 / counted, 2)
    summary['load_average_1m'] = round(os.getloadavg()[0], 1)
    return summary


def run_embedded(args, conductors):
    """``berth serve`` (the README's start command) as a process of its own."""
    from bench import cluster as bench_cluster
    data_dir = tempfile.mkdtemp(prefix='berth-bench-')
    serve = bench_cluster.Serve(data_dir, conductors)
    try:
        serve.start()
        return measure(serve.url, 'embedded (SQLite)', args, serve.cpu_seconds,
                       conductors)
    finally:
        serve.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def run_rabbit(args):
    from bench import cluster as bench_cluster
    workdir = tempfile.mkdtemp(prefix='berth-bench-cluster-')
    servers = bench_cluster.Servers(workdir)
    summaries = []
    try:
        servers.start()
        for n in args.rabbit_conductors:
            stack = bench_cluster.Cluster(servers, os.path.join(workdir, 'c%d' % n), n,
                                          'bench_c%d' % n)
            try:
                stack.start()

                def every_process(stack=stack):
                    cpu = stack.cpu_seconds()
                    cpu.update({'api': tree_cpu(stack.procs['api'].pid),'rabbitmq': tree_cpu(servers.rabbitmq.proc.pid),
                                'postgresql': tree_cpu(servers.postgresql.proc.pid),
                                'etcd': tree_cpu(servers.etcd.proc.pid)})
                    return cpu
                summaries.append(measure(stack.url, 'rabbitmq+postgresql', args,
                                         every_process, n))
            finally:
                stack.stop()
    finally:
        servers.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return summaries


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', help='Placement API of a running berth '
                                      '(default: start an embedded one)')
    parser.add_argument('--label', default=None, help='deployment name in the report')
    parser.add_argument('--token', default='admin')
    parser.add_argument('--computes', type=int, default=100)
    parser.add_argument('--claims', type=int, default=1000)
    parser.add_argument('--workers', type=int, default=10)
    parser.add_argument('--conductors', type=int, default=None,
                        help='embedded conductors (embedded mode only)')
    parser.add_argument('--rabbit', action='store_true',
                        help='also start RabbitMQ + PostgreSQL + etcd, berth-api and '
                             'berth-conductor processes, and measure them')
    parser.add_argument('--rabbit-only', action='store_true',
                        help='only the RabbitMQ + PostgreSQL runs')
    parser.add_argument('--rabbit-conductors', type=int, nargs='+', default=[1, 3],
                        help='conductor processes per RabbitMQ run (default: 1 3)')
    args = parser.parse_args(argv)

    summaries = []
    if args.url:
        summaries.append(measure(args.url, args.label or args.url, args,
                                 lambda: 0.0, None))
    elif not args.rabbit_only:
        summaries.append(run_embedded(args, args.conductors or 1))
    if args.rabbit or args.rabbit_only:
        summaries += run_rabbit(args)
    print_table(summaries)
    print(json.dumps(summaries if len(summaries) > 1 else summaries[0], sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
