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
    .venv/bin/python -W ignore -m bench.claims --matrix 1x1,2x3 [--repeat 2]
                                                          # API processes x conductors
                                                          # (bench/claims_matrix.py)

``--rabbit`` starts the Debian servers the integration tier uses
(bench/cluster.py; PostgreSQL without fsync), a berth-api and N
berth-conductor processes per run, each run on a database of its own.

The recorded runs (before/after of each change, with load averages) are in
bench/results/claims-history.md; the runs bench.report drew are in
bench/results/claims_*.json.
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
        'p99_ms': round(_percentile(latencies, 99) * 1000, 1),
        'load': '%d clients, closed loop, PUT-only' % workers,
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


def measure(url, label, args, cpu_seconds, conductors, probe=None):
    """Build the topology at ``url``, claim from a client process, summarise.

    ``cpu_seconds()`` returns the CPU used so far by the berth processes,
    as a number or as ``{role: seconds}`` (reported per role too).
    ``probe`` (bench/claims_matrix.py's Probe): counters read outside the CPU
    window, before and after, and summarised per claim.
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
    seen0 = probe.snapshot() if probe else None
    cpu0 = cpu_seconds()       # from here on: warm-up claims + measured claims
    driver.start()
    sender.close()
    elapsed, results, client_cpu = receiver.recv()
    cpu1 = cpu_seconds()
    driver.join()
    summary = summarise(label, elapsed, results, args.computes, args.workers)
    summary['conductors'] = conductors
    counted = len(results) + min(50, args.claims)
    if probe:
        summary.update(probe.summarise(seen0, probe.snapshot(), counted))
        summary['cpu_ms_per_claim'] = cpu_by_kind(cpu0, cpu1, client_cpu, counted)
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


def cpu_by_kind(cpu0, cpu1, client_cpu, counted):
    """CPU ms per claim by process kind, ``servers`` (all but clients) summed."""
    kinds = {('coordination' if role == 'etcd' else role):
             round((cpu1[role] - cpu0[role]) * 1000 / counted, 2) for role in cpu1}
    kinds['servers'] = round(sum(kinds.values()), 2)
    kinds['clients'] = round(client_cpu * 1000 / counted, 2)
    return kinds


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
    parser.add_argument('--matrix', default=None,
                        help='API processes x conductors on RabbitMQ + PostgreSQL + '
                             'etcd, e.g. 1x1,2x3: one run per cell, with CPU per '
                             'claim by process kind, claims per RPC call and RPC '
                             'messages per claim (bench/claims_matrix.py)')
    from bench import matrix
    matrix.add_cell_options(parser, 'claim_routing = tree')
    args = parser.parse_args(argv)

    if args.matrix:
        from bench import claims_matrix
        return claims_matrix.main(args, measure)
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
