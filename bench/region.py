"""A region: loading, restart, memory and distinct candidate queries at N computes.

Unlike bench/candidates.py (the server in the benchmark's process), the
server here is ``berth serve`` in its own process, so its RSS, its CPU and
its start are the deployment's own:

1. the placeload topology (bench/placeload.py, ``--nested`` by default: 20 %
   of computes are trees of a root, two NUMA children and a NIC child) is
   written into a fresh SQLite file or PostgreSQL database (timed);
2. ``berth serve`` starts on it; *listening* is the first HTTP answer,
   *limited ready* the first ``limit=50`` candidates answer, *ready* the
   first full answer (the provider index loaded);
3. every shape of bench/candidates.py plus a granular one (a NUMA group, a
   NIC group and a resourceless root group with ``same_subtree``), each
   ``--requests`` (limited) or ``--full-requests`` times and then on until
   the shape has run ``--shape-seconds`` (at most ``--most-requests``),
   every query distinct; p50/p95/p99, server CPU per request and µs per
   returned candidate (p50 / candidates);
4. RSS (VmRSS, and the peak VmHWM) after the first load, after the
   limited queries and after all of them;
5. the server is stopped and started again on the same database: the
   restart's ready times.

    .venv/bin/python -m bench.region --n 100000 --db sqlite
    .venv/bin/python -m bench.region --n 10000 --db postgresql --requests 20

Last line: JSON (bench/report.py draws it: ``python -m bench.report --only
region --region`` runs N = 1k, 10k, 100k on both databases).

Recorded 2026-11-24, N=100,000 computes (160,003 providers, 240,000
no-limit candidates), SQLite; the first run at 13:49 (load average 8-15),
the last at 14:36 after the fixes, in the afternoon's quietest window (load
average 1.8-2.4); p50 / p95 ms, then the server's CPU ms per request:

    shape (distinct)        first run (13:49)         after the fixes (14:36)
    limit=50                26.3 / 34.3   cpu 17.0    1.37 / 2.84  cpu 2.0
    granular limit=50       29.5 / 57.7   cpu 17.6    2.56 / 7.54  cpu 3.6
    no limit                28175 / 38827 cpu 5990    4657 / 5014  cpu 4504 (19 us/cand)
    required=SSD            connection closed         770 / 916    cpu 738  (19 us/cand)
    granular same_subtree   -                         1882 / 2102  cpu 1522 (38 us/cand)
    RSS after the queries   4395 MB (run of 13:56)    1134 MB (index alone: 566 MB)
    restart: ready          12.3 s (run of 13:56)     9.9 s (limit=50 answered at 1.2 s)

PostgreSQL at 14:38: limit=50 1.93 / 4.49 ms, no limit 4441 / 4913 ms,
RSS 1137 MB, ready 11.1 s after a restart.

Then (18:09-18:23, SQLite, all shapes; server CPU ms per no-limit
request and per candidate, which the other benches on the box disturb
least; logs region-{1k,10k,100k}-sqlite-*.log):

    step                       no-limit cpu     RSS after / HWM   load
    before (14:36)             4504 (19 us)     1134 / 1803 MB
    one malloc arena           4752 (20 us)      628 / 1294 MB    0.1-1
    + collector paused         2526 (10.5 us)    637 / 1294 MB    0.8
    + body in 64 KiB pieces    1992 (8.3 us)     669 / 1295 MB    10
    final, at load 10: 1k 9.2 us, 10k 8.3 us, 100k 8.7 us per candidate;
    PostgreSQL 10k 8.0 us.

The fixes: a limited search anchors sharing providers on the trees it
visits only (objects/candidates/sharing; it did all 10,000 diskless
computes' per request), and two malloc arenas (common/heap.py).  Per-run
logs are in bench/results/region-100k-*.log, the runs in region.json.

The peak (VmHWM) was the first unlimited answer's, not the index load's
(20:54-21:00, 100,000 computes, before = main 71dd473 in the same window;
logs region-100k-{sqlite,postgresql}-load-peak{,-before}.log):

    db           VmHWM ready / after   RSS ready / after   ready s   no-limit cpu
    sqlite before  1220 / 1295 MB        546 / 652 MB       5.79     8.2 us/cand
    sqlite after    648 /  659 MB        529 / 554 MB       5.27     6.6 us/cand
    pg before      1217 / 1292 MB        564 / 614 MB      17.87     8.7 us/cand
    pg after        652 /  661 MB        548 / 554 MB      17.41     6.5 us/cand

The trait/class index (objects/candidates/features: unlimited searches
visit only the trees that hold every requested class and required trait)
and cheaper granular combinations, 2026-11-24 23:56-00:01 (``bench.report
--only region --region``, load average 2.3-4.1, so wall times are
pessimistic: server CPU us per returned candidate, before = the runs of
20:54-21:00 and earlier in region.json at f205a7a):

    shape                   db          1k            10k           100k
    required=SSD            sqlite   30.1 -> 12.5  15.8 -> 9.3   14.1 -> 8.4
    required=SSD            pg       25.1 -> 15.0  15.5 -> 8.0   14.6 -> 8.5
    granular same_subtree   sqlite   35.0 -> 12.5  28.5 -> 16.0  26.4 -> 16.6
    granular same_subtree   pg       27.5 -> 22.5  29.8 -> 15.8  26.3 -> 15.0
    no limit (not narrowed) sqlite    8.3 ->  5.4   6.4 -> 5.6    6.6 -> 5.9

(1k: ~400 candidates, CPU counted in 10 ms ticks; SQLite's wall p50 there
is 9.3 us per candidate for required=SSD.)  100k RSS after every shape
572 / 582 MB (was 554), VmHWM 664 / 661 MB.  Limited shapes, in-process
search CPU p50 at 10,000 (bench.limited_tail --mode in-process, 300
queries, logs limited-tail-10k-trait-index-*.log): limit=50 0.34 ->
0.34 ms, granular limit=50 1.07 -> 0.76, required=SSD limit=50 (new
shape) 0.65 -> 0.65 ms: no slower (the region runs its limited shapes
before any unlimited one asks for SSD or NET_BW, so no entry is built
yet).  Once an unlimited query has built them (in-process, 200 queries,
search CPU p50): required=SSD limit=50 visits 42 trees instead of 126,
0.67 -> 0.42 ms; granular limit=50 25 instead of 125, 0.76 -> 0.59 ms.
granular same_subtree stays above 10 us: every tree it visits answers
(2 candidates per nested tree), the cost is the granular combination
(~10 us of search per candidate) and its encoding (~5 us).

Granular candidates from tree skeletons (objects/candidates/granular: per
request shape and tree, the combinations same_subtree / group_policy admit
and their JSON in pieces, kept in the index; a query only checks capacity),
``bench.report --only region --region`` twice on 2026-11-25: run 1 at
03:29-03:33 (load average 1.5-3.2), run 2 at 03:41-03:45 on 3967631 (the
lone encoding inlined again; later commits only move code) (load 1.5-2.5,
more runqueue waits; its results are in region.json).  Server CPU is now the process's CPU-time
clock (ns; it was /proc ticks of 10 ms, hence the coarse 1k figures
before).  Server CPU us per candidate, before -> run 1 / run 2, in
brackets without each shape's first request ("warm", below).  Before:
10k/100k the runs of 02:07 at 363bdcb (ticks, load 0.2-0.9); 1k re-measured
with this clock on 363bdcb at 03:35-03:37 (load 1.2-2.3):

    granular same_subtree  1k                    10k                 100k
    sqlite   17.0 -> 9.3 / 10.2 (7.7 / 8.7)   15.0 -> 9.6 / 8.7 (8.1 / 7.5)  15.5 -> 8.5 / 8.4 (7.0 / 6.9)
    pg       16.1 -> 12.3 / 12.4 (11.2 / 10.9) 16.3 -> 7.8 / 8.4 (6.6 / 7.2) 14.6 -> 8.2 / 8.8 (6.7 / 7.3)

In-process at 10,000 computes (search + summaries + encoding, thread CPU,
bench region's queries): 15.8 -> 6.3 us per candidate, the same answer
bytes.  The other shapes are unchanged by this (no limit 5.7-6.5,
member_of 6.3-9.0, required=SSD 8.5-12.8 us; at 1k the per-request cost
weighs: required=SSD at 1k, 399 candidates, 12.7 -> 9.0 / 12.8 on SQLite,
11.3 -> 9.6 / 11.2 on PostgreSQL; 9.0-10.1 at 10k under this load, 8.3 /
7.0 at 02:07).  RSS after every shape at 100k 585-590 MB (was 564 / 581).

What it costs: the first query of a granular shape builds the skeletons of
every tree it visits (about what each such query cost before, plus the
pieces' JSON): 75-92 ms CPU at 10k and 840-894 ms at 100k against a p50 of
28-48 / 276-314 ms, so the shape's p95/p50 over 10 requests (their p95 is
the max) is 1.7-3.2 with it, 1.03-1.15 without it at 10k and 100k.  Each
later query of that shape (any amounts) reuses them; a write replaces the
Provider objects of the trees it touches, whose skeletons are rebuilt.  At
1k on PostgreSQL the shape stays above 10 us (10.9-11.2 warm): its 400
candidates carry ~1.5 ms of per-request CPU (what a limit=50 query costs
there in all).

``required=SSD limit=50`` on PostgreSQL at 100k: in run 1 again one request
of 50 at 53.6 ms, 52.7 ms of it the server's own CPU (0.45 ms runnable but
waiting), so neither the database nor the machine; p95/p50 1.46 there
(2.18 before: the p95 moves with the other requests' spread); in run 2 no
such request (max CPU 2.85 ms) but p95/p50 2.46 from runqueue waits.
Most likely the full cyclic collection bench/limited_tail found at 100k
(one request in ~500, 35-40 ms); not confirmed.

The PostgreSQL per-request cost (issue 20): a request read the change
token, began a REPEATABLE READ transaction, looked up class and trait names
(two statements), read the token again and rolled back even with the index
current: 4 statements plus BEGIN/ROLLBACK, ~0.9 ms in-process of which the
search from the index was ~0.12 ms.  Now names read under a token are kept
for it (objects/candidates/plan.NameCache) and a request the token proves
current is answered from memory: one statement (the token), ~0.24 ms
in-process.  ``--n 1000 --db postgresql`` alternating on 2026-11-25
04:07-04:09, cd78996 (before) and after, server CPU ms per request
(limit=50 shapes) and us per candidate (whole shapes), load average
0.2-1.9:

    shape                   before (run 1 / 2)   after (run 1 / 2)
    limit=50                1.85 / 2.19 ms       1.15 / 1.11 ms
    granular limit=50       1.85 / 2.53 ms       1.08 / 1.16 ms
    required=SSD limit=50   2.11 / 2.68 ms       1.63 / 1.59 ms
    required=SSD            14.2 / 13.6 us       11.7 / 10.0 us
    granular same_subtree   12.5 / 13.7 us       10.0 / 11.1 us

(an earlier pair at 04:04-04:06, load 0.3-0.9: limit=50 1.72 -> 1.07 ms,
required=SSD 8.8 -> 10.9 us, same_subtree 10.3 -> 8.1 us: the whole shapes'
10 requests vary by +-2 us per candidate between runs on this machine).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from bench import candidates, host_speed, placeload, region_stop, serve_process
from bench import candidates_servers as servers

GRANULAR = ('granular same_subtree',
            None)      # its own resources: see query()
# a required trait a third of the trees have, limited (features.filter)
REQUIRED_LIMITED = ('required=SSD limit=50', '&required=STORAGE_DISK_SSD&limit=50')
SHAPES = candidates.SHAPES + [GRANULAR, REQUIRED_LIMITED]
LIMITED = ('limit=50', 'granular limit=50', 'required=SSD limit=50')


def query(shape, i):
    """The i-th distinct query of one shape (every i a new one)."""
    if shape == 'granular same_subtree' or shape == 'granular limit=50':
        q = ('resources_NUMA=VCPU:1,MEMORY_MB:%d&resources_NIC=NET_BW_EGR_KILOBIT_PER_SEC:%d'
             '&required_ROOT=HW_CPU_X86_AVX2&same_subtree=_NUMA,_NIC,_ROOT&group_policy=none'
             % (256 + i % 3000, 1000 + i // 3000))
        return q + ('&limit=50' if shape == 'granular limit=50' else '')
    return candidates.resources(i) + dict(SHAPES)[shape]


def measure(serve, shape, requests, start, seconds=0.0, most=None):
    """``requests`` distinct queries of one shape; µs per candidate for unlimited ones.

    ``seconds``: go on with more distinct queries until the shape has run
    that long, up to ``most`` in all: at N=1,000 twenty answers of ~3 ms
    are 60 ms of samples, where one stall or the shape's first query moved
    the CPU per candidate by a third between runs.

    ``runqueue_ms``: the server's threads' time runnable but waiting for a
    CPU (another process had it), per request; ``p95_ms_unpreempted`` the
    p95 of the requests that never waited so (bench/limited_tail.py: that
    wait was the limited shapes' tail on this shared 2-CPU machine).
    """
    times, cpus, body, waits = [], [], b'{}', []
    most = max(requests, most or requests)
    began = time.perf_counter()
    for i in range(start, start + most):
        if i >= start + requests and time.perf_counter() - began >= seconds:
            break
        q = query(shape, i)
        c0, w0, t = serve.cpu(), serve_process.runqueue_ns(serve.proc.pid), time.perf_counter()
        body = serve.client.get(q)
        times.append((time.perf_counter() - t) * 1000)
        waits.append((serve_process.runqueue_ns(serve.proc.pid) - w0) / 1e6)
        cpus.append(serve.cpu() - c0)
    cands = len(json.loads(body)['allocation_requests'])
    cpu = sum(cpus)
    warm = times[1:] or times
    p50 = statistics.median(times)
    calm = [t for t, w in zip(times, waits) if w < 0.1]
    return {'p50_ms': round(p50, 2), 'p95_ms': round(candidates._pct(times, 95), 2),
            'p99_ms': round(candidates._pct(times, 99), 2), 'max_ms': round(max(times), 2),
            'cpu_ms': round(cpu * 1000 / len(times), 2), 'requests': len(times),
            'runqueue_ms': round(sum(waits) / len(waits), 3),
            'preempted': len(times) - len(calm),
            'p95_ms_unpreempted': round(candidates._pct(calm, 95), 2) if calm else None,
            # the first request of a shape fills what later ones of it reuse
            # (features entries, granular skeletons, summary JSON): also
            # without it, the steady state of a stream of such queries
            'first_ms': round(times[0], 2), 'first_cpu_ms': round(cpus[0] * 1000, 2),
            # the slowest request's own server CPU (and its runqueue wait): a
            # CPU-bound outlier (a collection, a refresh) or a wait for a CPU
            'slowest_cpu_ms': round(cpus[times.index(max(times))] * 1000, 2),
            'slowest_runqueue_ms': round(waits[times.index(max(times))], 3),
            'cpu_max_ms': round(max(cpus) * 1000, 2),
            'tail_ratio_warm': round(candidates._pct(warm, 95) / statistics.median(warm), 2),
            'candidates': cands, 'tail_ratio': round(candidates._pct(times, 95) / p50, 2),
            'us_per_candidate': (round(p50 * 1000 / cands, 2)
                                 if cands and shape not in LIMITED else None),
            # the server's CPU per candidate: what a loaded, shared machine disturbs least
            'cpu_us_per_candidate': (round(cpu * 1e6 / len(times) / cands, 2)
                                     if cands and shape not in LIMITED else None),
            'cpu_us_per_candidate_warm': (
                round(sum(cpus[1:] or cpus) * 1e6 / len(warm) / cands, 2)
                if cands and shape not in LIMITED else None)}


def run(args):
    pg = servers.Postgres() if args.db == 'postgresql' else None
    connection = pg.new_database('region_n%d' % args.n) if pg else None
    state = tempfile.mkdtemp(prefix='berth-bench-region-')
    log = open(os.path.join(state, 'serve.log'), 'w')
    row = {'N': args.n, 'db': args.db, 'nested': args.nested,
           # the host's speed before and after (bench/host_speed: shared machines)
           'host_reference_ms': [host_speed.reference_ms()]}
    serve = None
    try:
        t0 = time.perf_counter()
        placeload.load_state(args.n, connection, state=state, nested=args.nested)
        row['load_s'] = round(time.perf_counter() - t0, 1)
        row['providers'] = args.n + placeload.N_SHARING + (
            3 * (args.n // 5) if args.nested else 0)
        serve = serve_process.Serve(state, connection, log)
        row['start'] = dict(serve.times)
        row['memory'] = {'ready': serve.memory()}
        row['shapes'] = {}
        start = 1
        order = [s for s in LIMITED] + [s for s, _ in SHAPES if s not in LIMITED]
        if args.shapes:
            order = [s for s in order if s in args.shapes]
        for shape in order:
            n = args.requests if shape in LIMITED else args.full_requests
            t = time.perf_counter()
            serve.client = servers.Client('127.0.0.1', serve.port)   # a new connection
            try:
                row['shapes'][shape] = measure(serve, shape, n, start, args.shape_seconds,
                                               args.most_requests)
                n = row['shapes'][shape]['requests']
            except (OSError, RuntimeError) as exc:     # recorded, never dropped
                row.setdefault('errors', {})[shape] = '%s after %.1fs: %s' % (
                    type(exc).__name__, time.perf_counter() - t, str(exc)[:200])
                serve.client = servers.Client('127.0.0.1', serve.port)
            start += n
            print(shape, json.dumps(row['shapes'].get(shape) or row['errors'][shape]),
                  file=sys.stderr, flush=True)
            if shape == LIMITED[-1]:
                row['memory']['limited'] = serve.memory()
        row['memory']['after'] = serve.memory()
        row['stop_s'] = {'serving, after the queries': serve.stop()}
        serve = serve_process.Serve(state, connection, log)
        row['restart'] = dict(serve.times)
        row['memory']['restart_ready'] = serve.memory()
        per = row['memory']['after']['rss_mb'] * 10000.0 / row['providers']
        row['memory']['mb_per_10k_providers'] = round(per, 1)
        if args.stop_times:
            serve.stop()
            serve = None
            row['stop_s'].update(region_stop.stop_times(state, connection))
        row['loadavg'] = [round(x, 2) for x in os.getloadavg()]
        row['host_reference_ms'].append(host_speed.reference_ms())
    finally:
        if serve is not None:
            serve.stop()
        log.close()
        if pg is not None:
            pg.stop()
    return row


def print_row(row):
    print('N=%d (%d providers) %s: loaded in %.1fs; start %s; restart %s' % (
        row['N'], row['providers'], row['db'], row['load_s'], row['start'], row['restart']))
    print('memory: %s' % row['memory'])
    print('host reference workload ms (bench/host_speed; lower is faster), before / after: %s'
          % row.get('host_reference_ms'))
    print('%-24s %9s %9s %9s %9s %8s %8s %9s %9s %9s %9s %9s %9s %9s' % (
        'shape', 'p50 ms', 'p95 ms', 'p99 ms', 'cpu ms', 'cands', 'p95/p50', 'us/cand',
        'cpu us/c', 'rq ms', 'p95 calm', 'first ms', 'warm p95/', 'warm cpu'))
    for shape, v in row['shapes'].items():
        print('%-24s %9.2f %9.2f %9.2f %9.2f %8d %8.2f %9s %9s %9s %9s %9s %9s %9s' % (
            shape, v['p50_ms'], v['p95_ms'], v['p99_ms'], v['cpu_ms'], v['candidates'],
            v['tail_ratio'], v['us_per_candidate'], v.get('cpu_us_per_candidate'),
            v.get('runqueue_ms'), v.get('p95_ms_unpreempted'), v.get('first_ms'),
            v.get('tail_ratio_warm'), v.get('cpu_us_per_candidate_warm')))
    for shape, error in row.get('errors', {}).items():
        print('%-24s FAILED: %s' % (shape, error))
    print('stop, seconds from SIGTERM to exit: %s' % row.get('stop_s'))
    print('load average after: %s' % row['loadavg'])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=100000, help='computes')
    parser.add_argument('--db', default='sqlite', choices=('sqlite', 'postgresql'))
    parser.add_argument('--flat', dest='nested', action='store_false',
                        help='no nested trees (placeload\'s flat topology)')
    parser.add_argument('--requests', type=int, default=50,
                        help='distinct requests per limited shape')
    # 20, not fewer: the nearest-rank p95 of 10 samples is their maximum, so
    # a shape's one-off first request (it fills what later ones reuse, see
    # measure()) was its "p95"; it is reported on its own as first_ms
    parser.add_argument('--full-requests', type=int, default=20,
                        help='distinct requests per unlimited shape (at least 20: '
                             'a p95 of fewer is their maximum)')
    parser.add_argument('--shape-seconds', type=float, default=2.0,
                        help='after those, more distinct requests until a shape has '
                             'run this long (small N: enough samples for a p95 and '
                             'a CPU per candidate that a stall does not move)')
    parser.add_argument('--most-requests', type=int, default=200,
                        help='at most this many distinct requests per shape')
    parser.add_argument('--stop-times', action='store_true',
                        help='also time a stop at each moment of STOP_MOMENTS '
                             '(a fresh berth serve each)')
    parser.add_argument('--shapes', type=lambda v: v.split(','), default=None,
                        help='only these shapes (comma-separated names)')
    args = parser.parse_args(argv)
    unknown = set(args.shapes or ()) - {s for s, _ in SHAPES} - set(LIMITED)
    if unknown:
        parser.error('unknown shapes: %s' % ', '.join(sorted(unknown)))
    load_before = [round(x, 2) for x in os.getloadavg()]
    row = run(args)
    row['load_before'] = load_before
    print_row(row)
    print(json.dumps({'benchmark': 'region', 'cpus': os.cpu_count(), 'results': [row]},
                     sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
