"""Where the slow requests of distinct candidate queries go: one attributed run.

Loads the placeload topology (bench/placeload.py) for N computes on SQLite or
PostgreSQL, serves it embedded (bench/candidates_servers.Embedded, this
process) and sends ``--requests`` distinct queries of one shape over one
keep-alive connection.  For every request it records, besides the wall
time, deterministic counters taken around it:

* garbage collections per generation and the time spent in them
  (``gc.callbacks``);
* provider index refreshes and providers re-read (objects/candidates/index);
* answer cache misses (objects/candidates/answer_cache);
* SQL statements sent (SQLAlchemy's ``before_cursor_execute`` plus the
  index's raw-cursor scans).

A request slower than ``--slow`` times the median is attributed to the
counters that moved during it (gen-2 GC, gen-0/1 GC, index refresh, SQL).
Also prints the process RSS after loading and the traced Python heap.
Last line: JSON.

    .venv/bin/python -m bench.candidates_tail --n 1000 --db sqlite --requests 200
    .venv/bin/python -m bench.candidates_tail --n 10000 --db postgresql --shapes limit=50

Recorded 2026-11-24 12:40 UTC (load average 1-2), main (baa1339) against
h-perf, same commands, distinct queries; wall p50 / p95 ms, then CPU of
this process per request p50 / p95 ms; gen-2 collections / their time:

    N=1,000 SQLite, 100 requests   before                           after
    no limit        11.8 / 157  cpu 11.7 / 157  12 gc2 1836 ms    12.4 / 19.4  cpu 12.3 / 14.1  7 gc2 5 ms
    limit=50        1.67 / 4.56 cpu 1.67 / 3.13                   1.95 / 4.45  cpu 1.92 / 2.92
    required=SSD    7.92 / 127  cpu 7.87 / 127   6 gc2 836 ms     5.91 / 7.92  cpu 5.94 / 7.16
    in:A,B          10.8 / 176  cpu 10.1 / 175   9 gc2 1492 ms    9.38 / 13.6  cpu 9.35 / 10.7
    !C              11.6 / 187  cpu 11.3 / 176  10 gc2 1758 ms    8.95 / 14.6  cpu 8.84 / 10.9
    N=1,000 PostgreSQL, 60 requests (index refreshes per 60 requests: 60 -> 0)
    no limit        14.9 / 187  cpu 13.1 / 168   8 gc2 1217 ms    17.9 / 69.7  cpu 13.8 / 15.8
    limit=50        6.54 / 7.23 cpu 3.68 / 4.36  9.0 statements   3.46 / 8.87  cpu 2.90 / 4.02  2.0
    required=SSD    11.8 / 77.8 cpu 9.93 / 35.3                   10.4 / 16.8  cpu 7.61 / 8.72
    N=10,000 PostgreSQL, 20 requests (load average ~20)
    no limit        650 / 2747  cpu 131 / 608   20 refreshes      161 / 209    cpu 96.5 / 104
    limit=50        87.3 / 160  cpu 6.35 / 7.78 9.2 statements    2.76 / 6.78  cpu 2.37 / 3.20  2.0
    N=10,000 SQLite no limit, 20 requests, load average ~1: 92.9 / 100 ms
    (12,000 candidates: 7.7 us each); with gc.set_threshold(50000) no
    better (98 / 106 ms), so the thresholds stay as they are.
"""

import argparse
import gc
import itertools
import json
import resource
import statistics
import sys
import time

from bench import candidates, placeload
from bench import candidates_servers as servers

SHAPES = dict(candidates.SHAPES)


class Counters:
    """Process-wide counters the probe reads around each request."""

    def __init__(self):
        import sqlalchemy as sa

        from objects.candidates import index

        self.gc = [0, 0, 0]
        self.gc_ms = [0.0, 0.0, 0.0]
        self.sql = 0
        self._t0 = None
        gc.callbacks.append(self._on_gc)
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute', self._on_sql)
        fetch = index._fetch

        def counted(ctx, statement):
            self.sql += 1
            return fetch(ctx, statement)
        index._fetch = counted

    def _on_gc(self, phase, info):
        if phase == 'start':
            self._t0 = time.perf_counter()
        elif self._t0 is not None:
            gen = info['generation']
            self.gc[gen] += 1
            self.gc_ms[gen] += (time.perf_counter() - self._t0) * 1000
            self._t0 = None

    def _on_sql(self, *args):
        self.sql += 1

    def snapshot(self):
        from objects.candidates import answer_cache, index

        idx = index.for_database.values()
        caches = list(answer_cache._CACHES.values())
        return {'gc': list(self.gc), 'gc_ms': list(self.gc_ms), 'sql': self.sql,
                'refreshes': sum(i.refreshes for i in idx),
                'reloaded': sum(i.reloaded for i in idx),
                'misses': sum(c.misses for c in caches),
                'hits': sum(c.hits for c in caches)}


def _delta(a, b):
    out = {}
    for key, value in b.items():
        if isinstance(value, list):
            out[key] = [round(y - x, 3) for x, y in zip(a[key], value)]
        else:
            out[key] = value - a[key]
    return out


def rss_mb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def causes(d):
    found = []
    if d['gc'][2]:
        found.append('gc gen2 (%.1f ms)' % d['gc_ms'][2])
    if d['gc'][0] + d['gc'][1] and d['gc_ms'][0] + d['gc_ms'][1] > 1:
        found.append('gc gen0/1 x%d (%.1f ms)' % (d['gc'][0] + d['gc'][1],
                                                  d['gc_ms'][0] + d['gc_ms'][1]))
    if d['reloaded']:
        found.append('index reload (%d providers)' % d['reloaded'])
    elif d['refreshes']:
        found.append('index refresh')
    return found or ['unattributed']


def measure(client, counters, shape, counter, args):
    """One shape's attributed run (see the module docstring)."""
    query = SHAPES[shape]
    for _ in range(args.warmup):
        client.get(candidates.resources(next(counter)) + query)
    rows = []
    for _ in range(args.requests):
        q = candidates.resources(next(counter)) + query
        before = counters.snapshot()
        t, c = time.perf_counter(), time.process_time()
        client.get(q)
        ms = (time.perf_counter() - t) * 1000
        d = _delta(before, counters.snapshot())
        d['cpu_ms'] = (time.process_time() - c) * 1000
        rows.append((ms, d))
    times = [ms for ms, _ in rows]
    cpu = [d['cpu_ms'] for _, d in rows]
    median = statistics.median(times)
    slow = [(ms, d) for ms, d in rows if ms > args.slow * median]
    tally: dict[str, int] = {}
    for ms, d in slow:
        for c in causes(d):
            name = c.split(' (')[0].split(' x')[0]
            tally[name] = tally.get(name, 0) + 1
        if args.verbose:
            print('%8.2f ms  %s  sql=%d' % (ms, ', '.join(causes(d)), d['sql']))
    total = {'gc': [sum(d['gc'][g] for _, d in rows) for g in range(3)],
             'gc_ms': [round(sum(d['gc_ms'][g] for _, d in rows), 1) for g in range(3)],
             'sql_per_request': round(sum(d['sql'] for _, d in rows) / len(rows), 2),
             'refreshes': sum(d['refreshes'] for _, d in rows),
             'reloaded': sum(d['reloaded'] for _, d in rows),
             'cache_misses': sum(d['misses'] for _, d in rows)}
    return {'N': args.n, 'db': args.db, 'shape': shape, 'requests': len(rows),
            'p50_ms': round(median, 2), 'p95_ms': round(candidates._pct(times, 95), 2),
            'p99_ms': round(candidates._pct(times, 99), 2),
            'max_ms': round(max(times), 2), 'slow': len(slow), 'slow_causes': tally,
            'cpu_p50_ms': round(statistics.median(cpu), 2),
            'cpu_p95_ms': round(candidates._pct(cpu, 95), 2), 'totals': total}


def run(args):
    pg = servers.Postgres() if args.db == 'postgresql' else None
    connection = pg.new_database('tail_n%d' % args.n) if pg else None
    state = placeload.load_state(args.n, connection, nested=args.nested)
    counters = Counters()
    rss0 = rss_mb()
    server = servers.Embedded(state, connection)
    results = []
    try:
        client = servers.Client(server.host, server.port)
        client.get(candidates.resources(0))      # first load of the index
        rss_loaded = rss_mb()
        counter = itertools.count(1)
        for shape in args.shapes.split(';'):
            results.append(measure(client, counters, shape, counter, args))
            print(json.dumps(results[-1], sort_keys=True), file=sys.stderr, flush=True)
        rss_after = rss_mb()
    finally:
        server.stop()
        if pg:
            pg.stop()
    summary = {'N': args.n, 'db': args.db, 'nested': args.nested, 'results': results,
               'rss_mb': {'before_server': round(rss0, 1), 'loaded': round(rss_loaded, 1),
                          'after': round(rss_after, 1)},
               'gc_frozen': gc.get_freeze_count(), 'gc_threshold': gc.get_threshold()}
    for r in results:
        print('%-6d %-10s %-17s p50 %7.2f  p95 %7.2f  p99 %7.2f  cpu p50 %6.2f p95 %6.2f  '
              'slow %3d %s  gc2 %d/%.0fms sql/req %.1f refreshes %d' % (
                  r['N'], r['db'], r['shape'], r['p50_ms'], r['p95_ms'], r['p99_ms'],
                  r['cpu_p50_ms'], r['cpu_p95_ms'],
                  r['slow'], r['slow_causes'], r['totals']['gc'][2], r['totals']['gc_ms'][2],
                  r['totals']['sql_per_request'], r['totals']['refreshes']))
    print(json.dumps(summary, sort_keys=True))
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--db', default='sqlite', choices=('sqlite', 'postgresql'))
    parser.add_argument('--shapes', default=';'.join(SHAPES),
                        help='separated by ";", of: %s' % '; '.join(SHAPES))
    parser.add_argument('--nested', action='store_true',
                        help='20 %% of computes with NUMA and NIC children (placeload)')
    parser.add_argument('--requests', type=int, default=200)
    parser.add_argument('--warmup', type=int, default=5)
    parser.add_argument('--slow', type=float, default=2.0,
                        help='a request slower than this many medians is attributed')
    parser.add_argument('-v', '--verbose', action='store_true')
    run(parser.parse_args(argv))
    return 0


if __name__ == '__main__':
    sys.exit(main())
