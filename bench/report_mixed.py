"""bench/report.py's mixed section: candidate queries while claims run (bench/mixed.py).

One table per run of queries: per (N, db, shape) the region's distinct row
(bench/region.py, its own run), this run's *distinct* row (the same server,
no claims yet) and its *mixed* row (claims running), with p50/p95/p99 and
server CPU per returned candidate, the region targets judged on the mixed
row; then the claims' own table: alone and during the mixed phase.
"""

from bench import report_load

TARGETS = ('Targets judged on the *mixed* rows (issue 39): ≤ 10 µs server CPU per '
           'returned candidate (net: the server\'s CPU over the shape\'s requests less '
           'the claims answered meanwhile × the CPU per claim measured with the claims '
           'alone; *gross* counts everything the server did) and p95 ≤ 2 × p50 with the '
           'claims running.  ✗ marks a miss.  *region* rows are bench/region.py\'s quiet '
           'distinct queries on the same N and database (another run, another server); '
           '*distinct* rows this run\'s, on the same server just before the claims start.')


def _mark(ok):
    return '' if ok else ' ✗'


def _region_rows(region_runs, candidate_runs=None):
    """``{(N, db, shape, kind): numbers}``: the region's distinct, the candidates' cold rows."""
    found = {}
    for r in region_runs or []:
        for row in (r.get('result') or {}).get('results', []):
            for shape, v in row.get('shapes', {}).items():
                found[(row.get('N'), row.get('db'), shape, 'region')] = v
    for r in candidate_runs or []:
        for row in (r.get('result') or {}).get('results', []):
            for shape, modes in row.get('shapes', {}).items():
                if isinstance(modes, dict) and modes.get('cold'):
                    found[(row.get('N'), row.get('db'), shape, COLD)] = modes['cold']
    return found


COLD = 'cold (candidates bench: flat topology, a write before each)'


def _line(row, shape, kind, v, judged=False):
    cpu_us = v.get('cpu_us_per_candidate')
    net = v.get('net_cpu_us_per_candidate') if judged else None
    ratio = v.get('tail_ratio')
    if ratio is None and v.get('p50_ms') and v.get('p95_ms') is not None:
        ratio = round(v['p95_ms'] / v['p50_ms'], 2)     # rows of benches that give none
    limited = v.get('us_per_candidate') is None and cpu_us is None
    return '| %s | %s | %s | %s | %s | %s | %s | %s | %s%s | %s | %s%s | %s |' % (
        row['N'], row.get('db'), shape, kind, v.get('requests', ''), v.get('p50_ms'),
        v.get('p95_ms'), report_load.p99_cell(v.get('p99_ms'), v.get('requests')),
        ratio, _mark(not judged or (ratio or 0) <= 2),
        '' if limited else cpu_us,
        '' if (limited or not judged) else net,
        _mark(limited or not judged or net is None or net <= 10),
        v.get('claims_per_s_meanwhile', ''))


def mixed(runs, region_runs, candidate_runs=None):
    """``(table lines, None)``: the mixed rows beside the distinct ones; claims' table."""
    rows = [row for r in runs if 'result' in r for row in r['result'].get('results', [])
            if 'shapes' in row]
    if not rows:
        return [], None
    region = _region_rows(region_runs, candidate_runs)
    table = [TARGETS, '',
             '| computes | db | query | rows | requests | p50 ms | p95 ms | p99 ms | '
             'p95/p50 | server CPU µs per candidate (gross) | net µs per candidate | '
             'claims/s meanwhile |', '|---|---|---|---|---|---|---|---|---|---|---|---|']
    counts = []
    for row in sorted(rows, key=lambda row: (row.get('db', ''), row['N'])):
        for shape, phases in row['shapes'].items():
            key = (row['N'], row.get('db'), shape)
            for kind, v in (('region', region.get(key + ('region',))),
                            (COLD, region.get(key + (COLD,))),
                            ('distinct', phases.get('distinct')),
                            ('mixed', phases.get('mixed'))):
                if v:
                    table.append(_line(row, shape, kind, v, judged=kind == 'mixed'))
                    counts.append(v.get('requests'))
    note = report_load.p99_footnote(counts)
    table += ([note] if note else []) + [''] + verdict(rows) + [''] + _claims_table(rows)
    return table, None


def verdict(rows):
    """The targets' misses on the mixed rows, one line each, or that none missed."""
    misses = []
    for row in rows:
        for shape, phases in row['shapes'].items():
            v = phases.get('mixed') or {}
            why = []
            if (v.get('tail_ratio') or 0) > 2:
                why.append('p95/p50 %s > 2' % v['tail_ratio'])
            net = v.get('net_cpu_us_per_candidate')
            if net is not None and net > 10:
                why.append('%s µs net server CPU per candidate > 10' % net)
            if why:
                misses.append('- ✗ missed: %s computes, %s, %s with claims running: %s.' % (
                    row['N'], row.get('db'), shape, '; '.join(why)))
    return misses or ['Every mixed row meets both targets.']


def _claims_table(rows):
    lines = ['| computes | db | claims | clients (closed loop) | claims | granted | '
             'claims/s | p50 ms | p95 ms | p99 ms | server CPU ms per claim |',
             '|---|---|---|---|---|---|---|---|---|---|---|']
    counts = []
    for row in rows:
        clients = (row.get('load') or {}).get('claim_clients', '')
        for kind, key in (('alone', 'claims_alone'), ('during the mixed rows', 'claims_mixed')):
            v = row.get(key)
            if not v:
                continue
            counts.append(v.get('claims'))
            lines.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                row['N'], row.get('db'), kind, clients, v.get('claims'), v.get('granted'),
                v.get('claims_per_s'), v.get('p50_ms'), v.get('p95_ms'),
                report_load.p99_cell(v.get('p99_ms'), v.get('claims')),
                v.get('cpu_ms_per_claim', '')))
    note = report_load.p99_footnote(counts)
    return lines + ([note] if note else [])
