"""Plots and Markdown for bench/report.py: one function per experiment's shape.

Every reader takes a benchmark's JSON summary as printed by the bench and is
forgiving about missing fields (a run that failed is shown as failed), so the
report can be re-drawn from saved results after a bench gains a column.
"""

import json
import pathlib

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from bench import report_load, report_mixed, report_region, report_sizing  # noqa: E402


def _ok(runs):
    return [r for r in runs if 'result' in r]


def _load_note(runs):
    loads = [r.get('load_before') for r in runs] + [r.get('load_after') for r in runs]
    ones = [lv[0] for lv in loads if lv]
    if not ones:
        return 'load average not recorded'
    return 'load average (1 min) %.1f–%.1f during these runs' % (min(ones), max(ones))


def _failures(runs):
    lines = []
    for r in runs:
        if 'error' in r:
            lines.append('- `%s` failed: %s' % (' '.join(r['argv']), r['error']))
    return lines


def _save(fig, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --- candidates --------------------------------------------------------------

CANDIDATE_MODES = ('repeated', 'distinct', 'cold')
MODE_NOTE = ('*repeated*: the same query again (on SQLite the answer cache answers); '
             '*distinct*: every request a query never asked before (new amounts); '
             '*cold*: distinct, after a write (untimed) that changes every compute '
             'provider, so every memo and index entry is rebuilt.  '
             'ok/s counts successful (200) answers only.')


def candidates(runs, images, name='candidates'):
    """p50/p95/p99 per (db, shape, mode); ok/s of concurrent clients; p50 vs. N plot."""
    rows: list[dict] = []
    for r in _ok(runs):
        rows.extend(row for row in r['result'].get('results', []) if 'shapes' in row)
    if not rows:
        return [], None
    table = [MODE_NOTE, '',
             '| providers | db | query | mode | p50 ms | p95 ms | p99 ms | CPU ms | '
             'db CPU ms | candidates |', '|---|---|---|---|---|---|---|---|---|---|']
    clients = ['| providers | db | query | mode | ok/s (successes only) | errors |',
               '|---|---|---|---|---|---|']
    series: dict[str, list] = {}
    counts: list = []
    for row in sorted(rows, key=lambda r: (r.get('db', ''), r['N'])):
        db = row.get('db', 'sqlite')
        for label, modes in row['shapes'].items():
            for mode in CANDIDATE_MODES:
                v = modes.get(mode)
                if v is None:
                    continue
                table.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                    row['N'], db, label, mode, v.get('p50_ms'), v.get('p95_ms'),
                    report_load.p99_cell(v.get('p99_ms'), v.get('requests')), v.get('cpu_ms'),
                    v.get('db_cpu_ms', ''), v.get('candidates')))
                counts.append(v.get('requests'))
                if label == 'no limit' and mode != 'repeated':
                    for pct in ('p50', 'p95'):     # the tail, next to the median
                        series.setdefault('%s, %s %s' % (db, mode, pct), []).append(
                            (row['N'], v.get(pct + '_ms')))
        for label, modes in row.get('clients', {}).items():
            for mode, v in modes.items():
                clients.append('| %s | %s | %s | %s | %s | %s |' % (
                    row['N'], db, label, mode, v.get('ok_per_s'), v.get('errors')))
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, points in sorted(series.items()):
        ax.plot([p[0] for p in points], [p[1] for p in points], marker='o', label=label,
                linestyle='--' if label.endswith('p95') else '-')
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlabel('providers (placeload topology)')
    ax.set_ylabel('latency, ms (p50 and p95)')
    ax.set_title('GET /allocation_candidates (no limit)')
    ax.grid(True, which='both', alpha=0.3)
    ax.legend(fontsize=7)
    path = images / ('bench-%s.png' % name.replace('_', '-'))
    _save(fig, path)
    note = report_load.p99_footnote(counts)
    return table + ([note] if note else []) + [''] + clients, path


# --- claims ------------------------------------------------------------------

def claims(runs, images, key, xlabel, name):
    """Claims/s (bars) and p95 (line) against ``key`` (workers or conductors)."""
    points = []
    for r in _ok(runs):
        res = r['result']
        x = res.get(key)
        if x is None:
            x = _label_value(res.get('deployment', ''), key)
        points.append((x, res))
    points = [(x, res) for x, res in points if x is not None]
    if not points:
        return [], None
    points.sort(key=lambda p: p[0])
    table = ['claims/s counts granted claims (204) only; refusals are in the 409 and '
             'error columns.', '',
             '| %s | claims | granted | claims/s | p50 ms | p95 ms | p99 ms | 409 '
             'concurrent_update | other errors | CPU ms/claim |' % xlabel,
             '|---|---|---|---|---|---|---|---|---|---|']
    for x, res in points:
        table.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            x, res.get('claims'), res.get('granted'), res.get('claims_per_s'),
            res.get('p50_ms'), res.get('p95_ms'),
            report_load.p99_cell(res.get('p99_ms'), res.get('claims')),
            res.get('conflicts_409_concurrent_update'), res.get('other_errors'),
            res.get('server_cpu_ms_per_claim', res.get('process_cpu_ms_per_claim', ''))))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    xs = [str(x) for x, _ in points]
    ax.bar(xs, [res.get('claims_per_s') or 0 for _, res in points], color='#4c78a8')
    ax.set_xlabel(xlabel)
    ax.set_ylabel('granted claims/s')
    ax2 = ax.twinx()
    ax2.plot(xs, [res.get('p95_ms') or 0 for _, res in points], color='#e45756', marker='o')
    ax2.set_ylabel('p95 ms', color='#e45756')
    note = report_load.p99_footnote([res.get('claims') for _, res in points
                                     if res.get('p99_ms') is not None])
    table += [note] if note else []
    ax.set_title('PUT /allocations through the conductors')
    path = images / ('bench-%s.png' % name)
    _save(fig, path)
    return table, path


def _label_value(label, key):
    prefix = key.rstrip('s') if key.endswith('s') else key
    for part in str(label).replace(',', ' ').split():
        name, _, value = part.partition('=')
        if name in (key, prefix) and value.isdigit():
            return int(value)
    return None


PROCESS_KINDS = ('api', 'conductors', 'rabbitmq', 'postgresql', 'etcd', 'client')


def claims_cpu(runs, images):
    """Claims/s and CPU ms per claim by process kind (bench.claims --rabbit-only)."""
    rows = []
    for r in _ok(runs):
        res = r['result']
        rows.extend(res if isinstance(res, list) else [res])
    if not rows:
        return [], None
    table = ['Targets (issue 20): ≥ 500 claims/s and ≤ 2.5 ms CPU per claim over every '
             'process.  CPU is user + system of each process tree from /proc, warm-up '
             'claims included, per claim answered.', '',
             '| conductors | claims | granted | claims/s | p50 ms | p95 ms | p99 ms | 409cu | '
             '%s | total CPU ms/claim |' % ' | '.join('%s ms' % k for k in PROCESS_KINDS),
             '|---|---|---|---|---|---|---|---|%s---|' % ('---|' * len(PROCESS_KINDS))]
    for res in rows:
        table.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            res.get('conductors'), res.get('claims'), res.get('granted'),
            res.get('claims_per_s'), res.get('p50_ms'), res.get('p95_ms'),
            report_load.p99_cell(res.get('p99_ms'), res.get('claims')),
            res.get('conflicts_409_concurrent_update'),
            ' | '.join(str(res.get('cpu_ms_per_claim_%s' % k, '')) for k in PROCESS_KINDS),
            res.get('total_cpu_ms_per_claim')))
    return table, None


# --- node allocations ----------------------------------------------------------

def node_allocations(runs, images, name):
    rows = []
    for r in _ok(runs):
        rows.extend(r['result'].get('scenarios', []))
    if not rows:
        return [], None
    table = ['| conductors | nodes | requests | active | errors | duplicates | allocations/s '
             '| p50 ms | p95 ms | p99 ms |', '|---|---|---|---|---|---|---|---|---|---|']
    for row in rows:
        table.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (tuple(
            row.get(k, '') for k in ('conductors', 'nodes', 'requests', 'active', 'errors',
                                     'duplicates', 'allocations_per_s', 'p50_ms', 'p95_ms'))
            + (report_load.p99_cell(row.get('p99_ms'), row.get('requests')),)))
    note = report_load.p99_footnote([row.get('requests') for row in rows
                                     if row.get('p99_ms') is not None])
    table += [note] if note else []
    plain = [row for row in rows if row.get('requests') == row.get('nodes')]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([row['conductors'] for row in plain],
            [row.get('allocations_per_s') or 0 for row in plain], marker='o')
    ax.set_xlabel('conductors')
    ax.set_ylabel('allocations/s')
    ax.set_xticks(sorted({row['conductors'] for row in plain}))
    ax.set_title('POST /v1/allocations until active')
    ax.grid(True, alpha=0.3)
    path = images / ('bench-%s.png' % name)
    _save(fig, path)
    return table, path


# --- chaos ----------------------------------------------------------------------

def read_chaos(path):
    """Every JSON object line of a chaos run's output file."""
    records = []
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.strip()
        if line.startswith('{'):
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    return records


def chaos(records, images):
    """Recovery per fault kind (p50/max bars) and the timeline when recorded."""
    summary = next((r for r in reversed(records)
                    if 'rows' in r or 'faults' in r or 'by_fault' in r), None)
    if summary is None:
        return [], None
    kinds = summary.get('rows') or summary.get('by_fault') or summary.get('faults')
    if isinstance(kinds, list):
        kinds = {k.get('kind', str(i)): k for i, k in enumerate(kinds)}
    kinds = {k: _chaos_row(v) for k, v in kinds.items()}
    table = ['| fault | injected | requests | 5xx | recovery p50 s | recovery max s | violations |',
             '|---|---|---|---|---|---|---|']
    names = sorted(kinds)
    for kind in names:
        v = kinds[kind]
        table.append('| %s | %s | %s | %s | %s | %s | %s |' % (
            kind, v.get('injected', v.get('faults')), v.get('requests'), v.get('5xx'),
            v.get('recovery_p50_s'), v.get('recovery_max_s'), v.get('violations')))
    fig, ax = plt.subplots(figsize=(7, 3.5))
    p50 = [kinds[k].get('recovery_p50_s') or 0 for k in names]
    top = [kinds[k].get('recovery_max_s') or 0 for k in names]
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], p50, width=0.4, label='p50')
    ax.bar([x + 0.2 for x in xs], top, width=0.4, label='max')
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=20, fontsize=7)
    ax.set_ylabel('recovery, s')
    ax.set_title('Chaos: time to recover per fault kind')
    ax.legend()
    path = images / 'bench-chaos-recovery.png'
    _save(fig, path)
    timeline = summary.get('timeline')
    if timeline:
        fig, ax = plt.subplots(figsize=(8, 3))
        for i, kind in enumerate(names):
            points = [(e['t'], e.get('recovery_s') or 0) for e in timeline if e.get('kind') == kind]
            if points:
                ax.scatter([p[0] for p in points], [p[1] for p in points], label=kind, s=12)
        ax.set_xlabel('seconds into the run')
        ax.set_ylabel('recovery, s')
        ax.set_title('Chaos: each fault and its recovery')
        ax.legend(fontsize=6)
        _save(fig, images / 'bench-chaos-timeline.png')
    return table, path


def _number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _chaos_row(row):
    """bench/chaos.py's row (``recovery: [p50, max]``, ``faults``) in the report's terms."""
    row = dict(row)
    if 'recovery' in row and 'recovery_p50_s' not in row:
        p50, top = (list(row['recovery']) + [None, None])[:2]
        row['recovery_p50_s'], row['recovery_max_s'] = _number(p50), _number(top)
    row.setdefault('injected', row.get('faults'))
    return row


# --- the report --------------------------------------------------------------------

def kept_sections(out, written):
    """The ``## `` sections of the report at ``out`` that this run does not write.

    Hand-written sections (a bench the report does not run) and sections
    of experiments not re-run this time (chaos without ``--chaos``) stay, in
    their order, after the ones written now.
    """
    try:
        old = pathlib.Path(out).read_text().splitlines()
    except OSError:
        return []
    kept, keep = [], False
    for line in old:
        if line.startswith('## '):
            keep = line not in written
        if keep:
            kept.append(line)
    return kept + ([''] if kept else [])


def write_report(out, collected, chaos_records, machine):
    """Write ``out`` (Markdown) and its PNGs in ``out.parent/images``; return the text."""
    out = pathlib.Path(out)
    images = out.parent / 'images'
    lines = ['# Benchmark measurements and history', '',
             'Every measurement behind [the benchmark report](benchmarks.md), with its',
             'date, its load and the before/after of each change, in the order it was',
             'recorded. The report holds the current answers; this page holds how they',
             'came about. The sections written by `python -m bench.report` come first',
             '(it rewrites them and keeps the hand-written ones after them).', '',
             '<!-- written by `python -m bench.report`; numbers are from the run it names -->', '',
             'Machine: %(cpus)s CPUs (%(cpu)s), Python %(python)s; run %(date)s.' % machine,
             'These machines are shared: every section names the load average during its runs,',
             'and numbers taken under load are pessimistic.', '']
    sections = [
        ('candidates', lambda runs: candidates(runs, images)),
        ('candidates_region', lambda runs: candidates(runs, images, 'candidates_region')),
        ('region', lambda runs: report_region.region(runs, images)),
        ('mixed', lambda runs: report_mixed.mixed(
            runs, collected.get('region', {}).get('runs'),
            collected.get('candidates', {}).get('runs'))),
        ('claims_rabbit', lambda runs: claims_cpu(runs, images)),
        ('claims_workers', lambda runs: claims(runs, images, 'workers', 'workers',
                                               'claims-workers')),
        ('claims_conductors', lambda runs: claims(runs, images, 'conductors', 'conductors',
                                                  'claims-conductors')),
        ('node_allocations', lambda runs: node_allocations(runs, images, 'node-allocations')),
        ('node_allocations_real', lambda runs: node_allocations(
            runs, images, 'node-allocations-real')),
    ]
    for name, draw in sections:
        if name not in collected:
            continue
        entry = collected[name]
        runs = entry['runs']
        lines += ['## %s' % entry['title'], '']
        lines += ['Command%s: %s' % ('s' if len(runs) > 1 else '', '; '.join(
            '`%s`' % ' '.join(r['argv']) for r in runs)), '']
        lines += [report_load.offered(name, runs), '']
        table, image = draw(runs)
        if image is not None:
            lines += ['![%s](%s)' % (entry['title'], image.relative_to(out.parent)), '']
        lines += table + ['', _load_note(runs) + '.'] + _failures(runs) + ['']
        lines += report_sizing.sizing(name, collected, machine.get('cpus') or 1)
    if chaos_records:
        table, image = chaos(chaos_records, images)
        lines += ['## Chaos runs: recovery per fault kind', '',
                  'From `python bench/chaos.py --minutes 30` (its final JSON line); '
                  'the run\'s own output names the seed and the load.', '']
        if image is not None:
            lines += ['![chaos recovery](%s)' % image.relative_to(out.parent), '']
            if (images / 'bench-chaos-timeline.png').exists():
                lines += ['![chaos timeline](images/bench-chaos-timeline.png)', '']
        lines += table + ['']
    lines += kept_sections(out, [line for line in lines if line.startswith('## ')])
    text = '\n'.join(lines).rstrip('\n') + '\n'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text
