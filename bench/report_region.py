"""bench/report.py's region section: bench/region.py's runs at N = 1k, 10k, 100k.

Tables: start/memory per (db, N), then p50/p95/p99 per shape with the
issue's targets checked; plots: the tail (p50/p95/p99) of every shape
against N, and µs per returned candidate plus RSS against N.
"""

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from bench import report_load  # noqa: E402

TARGETS = ('Targets (issue 20): limit=50 p50 ≤ 5 ms and p95 ≤ 10 ms at N=100,000; '
           '≤ 10 µs per returned candidate; p95 ≤ 2× p50 for every shape; '
           '≤ 1 GiB RSS at N=100,000; ready ≤ 30 s after a restart.  '
           '✗ marks a miss.  Every query is distinct (new amounts); the server is '
           '`berth serve` in its own process (RSS and CPU are its own).  The machine '
           'is shared (2 CPUs; the section names the load average of its runs): '
           'wall times are pessimistic by up to the load average '
           'over 2, so *server CPU* (the process\'s CPU-time clock per request, to the ns; '
           'earlier runs: /proc ticks of 10 ms) '
           'is the figure that compares across runs; both are given.  *First query*: '
           'a shape\'s first request, which fills what later ones of that shape reuse '
           '(trait index entries, granular skeletons, summary JSON); p95/p50 also '
           'without it.  *Host reference*: bench/host_speed\'s fixed workload timed '
           'before and after each run (lower is faster): runs compare only as far as '
           'these agree.  *Requests*: distinct ones per shape, 20 (unlimited) or 50 '
           '(limited) and then more until the shape has run 2 s, at most 200 (runs '
           'before 2026-11-27: 20 / 50; before 2026-11-26: 10 unlimited, whose '
           'nearest-rank p95 is their maximum, i.e. the first query).')
STYLE = {'p50': '-', 'p95': '--', 'p99': ':'}


def _rows(runs):
    rows = []
    for r in runs:
        if 'result' not in r:
            continue
        for row in r['result'].get('results', []):
            if 'shapes' in row:
                rows.append(dict(row, _load=r.get('load_before'), _after=r.get('load_after'),
                                 _note=r.get('note')))
    return sorted(rows, key=lambda row: (row.get('db', ''), row['N']))


def _mark(ok):
    return '' if ok else ' ✗'


def _shape_line(row, shape, v):
    limited = shape.endswith('limit=50')
    p50, p95 = v.get('p50_ms') or 0, v.get('p95_ms') or 0
    big = row['N'] >= 100000
    us = v.get('us_per_candidate')
    cpu_us = (round(v['cpu_ms'] * 1000 / v['candidates'], 2)
              if not limited and v.get('cpu_ms') and v.get('candidates') else '')
    return '| %s | %s | %s | %s | %s%s | %s%s | %s | %s%s | %s | %s | %s%s | %s | %s | %s |' % (
        row['N'], row.get('db'), shape, v.get('requests', ''),
        p50, _mark(not (big and shape == 'limit=50') or p50 <= 5),
        p95, _mark(not (big and shape == 'limit=50') or p95 <= 10),
        report_load.p99_cell(v.get('p99_ms'), v.get('requests')), v.get('tail_ratio'),
        _mark((v.get('tail_ratio') or 0) <= 2),
        v.get('cpu_ms'), v.get('candidates'), '' if limited else us,
        _mark(limited or us is None or us <= 10), cpu_us, v.get('first_ms', ''),
        v.get('tail_ratio_warm', ''))


def region(runs, images):
    """``(table lines, first image)`` for the region experiment."""
    rows = _rows(runs)
    if not rows:
        return [], None
    table = [TARGETS, '',
             '| computes | providers | db | load s | listening s | ready s (first full '
             'answer) | restart: ready s | RSS ready MB | RSS after MB | peak RSS MB | '
             'MB per 10k providers | load avg before / after | host reference ms '
             'before / after |',
             '|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for row in rows:
        mem, start, restart = row.get('memory', {}), row.get('start', {}), row.get(
            'restart', {})
        after = mem.get('after', {})
        big = row['N'] >= 100000
        table.append('| %s | %s | %s | %s | %s | %s | %s%s | %s | %s%s | %s | %s | %s / %s | %s |' % (
            row['N'], row.get('providers'), row.get('db'), row.get('load_s'),
            start.get('listening_s'), start.get('ready_s'), restart.get('ready_s'),
            _mark(not big or (restart.get('ready_s') or 99) <= 30),
            mem.get('ready', {}).get('rss_mb'), after.get('rss_mb'),
            _mark(not big or (after.get('rss_mb') or 0) <= 1024), after.get('hwm_mb'),
            mem.get('mb_per_10k_providers'), (row.get('_load') or ['?'])[0],
            (row.get('loadavg') or row.get('_after') or ['?'])[0],
            ' / '.join(str(ms) for ms in row.get('host_reference_ms') or ['?'])))
    table += [''] + ['- N=%s, %s: %s' % (row['N'], row.get('db'), row['_note'])
                     for row in rows if row.get('_note')]
    table += ['', '| computes | db | query (distinct) | requests | p50 ms | p95 ms | p99 ms | p95/p50 | '
              'server CPU ms | candidates | µs per candidate (p50) | server CPU µs per '
              'candidate | first query ms | p95/p50 after the first |',
              '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for row in rows:
        for shape, v in row['shapes'].items():
            table.append(_shape_line(row, shape, v))
        for shape, error in row.get('errors', {}).items():
            table.append('| %s | %s | %s | | failed: %s ✗ | | | | | | | | | |' % (
                row['N'], row.get('db'), shape, error.replace('|', '/')))
    note = report_load.p99_footnote([v.get('requests') for row in rows
                                     for v in row['shapes'].values()])
    table += [note] if note else []
    shapes = []
    for row in rows:
        shapes += [s for s in row['shapes'] if s not in shapes]
    path = images / 'bench-region-tail.png'
    _tail_plot(rows, shapes, path)
    cost = images / 'bench-region-cost.png'
    _cost_plot(rows, shapes, cost)
    table += ['', '![server CPU µs per candidate and RSS against N](%s)' % ('images/' + cost.name)]
    return table, path


def _tail_plot(rows, shapes, path):
    cols = 4
    lines = (len(shapes) + cols - 1) // cols
    fig, axes = plt.subplots(lines, cols, figsize=(14, 3.4 * lines), squeeze=False)
    dbs = sorted({row.get('db') for row in rows})
    colours = dict(zip(dbs, ('#4c78a8', '#e45756', '#54a24b')))
    for ax, shape in zip([a for line in axes for a in line], shapes):
        for db in dbs:
            points = [(row['N'], row['shapes'][shape]) for row in rows
                      if row.get('db') == db and shape in row['shapes']]
            for pct, style in STYLE.items():
                ax.plot([p[0] for p in points], [p[1].get(pct + '_ms') for p in points],
                        linestyle=style, marker='o', markersize=3, color=colours[db],
                        label='%s %s' % (db, pct))
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.set_title(shape, fontsize=9)
        ax.grid(True, which='both', alpha=0.3)
        ax.set_xlabel('computes', fontsize=8)
        ax.set_ylabel('ms', fontsize=8)
    for ax in [a for line in axes for a in line][len(shapes):]:
        ax.axis('off')
    axes[0][0].legend(fontsize=6)
    fig.suptitle('GET /allocation_candidates, distinct queries: p50 / p95 / p99 against N')
    _save(fig, path)


def _cost_plot(rows, shapes, path):
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    for db in sorted({row.get('db') for row in rows}):
        mine = [row for row in rows if row.get('db') == db]
        for shape in shapes:
            points = [(row['N'], _cpu_us(row['shapes'][shape]))
                      for row in mine if shape in row['shapes']]
            points = [p for p in points if p[1]]
            if points:
                left.plot([p[0] for p in points], [p[1] for p in points], marker='o',
                          label='%s %s' % (db, shape),
                          linestyle='-' if db == 'sqlite' else '--')
        right.plot([row['N'] for row in mine],
                   [row.get('memory', {}).get('after', {}).get('rss_mb') for row in mine],
                   marker='o', label='%s RSS after queries' % db)
        right.plot([row['N'] for row in mine],
                   [row.get('memory', {}).get('after', {}).get('hwm_mb') for row in mine],
                   marker='x', linestyle=':', label='%s peak RSS' % db)
    left.axhline(10, color='grey', linewidth=0.8)
    left.set_xscale('log')
    left.set_yscale('log')
    left.set_xlabel('computes')
    left.set_ylabel('server CPU µs per returned candidate')
    left.legend(fontsize=6)
    left.grid(True, which='both', alpha=0.3)
    right.axhline(1024, color='grey', linewidth=0.8)
    right.set_xscale('log')
    right.set_xlabel('computes')
    right.set_ylabel('server RSS, MB')
    right.legend(fontsize=7)
    right.grid(True, which='both', alpha=0.3)
    _save(fig, path)


def _cpu_us(v):
    """Server CPU µs per returned candidate (None for limited shapes)."""
    if v.get('us_per_candidate') is None or not v.get('candidates'):
        return None
    return v['cpu_ms'] * 1000.0 / v['candidates']


def _save(fig, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
