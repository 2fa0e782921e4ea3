"""berth beside a real Placement 16: the same topology, the same queries, round by round.

One topology, two servers on the same engine:

* bench/placeload.py writes the placeload topology (N computes, 3 sharing
  storage providers; perfload-like) into berth's database, and
  ``berth-manage export placement`` copies it into a db-synced Placement 16
  database (same uuids, generations and rows): the same fixture on both sides;
* berth is ``berth serve`` in a process of its own (bench/serve_process.py),
  Placement 16 is ``openstack-placement`` under gunicorn in the venv the tests
  build and cache (tests/placement_real.py: never a runtime dependency).

Then ``--rounds`` rounds; in each, both servers (the order alternating from
round to round) answer ``--per-round`` requests of each shape, every request a
query never asked before (distinct MEMORY_MB/DISK_GB amounts), the same
queries to both:

* ``no limit`` and ``limit=1000``: ``resources=VCPU:1,MEMORY_MB:m,DISK_GB:d``,
  what nova-scheduler sends (``[scheduler] max_placement_results``);
* ``perfload member_of``: the same without a limit, ``member_of`` the
  aggregate on every third compute: perfload's own query (~330 candidates);
* ``limit=50`` and ``required=SSD`` (``required=STORAGE_DISK_SSD``);
* ``1000 after claim``: ``limit=1000`` with one claim before each request
  (untimed, VCPU 1 on one compute): what the scheduler's next request sees;
* ``claims``: ``--clients`` threads each doing GET (``limit=1000``) then
  ``PUT /allocations/{new consumer}`` of a random candidate, ``--claims``
  claims per round: claims per second (204s only; 409s counted apart).

Prints, per shape, p50/p95 ms of both, the ratio Placement / berth, the
server CPU per request and per returned candidate, the load average, and a
final JSON line.

    python -m bench.versus_placement                       # SQLite, ~2-3 minutes
    python -m bench.versus_placement --db postgresql --rounds 4
"""

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
import uuid as uuidlib

from bench import candidates_servers as servers
from bench import cluster, placeload, serve_process
from tests import placement_real
from tests.chaos import deployment

VERSION = '1.39'
PROJECT = str(uuidlib.uuid4())
# perfload's own query (Placement's gate/perfload-server.sh): no limit,
# member_of one aggregate -- placeload's C, on every third compute: ~330
# candidates of 1,000 computes, the shape issue 52's side-by-side run quotes
PERFLOAD = 'perfload member_of'
SHAPES = [('no limit', ''), (PERFLOAD, '&member_of=' + placeload.AGGS['C']),
          ('limit=1000', '&limit=1000'), ('limit=50', '&limit=50'),
          ('required=SSD', '&required=STORAGE_DISK_SSD'),
          ('1000 after claim', '&limit=1000')]
AFTER_WRITE = '1000 after claim'


class Client:
    """One keep-alive connection to either server (noauth2 admin token on both)."""

    def __init__(self, url):
        host, port = url.split('//', 1)[1].split(':')
        self.conn = http.client.HTTPConnection(host, int(port), timeout=600)
        self.headers = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
                        'OpenStack-API-Version': 'placement ' + VERSION}

    def call(self, method, path, body=None):
        headers = dict(self.headers)
        if body is not None:
            body = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        try:
            self.conn.request(method, path, body, headers)
            resp = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionError):
            # an idle keep-alive connection the server closed (while the
            # other server ran its round): once more on a new one
            self.conn.close()
            self.conn.request(method, path, body, headers)
            resp = self.conn.getresponse()
        return resp.status, resp.read()


class Side:
    """One server: its URL, a client, the CPU of its serving processes, the figures."""

    def __init__(self, name, url, cpu):
        self.name, self.url, self.cpu = name, url, cpu
        self.client = Client(url)
        self.times: dict[str, list[float]] = {label: [] for label, _ in SHAPES}
        self.cpu_s = {label: 0.0 for label, _ in SHAPES}
        self.candidates = {label: 0 for label, _ in SHAPES}
        self.claims = {'ok': 0, 'conflict': 0, 'seconds': 0.0, 'latency': [], 'cpu_s': 0.0}
        self.writes = 0

    def write(self):
        """Untimed: one claim of VCPU 1 on one compute, as the claim after a GET."""
        if not hasattr(self, 'computes'):
            status, body = self.client.call('GET', '/allocation_candidates?resources=VCPU:1')
            self.computes = sorted({u for r in json.loads(body)['allocation_requests']
                                    for u in r['allocations']})
        self.writes += 1
        status, body = self.client.call('PUT', '/allocations/%s' % uuidlib.uuid4(), {
            'allocations': {self.computes[self.writes % len(self.computes)]: {
                'resources': {'VCPU': 1}}},
            'consumer_generation': None, 'project_id': PROJECT, 'user_id': PROJECT,
            'consumer_type': 'INSTANCE'})
        if status != 204:
            raise RuntimeError('%s write -> %s %s' % (self.name, status, body[:300]))

    def shape(self, label, queries):
        cpu_s = 0.0
        for query in queries:
            if label == AFTER_WRITE:
                self.write()
            cpu0 = self.cpu()
            t0 = time.perf_counter()
            status, body = self.client.call('GET', '/allocation_candidates?' + query)
            self.times[label].append((time.perf_counter() - t0) * 1000)
            if status != 200:
                raise RuntimeError('%s %s -> %s %s' % (self.name, query, status, body[:300]))
            cpu_s += self.cpu() - cpu0
            self.candidates[label] += len(json.loads(body)['allocation_requests'])
        self.cpu_s[label] += cpu_s


def _claim(client, query, project, rng):
    status, body = client.call('GET', '/allocation_candidates?' + query + '&limit=1000')
    if status != 200:
        raise RuntimeError('claim GET -> %s %s' % (status, body[:300]))
    requests_ = json.loads(body)['allocation_requests']
    if not requests_:
        return 'empty'
    chosen = rng.choice(requests_)
    status, body = client.call('PUT', '/allocations/%s' % uuidlib.uuid4(), {
        'allocations': chosen['allocations'], 'consumer_generation': None,
        'project_id': project, 'user_id': project, 'consumer_type': 'INSTANCE'})
    if status == 204:
        return 'ok'
    if status == 409:
        return 'conflict'
    raise RuntimeError('claim PUT -> %s %s' % (status, body[:300]))


def claims(side, queries, clients, project):
    """``len(queries)`` claims by ``clients`` threads; adds to side.claims."""
    todo, lock = list(queries), threading.Lock()
    errors = []

    def worker(seed):
        client, rng = Client(side.url), random.Random(seed)
        while True:
            with lock:
                if not todo:
                    return
                query = todo.pop()
            t0 = time.perf_counter()
            try:
                outcome = _claim(client, query, project, rng)
            except Exception as exc:     # reported after the threads end
                errors.append(exc)
                return
            with lock:
                side.claims['latency'].append((time.perf_counter() - t0) * 1000)
                if outcome in ('ok', 'conflict'):
                    side.claims[outcome] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    cpu0, t0 = side.cpu(), time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    side.claims['seconds'] += time.perf_counter() - t0
    side.claims['cpu_s'] += side.cpu() - cpu0
    if errors:
        raise errors[0]


def amounts(seed):
    """Distinct (MEMORY_MB, DISK_GB) pairs, every one fitting every compute."""
    rng = random.Random(seed)
    pairs = [(m, d) for m in range(128, 4096) for d in range(5, 60)]
    rng.shuffle(pairs)
    return iter(pairs)


def query(pair):
    return 'resources=VCPU:1,MEMORY_MB:%d,DISK_GB:%d' % pair


def pct(values, p):
    values = sorted(values)
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def start(args, work):
    """(berth Serve, Placement, stoppers): the topology loaded into both."""
    from cli import manage

    stoppers = []
    berth_url = placement_url = None
    if args.db == 'postgresql':
        pg = servers.Postgres()
        stoppers.append(pg.stop)
        berth_url = pg.new_database('berth_versus')
        placement_url = pg.new_database('placement_versus')
    state = os.path.join(work, 'berth')
    t0 = time.perf_counter()
    placeload.load_state(args.computes, berth_url, state=state)
    placement = placement_real.Placement(
        os.path.join(work, 'placement'), placement_real.require_venv(),
        placement_url or placement_real.sqlite_url(os.path.join(work, 'placement.sqlite')))
    placement.workers = args.placement_workers
    placement.db_sync()
    cfg = os.path.join(work, 'export.conf')
    with open(cfg, 'w') as f:
        f.write('[DEFAULT]\nstate_path = %s\n' % state)
        if berth_url:
            f.write('[database]\nconnection = %s\n' % berth_url)
    if manage.main(['--config-file', cfg, 'export', 'placement',
                    '--connection', placement.connection]) != 0:
        raise RuntimeError('berth-manage export placement failed')
    print('topology in both databases in %.1fs' % (time.perf_counter() - t0),
          file=sys.stderr)
    log = open(os.path.join(work, 'berth-serve.log'), 'wb')
    berth = serve_process.Serve(state, berth_url, log)
    stoppers.insert(0, berth.stop)
    placement.start(sync=False)
    stoppers.insert(0, placement.stop)
    return berth, placement, stoppers


def _placement_cpu(placement):
    pids = deployment.children(placement.proc.pid)
    return sum(serve_process.cpu_seconds(pid) for pid in pids) or sum(
        cluster.cpu_seconds(pid) for pid in pids)


def run(args, berth, placement):
    sides = [Side('berth', 'http://127.0.0.1:%d' % berth.port, berth.cpu),
             Side('placement', placement.url, lambda: _placement_cpu(placement))]
    pairs = amounts(args.seed)
    project = str(uuidlib.uuid4())
    for side in sides:                         # warm-up: first answers, untimed
        for _, shape in SHAPES:
            side.client.call('GET', '/allocation_candidates?' + query(next(pairs)) + shape)
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        batch = {label: [query(next(pairs)) + shape for _ in range(args.per_round)]
                 for label, shape in SHAPES}
        claim_queries = [query(next(pairs)) for _ in range(args.claims)]
        for side in (sides if r % 2 == 0 else sides[::-1]):
            for label, _ in SHAPES:
                side.shape(label, batch[label])
            if args.claims:
                claims(side, claim_queries, args.clients, project)
        loads.append(os.getloadavg()[0])
        print('round %d/%d done, load %.2f' % (r + 1, args.rounds, loads[-1]),
              file=sys.stderr, flush=True)
    return sides, loads


def summarise(sides):
    rows = {}
    berth, placement = sides
    for label, _ in SHAPES:
        row = {}
        for side in sides:
            n = len(side.times[label])
            row[side.name] = {
                'p50_ms': round(pct(side.times[label], 50), 2),
                'p95_ms': round(pct(side.times[label], 95), 2),
                'cpu_ms': round(side.cpu_s[label] * 1000 / max(n, 1), 2),
                'cpu_us_per_candidate': round(side.cpu_s[label] * 1e6
                                              / max(side.candidates[label], 1), 2),
                'candidates': side.candidates[label] // max(n, 1)}
        for key in ('p50_ms', 'p95_ms'):
            row['ratio_' + key[:3]] = round(row['placement'][key]
                                            / max(row['berth'][key], 1e-9), 1)
        rows[label] = row
    row = {}
    for side in sides:
        c = side.claims
        row[side.name] = {'per_s': round(c['ok'] / max(c['seconds'], 1e-9), 2),
                          'ok': c['ok'], 'conflicts': c['conflict'],
                          'p50_ms': round(pct(c['latency'], 50), 1),
                          'p95_ms': round(pct(c['latency'], 95), 1),
                          'cpu_ms': round(c['cpu_s'] * 1000 / max(c['ok'], 1), 2)}
    row['ratio'] = round(row['berth']['per_s'] / max(row['placement']['per_s'], 1e-9), 1)
    rows['claims'] = row
    return rows


def print_table(rows, loads):
    print('%-16s %17s %17s %11s %15s %15s %6s' % (
        'shape', 'Placement p50/p95', 'berth p50/p95', 'ratio p50', 'CPU ms P / b',
        'us/cand P / b', 'cands'))
    print('-' * 101)
    for label, _ in SHAPES:
        r = rows[label]
        p, b = r['placement'], r['berth']
        print('%-16s %8.2f /%7.2f %8.2f /%7.2f %10.1fx %7.2f /%6.2f %7.2f /%6.2f %6d' % (
            label, p['p50_ms'], p['p95_ms'], b['p50_ms'], b['p95_ms'], r['ratio_p50'],
            p['cpu_ms'], b['cpu_ms'], p['cpu_us_per_candidate'],
            b['cpu_us_per_candidate'], b['candidates']))
    c = rows['claims']
    print('%-16s %8.2f/s (p50 %.0f ms) %8.2f/s (p50 %.1f ms) %6.1fx   conflicts %d / %d' % (
        'claims', c['placement']['per_s'], c['placement']['p50_ms'], c['berth']['per_s'],
        c['berth']['p50_ms'], c['ratio'], c['placement']['conflicts'],
        c['berth']['conflicts']))
    print('load average (1 min) per round: %s' % ' '.join('%.2f' % x for x in loads))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--computes', type=int, default=1000)
    parser.add_argument('--db', choices=('sqlite', 'postgresql'), default='sqlite')
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--per-round', type=int, default=6,
                        help='requests of each shape per server per round')
    parser.add_argument('--claims', type=int, default=10, help='claims per server per round')
    parser.add_argument('--clients', type=int, default=10, help='concurrent claim clients')
    parser.add_argument('--placement-workers', type=int, default=None,
                        help='gunicorn workers (default: 1 on SQLite, where two writers '
                        'lock each other out with 500s, 2 on PostgreSQL)')
    parser.add_argument('--seed', type=int, default=None)
    args = parser.parse_args(argv)
    if args.placement_workers is None:
        args.placement_workers = 1 if args.db == 'sqlite' else 2
    work = tempfile.mkdtemp(prefix='berth-versus-placement-')
    berth, placement, stoppers = start(args, work)
    try:
        sides, loads = run(args, berth, placement)
    finally:
        for stop in stoppers:
            stop()
    rows = summarise(sides)
    print_table(rows, loads)
    print(json.dumps({'benchmark': 'versus_placement', 'db': args.db,
                      'computes': args.computes, 'rounds': args.rounds,
                      'per_round': args.per_round, 'claims_per_round': args.claims,
                      'clients': args.clients, 'placement_workers': args.placement_workers,
                      'loadavg': [round(x, 2) for x in loads], 'results': rows},
                     sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
