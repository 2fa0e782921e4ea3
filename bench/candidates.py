"""Allocation candidates benchmark on the placeload topology.

For each size N: a fresh SQLite file holding the placeload topology
(bench/placeload.py, bulk inserts), served by the Placement API either
embedded (berth's threaded server, in this process) or under gunicorn
(``--gunicorn W``: W sync worker processes, ``api.wsgi:application``).
``GET /allocation_candidates`` is timed over HTTP with persistent
connections: no limit, limit=50, required=STORAGE_DISK_SSD,
member_of=in:A,B, member_of=!C, then 10 concurrent clients.  Every query
runs twice: with the answer cache off (``[placement]
allocation_candidates_cache_size = 0``: every request searches) and on
(the default: nothing is written during the run, so repeated questions are
answered from the cache).  Uncached requests still use the provider index
(objects/candidates/index.py), which only re-reads what changed: the
``claim before`` rows commit a claim (objects.placement.allocation.replace, moving
one consumer's VCPU to the next compute node) before each timed request,
so every one of them refreshes the index (unlimited) or reads its pages
from SQL (limit=50).  At N=1,000 the unlimited answer must hold exactly
1,200 candidates.  ``cpu ms/req`` is the CPU time of the serving process(es)
per sequential uncached request (embedded: this process, client included):
unlike wall time it hardly grows when other work shares the machine.
Prints a table and a final JSON line with the load average.

    .venv/bin/python -m bench.candidates                      # N = 1000,10000,50000
    .venv/bin/python -m bench.candidates --sizes 1000 --repeat 100
    .venv/bin/python -m bench.candidates --sizes 1000 --gunicorn 4

With the provider index, 2026-11-22 12:35-12:59 UTC, ``--sizes 1000
--repeat 30 --seconds 3`` (uncached columns; the machine's 2 CPUs shared
with two other engineers; at 12:57 one of their processes held a CPU at
100%, which inflated every figure, cache hits included, ~1.5x):

    server       query                     p50 ms  p95 ms  cpu ms   (load)
    embedded     no limit                    4.70    8.64    4.90   4.6 -> 5.7
    embedded     limit=50 (SQL pages)        4.58    9.71    4.70
    embedded     required=SSD                3.94    7.88    3.66
    embedded     member_of=in:A,B            3.59    8.35    3.74
    embedded     member_of=!C                2.88    4.33    3.10
    embedded     10 clients: 234.7 req/s (no limit), 186.5 (limit=50)
    embedded     limit=50 (index)            2.47    5.89    2.35   4.0 -> 4.1
    embedded     10 clients: 165.7 req/s (no limit), 465.9 (limit=50)
    embedded     no limit                    8.42    9.50    7.97   3.2 -> 3.7 (busy CPU)
    embedded     limit=50                    3.28    3.49    3.20
    embedded     no limit, claim before     13.15   17.99   12.83
    embedded     limit=50, claim before      7.64   21.93    7.95
    embedded     10 clients: 124.4 req/s (no limit), 252.7 (limit=50)
    gunicorn x2  no limit                    8.78   15.36    6.33   5.5 -> 4.8
    gunicorn x2  limit=50                    3.36    5.27    3.00
    gunicorn x2  no limit, claim before     13.03   17.74   10.67
    gunicorn x2  limit=50, claim before      8.28   11.76    6.67
    gunicorn x2  10 clients: 131.3 req/s (no limit), 344.6 (limit=50)
    gunicorn x2  10 clients: 56.8 req/s (no limit), 196.5 (limit=50)  3.8 -> 4.1 (busy CPU)

(the 10-client figures swing 2-4x between runs with the other engineers'
work; a quiet 10-client run at 12:39, load 6.7, gave 242 req/s under
gunicorn x2.)  Before the index (12:10, load ~2): no limit 28.3 ms p50,
41.7 ms CPU; 10 clients 14.6 req/s.  ``--sizes 10000`` (embedded, 12:40,
load 4.8 -> 7.3): no limit 35.6 ms p50 / 39.8 ms CPU for 12,000 candidates
(was 600 ms), limit=50 3.7 / 3.2, required=SSD 22.5 ms CPU, in:A,B 23.5,
!C 22.5; no limit with a claim before 94 ms CPU (the scan of 10,000
provider rows; before reading rows straight from the driver); 10 clients
24.8 req/s (no limit), 161.1 (limit=50).

Before the provider index:

Recorded 2026-11-22 (2 CPUs shared with the other engineers' test suites:
load average 25-85 throughout, so every wall time is inflated many times;
``cpu ms`` is the steadier figure, itself inflated ~2x by the contention).
``hit`` columns: the same query answered by the cache.

``--sizes 1000 --repeat 100 --seconds 5`` (embedded; load 24.5 -> 29.9):

    N     query              p50 ms   p95 ms   cpu ms   p50 hit  p95 hit  cands
    1000  no limit           247.5    653.1    51.4     3.4      16.3     1200
    1000  limit=50            18.5    119.1     7.5     0.6       1.9       50
    1000  required=SSD       199.4    624.7    42.3     0.7       1.0      399
    1000  member_of=in:A,B   262.4    878.1    55.4     1.7      23.0      900
    1000  member_of=!C       256.1    762.5    58.3     7.7      46.4      801
    1000  10 clients req/s: uncached 7.6 (no limit), 31.6 (limit=50);
                            cached 245.7 (no limit), 494.1 (limit=50)

Again after the statements were built once and the cache became single-flight,
``--sizes 1000 --repeat 50 --seconds 3`` at load 50.6 -> 37.2: uncached p50/p95/cpu
886/3779/59.2 ms (no limit), 71/136/7.6 (limit=50), 227/777/46.9 (SSD),
324/1034/60.7 (in:A,B), 471/1524/67.7 (!C); hits 0.7-21 ms; 10 clients
uncached 2.7 / 22.9 req/s, cached 373.6 (no limit) / 495.5 (limit=50).

``--sizes 1000 --repeat 40 --seconds 3 --gunicorn 4`` (load 43 -> 55-62; a sync
worker opens a connection per request; ``cpu ms`` is the workers' alone):

    1000  no limit           446.8    718.6    41.0    31.1     103.1     1200
    1000  limit=50            83.5    171.7     8.5    26.0      87.8       50
    1000  required=SSD       352.3    517.9    34.8    31.3     157.2      399
    1000  member_of=in:A,B   503.1    973.4    48.3    33.5     107.4      900
    1000  member_of=!C       521.2    859.9    46.0    28.4      73.8      801
    1000  10 clients req/s: uncached 1.9 (no limit), 12.3 (limit=50);
                            cached 42.1 (no limit), 49.2 (limit=50)

``--sizes 10000,50000 --repeat 100 --seconds 5`` (embedded; load 35-85):

    10000 no limit          6661.9  10115.0   599.6    59.2     160.3    12000
    10000 limit=50           170.3    254.5    12.4     0.7       1.1       50
    10000 required=SSD      7872.0  12212.6   454.8    47.3     108.0     3999
    10000 member_of=in:A,B  8259.8  11948.9   639.3    80.5     201.9     9000
    10000 member_of=!C      7519.5   9557.6   628.4    42.3     103.0     8001
    10000 10 clients req/s: uncached 0.2 (no limit), 51.0 (limit=50);
                            cached 29.1 (no limit), 354.8 (limit=50)
    50000 no limit         61531.9  62807.6  3110.8   644.6    1720.6    60000
    50000 limit=50           313.7    344.8    16.3    32.7      36.9       50
    50000 required=SSD     38980.5  49798.9  2155.5   107.8     493.7    19998
    50000 member_of=in:A,B 43709.4  75314.4  3151.7   235.3     777.2    45000
    50000 member_of=!C     82791.0  97996.5  3224.6    72.0     193.1    40002
    50000 10 clients req/s: uncached not run (no limit), 1.6 (limit=50);
                            cached 0.0 (no limit: the five ~20 MB answers exceed
                            the cache's 64 MB, the first one was evicted and all
                            ten clients computed it at once), 389.0 (limit=50)

CPU per uncached whole answer: 51 ms for 1,200 candidates, 600 ms for 12,000,
3.1 s for 60,000 (43, 50, 52 us per candidate, the larger runs under more
load): linear in the size of the answer.  limit=50 stays at 7-16 ms of CPU
from 1,000 to 50,000 providers.

The first version (before orjson, the lean search and the cache), recorded
earlier the same day:

Recorded 2026-11-22 with ``--sizes 1000,10000,50000 --repeat 30 --seconds 3``
on the shared 2-CPU VM while other engineers' test suites ran (load average
40-60, i.e. this process got a small slice of a CPU): wall times are
inflated by an order of magnitude and say little; ``cpu ms/req`` (also
inflated by the contention, ~2x) shows the scaling.  Exactly 1,200
candidates at N=1,000.

    N      query              p50 ms    p95 ms   cpu ms/req  candidates
    1000   no limit           1922.6    5588.1      88.4        1200
    1000   limit=50            570.0    1447.9      17.4          50
    1000   required=SSD       2096.1    6630.8      76.1         399
    1000   member_of=in:A,B    541.0    2882.6      89.9         900
    1000   member_of=!C        754.4    2636.4      89.9         801
    1000   10 clients: 2.4 req/s (no limit), 9.8 req/s (limit=50)
    10000  no limit           3887.0    5033.7     935.9       12000
    10000  limit=50             44.6     288.3      11.8          50
    10000  required=SSD       3371.1    8058.6     649.3        3999
    10000  member_of=in:A,B   3775.7    9393.6    1015.2        9000
    10000  member_of=!C       6846.8   10752.8    1008.6        8001
    10000  10 clients: 0.1 req/s (no limit), 10.6 req/s (limit=50)

    50000  no limit          95031.4  116349.9    4878.7       60000
    50000  limit=50             29.8      35.0      21.2          50
    50000  required=SSD      50919.7   59014.0    3533.9       19998
    50000  member_of=in:A,B  41676.5   65504.2    5187.0       45000
    50000  member_of=!C       7996.5   10180.4    3870.0       40002
    50000  10 clients: 29.3 req/s (limit=50); the whole answer not run

Re-run at N=1,000 once the machine was quieter (load average ~4):
no limit p50 41.9 / p95 124.0 ms; limit=50 p50 7.7 / p95 13.1 ms;
required=SSD 45.3 / 211.6; member_of=in:A,B 153.6 / 1759.4; member_of=!C
72.7 / 198.7; 10 clients 9.6 req/s (no limit), 98.1 req/s (limit=50).

The whole answer grows linearly with its size (x10 candidates, x10.6 CPU);
limit=50 costs about the same at N=1,000, 10,000 and 50,000.  In-process thread CPU of
one request through the WSGI app (no HTTP) at N=1,000, same load: no limit
42 ms, limit=50 10 ms (min of 15).
"""

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid as uuidlib

from bench import placeload

VERSION = '1.39'
BASE = 'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10'
QUERIES = [
    ('no limit', BASE),
    ('limit=50', BASE + '&limit=50'),
    ('required=SSD', BASE + '&required=STORAGE_DISK_SSD'),
    ('member_of=in:A,B', BASE + '&member_of=in:%s,%s' % (placeload.AGGS['A'],
                                                          placeload.AGGS['B'])),
    ('member_of=!C', BASE + '&member_of=!%s' % placeload.AGGS['C']),
]
# timed with a claim committed before each request: the provider index refreshes
AFTER_CLAIMS = [('no limit, claim before', BASE),
                ('limit=50, claim before', BASE + '&limit=50')]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = """[DEFAULT]
state_path = {state}
[api]
auth_strategy = noauth2
[database]
connection = sqlite:///{state}/berth.sqlite
sqlite_synchronous = false
[placement]
allocation_candidates_cache_size = {cache}
"""


def _conf(state):

    from common.conf import builder

    return builder.build(config_files=[], overrides={
        'state_path': state, 'api.auth_strategy': 'noauth2',
        'database.sqlite_synchronous': False})


def _load(n):
    """A state directory whose SQLite file holds the topology for n."""
    from common import context as berth_context
    from objects import bootstrap, database

    state = tempfile.mkdtemp(prefix='berth-bench-candidates-')
    db = database.open_database(_conf(state))
    database.upgrade(db)
    bootstrap.sync_standards(berth_context.admin_context(db))
    t0 = time.perf_counter()
    placeload.load(db.engine, n)
    print('N=%d loaded in %.1fs' % (n, time.perf_counter() - t0), file=sys.stderr)
    db.dispose()
    return state


class Embedded:
    """The Placement API in this process (berth's threaded server)."""

    def __init__(self, state):
        from api import server as http_server
        from api.placement import app as placement_app
        from objects import database

        self.conf = _conf(state)
        self.db = database.open_database(self.conf)
        app = placement_app.loadapp(self.conf, self.db, conductor=None)
        self.server = http_server.HttpServer(app, '127.0.0.1', 0, threads=16,
                                             name='bench')
        self.host, self.port = self.server.start()

    def set_cache(self, size):
        self.conf.set_override('allocation_candidates_cache_size', size,
                               group='placement')

    def cpu(self):
        return time.process_time()

    def stop(self):
        self.server.stop()
        self.db.dispose()


class Gunicorn:
    """The Placement API under gunicorn: ``workers`` sync worker processes."""

    def __init__(self, state, workers):
        self.state, self.workers, self.proc = state, workers, None
        self.host = '127.0.0.1'

    def set_cache(self, size):
        self.stop()
        path = os.path.join(self.state, 'berth-%d.conf' % size)
        with open(path, 'w') as f:
            f.write(CONFIG.format(state=self.state, cache=size))
        with socket.socket() as sock:
            sock.bind((self.host, 0))
            self.port = sock.getsockname()[1]
        env = dict(os.environ, BERTH_CONFIG_FILE=path)
        self.proc = subprocess.Popen(
            [os.path.join(os.path.dirname(sys.executable), 'gunicorn'),
             '--workers', str(self.workers), '--bind', '%s:%d' % (self.host, self.port),
             '--log-level', 'warning', 'api.wsgi:application'],
            cwd=ROOT, env=env, start_new_session=True)
        for _ in range(300):
            try:
                Client(self.host, self.port).get(BASE + '&limit=1')
                break
            except OSError:
                time.sleep(0.1)
        for _ in range(4 * self.workers):     # every worker builds its app
            Client(self.host, self.port).get(BASE + '&limit=1')

    def cpu(self):
        """CPU seconds used so far by the worker processes."""
        total = 0
        tick = os.sysconf('SC_CLK_TCK')
        try:
            with open('/proc/%d/task/%d/children' % (self.proc.pid, self.proc.pid)) as f:
                pids = [int(p) for p in f.read().split()]
        except OSError:
            return 0.0
        for pid in pids:
            try:
                with open('/proc/%d/stat' % pid) as f:
                    fields = f.read().rsplit(')', 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
            except OSError:
                pass
        return total

    def stop(self):
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
            self.proc = None


class Client:
    """One persistent HTTP connection."""

    def __init__(self, host, port):
        self.conn = http.client.HTTPConnection(host, port, timeout=600)
        self.headers = {'X-Auth-Token': 'admin',
                        'OpenStack-API-Version': 'placement %s' % VERSION}

    def get(self, query):
        self.conn.request('GET', '/allocation_candidates?' + query, headers=self.headers)
        resp = self.conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise RuntimeError('%s -> %s %s' % (query, resp.status, body[:300]))
        return body


def _pct(values, pct):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(pct / 100.0 * (len(values) - 1))))]


def time_query(server, query, repeat, warmup):
    client = Client(server.host, server.port)
    for _ in range(warmup):
        body = client.get(query)
    times = []
    cpu = server.cpu()
    for _ in range(repeat):
        t = time.perf_counter()
        client.get(query)
        times.append((time.perf_counter() - t) * 1000)
    cpu = (server.cpu() - cpu) * 1000 / repeat
    count = len(json.loads(body)['allocation_requests'])
    return {'p50_ms': round(statistics.median(times), 2),
            'p95_ms': round(_pct(times, 95), 2), 'cpu_ms': round(cpu, 2),
            'candidates': count}


class Claimer:
    """Moves one consumer's claim (VCPU:1) to the next compute node on each call.

    Written through objects.placement.allocation.replace, as the API and conductors do:
    the new provider's generation is bumped, the old one's is not.
    """

    def __init__(self, state):
        import sqlalchemy as sa

        from common import context as berth_context
        from db import models
        from objects import database

        self.db = database.open_database(_conf(state))
        self.ctx = berth_context.admin_context(self.db)
        rp, inv, rc = (models.ResourceProvider.__table__, models.Inventory.__table__,
                       models.ResourceClass.__table__)
        with self.db.engine.connect() as conn:
            self.uuids = conn.execute(
                sa.select(rp.c.uuid).join(inv, inv.c.resource_provider_id == rp.c.id)
                .join(rc, rc.c.id == inv.c.resource_class_id)
                .where(rc.c.name == 'VCPU').order_by(rp.c.id)).scalars().all()
        self.consumer, self.project, self.step = (str(uuidlib.uuid4()),
                                                  str(uuidlib.uuid4()), 0)

    def claim(self):
        from objects.placement import allocation as alloc_obj

        self.step += 1
        uuid = self.uuids[self.step % len(self.uuids)]
        alloc_obj.replace(self.ctx, [{
            'uuid': self.consumer, 'project_id': self.project, 'user_id': self.project,
            'consumer_type': None, 'check_generation': False, 'generation': None,
            'allocations': {uuid: {'VCPU': 1}}}])

    def stop(self):
        self.db.dispose()


def time_after_claims(server, claimer, query, repeat):
    """time_query with a claim committed before each request (not timed)."""
    client = Client(server.host, server.port)
    body = client.get(query)
    times, cpu = [], 0.0
    for _ in range(repeat):
        claimer.claim()
        c0, t = server.cpu(), time.perf_counter()
        client.get(query)
        times.append((time.perf_counter() - t) * 1000)
        cpu += server.cpu() - c0
    return {'p50_ms': round(statistics.median(times), 2),
            'p95_ms': round(_pct(times, 95), 2), 'cpu_ms': round(cpu * 1000 / repeat, 2),
            'candidates': len(json.loads(body)['allocation_requests'])}


def concurrent(server, query, clients, seconds):
    """Requests per second with ``clients`` threads each looping for ``seconds``."""
    done = []
    stop = time.perf_counter() + seconds

    def loop():
        c, n = Client(server.host, server.port), 0
        while time.perf_counter() < stop:
            c.get(query)
            n += 1
        done.append(n)

    threads = [threading.Thread(target=loop) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return round(sum(done) / (time.perf_counter() - t0), 1)


def _phase(server, n, repeat, seconds, cached):
    row = {}
    big = n > 10000
    for label, query in QUERIES:
        reps = repeat if n <= 1000 else max(3, repeat // (n // 1000))
        if cached and label != 'limit=50':
            reps = repeat      # served from memory: as cheap at any N
        row[label] = time_query(server, query, reps, warmup=1 if big else 3)
    # 50,000 uncached whole answers take seconds each: 10 clients of them say nothing new
    row['10 clients req/s (no limit)'] = (
        concurrent(server, BASE, 10, seconds) if cached or not big else None)
    row['10 clients req/s (limit=50)'] = concurrent(server, BASE + '&limit=50', 10,
                                                     seconds)
    return row


def run_size(n, repeat, seconds, workers):
    state = _load(n)
    server = Gunicorn(state, workers) if workers else Embedded(state)
    try:
        row = {'N': n, 'server': 'gunicorn x%d' % workers if workers else 'embedded'}
        server.set_cache(0)
        row['uncached'] = _phase(server, n, repeat, seconds, cached=False)
        claimer = Claimer(state)
        try:
            reps = repeat if n <= 1000 else max(3, repeat // (n // 1000))
            for label, query in AFTER_CLAIMS:
                row['uncached'][label] = time_after_claims(server, claimer, query, reps)
        finally:
            claimer.stop()
        server.set_cache(32)
        row['cached'] = _phase(server, n, repeat, seconds, cached=True)
        if n == 1000:
            for phase in ('uncached', 'cached'):
                got = row[phase]['no limit']['candidates']
                if got != 1200:
                    raise RuntimeError('expected 1200 candidates, got %d' % got)
        row['loadavg'] = os.getloadavg()
        return row
    finally:
        server.stop()


def print_table(rows):
    print('%-7s %-12s %-22s %9s %9s %9s %9s %9s %7s' % (
        'N', 'server', 'query', 'p50 ms', 'p95 ms', 'cpu ms', 'p50 hit', 'p95 hit',
        'cands'))
    print('-' * 102)
    for row in rows:
        un, ca = row['uncached'], row['cached']
        for label, _ in QUERIES:
            print('%-7d %-12s %-22s %9.2f %9.2f %9.2f %9.2f %9.2f %7d' % (
                row['N'], row['server'], label, un[label]['p50_ms'], un[label]['p95_ms'],
                un[label]['cpu_ms'], ca[label]['p50_ms'], ca[label]['p95_ms'],
                un[label]['candidates']))
        for label, _ in AFTER_CLAIMS:
            print('%-7d %-12s %-22s %9.2f %9.2f %9.2f %9s %9s %7d' % (
                row['N'], row['server'], label, un[label]['p50_ms'], un[label]['p95_ms'],
                un[label]['cpu_ms'], '-', '-', un[label]['candidates']))
        for key in ('10 clients req/s (no limit)', '10 clients req/s (limit=50)'):
            print('%-7d %-12s %-30s uncached %8s   cached %8s' % (
                row['N'], row['server'], key, un[key], ca[key]))
        print('%-7d load average after this size: %s' % (row['N'], row['loadavg']))
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sizes', default='1000,10000,50000')
    parser.add_argument('--repeat', type=int, default=100,
                        help='timed requests per query at N=1000 (fewer when larger)')
    parser.add_argument('--seconds', type=float, default=5.0,
                        help='duration of each concurrent run')
    parser.add_argument('--gunicorn', type=int, default=0, metavar='WORKERS',
                        help='serve with gunicorn and this many workers (default: embedded)')
    args = parser.parse_args(argv)
    rows = []
    for n in args.sizes.split(','):
        rows.append(run_size(int(n), args.repeat, args.seconds, args.gunicorn))
        print(json.dumps(rows[-1], sort_keys=True), file=sys.stderr, flush=True)
    print_table(rows)
    print(json.dumps({'benchmark': 'allocation_candidates', 'version': VERSION,
                      'cpus': os.cpu_count(), 'loadavg': os.getloadavg(),
                      'query': urllib.parse.unquote(BASE), 'results': rows},
                     sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
