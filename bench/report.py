"""Run the benchmarks and write one Markdown report with PNG plots.

    .venv/bin/python -m bench.report                  # run everything, write doc/source/benchmarks-history.md
    .venv/bin/python -m bench.report --quick          # small sizes, a few minutes
    .venv/bin/python -m bench.report --only claims,candidates
    .venv/bin/python -m bench.report --from bench/results   # re-plot saved results
    .venv/bin/python -m bench.report --only region --region  # N = 1k, 10k, 100k
    .venv/bin/python -m bench.report --only mixed     # queries while claims run

Each benchmark is its own process (``python -m bench.<name> …``) whose last
output line is a JSON summary; the report keeps those lines in
``bench/results/<experiment>.json``, the machine's load average before and
after each run, and draws the plots with matplotlib (Agg, no display needed).
A benchmark that fails or is missing is reported as such, never dropped.
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

from bench import report_plots as plots  # noqa: E402  (after ROOT, for -m and tests)


def experiments(quick, region=False):
    """``[(name, title, [argv...])]``: what to run; each argv one bench process.

    ``region`` adds N=100,000 computes (160,003 providers with their
    nested children) to bench/region.py's runs at N=1,000 and 10,000.
    """
    claims = '200' if quick else '1000'
    runs = [('candidates', 'Allocation candidates: repeated, distinct and cold queries '
                           '(SQLite and PostgreSQL)',
             [['bench.candidates', '--sizes', '1000' if quick else '1000,10000',
               '--dbs', 'sqlite,postgresql', '--repeat', '50' if quick else '100',
               '--seconds', '3' if quick else '5']])]
    sizes = ['1000'] if quick else ['1000', '10000']
    if region:
        sizes.append('100000')
    runs.append(('region', 'A region: loading, restart, memory and distinct candidates '
                           'against N (nested trees; `berth serve` in its own process)',
                 [['bench.region', '--n', n, '--db', db] for db in ('sqlite', 'postgresql')
                  for n in sizes]))
    runs.append(('mixed', 'Candidate queries while claims run (mixed), beside the '
                          'distinct and cold rows',
                 [['bench.mixed', '--n', '1000' if quick else '10000', '--db', db,
                   '--workers', '4'] for db in (('sqlite',) if quick else
                                                ('sqlite', 'postgresql'))]))
    runs.append(('claims_workers', 'Granted claims/s vs. concurrent workers (embedded)',
                 [['bench.claims', '--claims', claims, '--workers', str(w),
                   '--label', 'workers=%d' % w] for w in ((1, 10) if quick else (1, 5, 10, 20))]))
    runs.append(('claims_conductors',
                 'Granted claims/s vs. conductors (embedded, 10 workers)',
                 [['bench.claims', '--claims', claims, '--conductors', str(c),
                   '--label', 'conductors=%d' % c] for c in ((1, 3) if quick else (1, 2, 3))]))
    runs.append(('claims_rabbit', 'Claims on RabbitMQ + PostgreSQL, 3 conductors: CPU per '
                                  'claim over every process',
                 [['bench.claims', '--rabbit-only', '--rabbit-conductors', '3',
                   '--claims', claims if quick else '2000', '--label', 'conductors=3']]))
    runs.append(('node_allocations', 'Node allocations/s vs. conductors (embedded)',
                 [['bench.node_allocations', '--conductors', '1,2' if quick else '1,2,4',
                   '--nodes', '60' if quick else '200']]))
    runs.append(('node_allocations_real',
                 'Node allocations/s vs. conductors (RabbitMQ + PostgreSQL)',
                 [['bench.node_allocations_real', '--conductors', '1,2' if quick else '1,2,4',
                   '--nodes', '60' if quick else '200']]))
    return runs


def loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def run_one(argv, timeout):
    """Run ``python -m argv``; ``{'argv', 'result' | 'error', 'load_before/after', 'seconds'}``."""
    record = {'argv': ['python', '-m'] + argv, 'load_before': loadavg()}
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, '-W', 'ignore', '-m'] + argv, cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        record['error'] = 'timed out after %ss' % timeout
    else:
        last = _last_json(proc.stdout)
        if last is None:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            record['error'] = 'exit %d, no JSON summary: %s' % (proc.returncode,
                                                               ' / '.join(tail))
        else:
            record['result'] = last
            record['exit_code'] = proc.returncode
    record['seconds'] = round(time.monotonic() - t0, 1)
    record['load_after'] = loadavg()
    return record


def _last_json(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith('{'):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open('/proc/cpuinfo', encoding='utf-8'):
            if line.startswith('model name'):
                cpu = line.split(':', 1)[1].strip()
                break
    except OSError:
        pass
    return {'cpus': os.cpu_count(), 'cpu': cpu, 'python': platform.python_version(),
            'date': datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}


def run_all(selected, quick, results_dir, timeout, region=False):
    results_dir.mkdir(parents=True, exist_ok=True)
    collected = {}
    for name, title, argvs in experiments(quick, region):
        if selected and name not in selected:
            continue
        print('running %s (%d runs)...' % (name, len(argvs)), file=sys.stderr, flush=True)
        records = [run_one(argv, timeout) for argv in argvs]
        collected[name] = {'title': title, 'runs': records}
        (results_dir / ('%s.json' % name)).write_text(json.dumps(collected[name], indent=1))
    return collected


def load_saved(results_dir):
    collected = {}
    for path in sorted(results_dir.glob('*.json')):
        collected[path.stem] = json.loads(path.read_text())
    return collected


def keep_the_others(collected, results_dir):
    """``collected`` (the experiments just run) with every other section's saved results.

    ``--only X`` re-runs X; the report it writes keeps the sections it did not
    re-run, from their files in ``results_dir``, instead of dropping them.
    """
    merged = load_saved(results_dir)
    merged.update(collected)
    return merged


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='small sizes, a few minutes')
    parser.add_argument('--only', default='', help='comma-separated experiment names')
    parser.add_argument('--from', dest='from_dir', default=None,
                        help='re-plot saved results from this directory instead of running')
    parser.add_argument('--results', default=str(ROOT / 'bench' / 'results'))
    parser.add_argument('--chaos', default=None,
                        help='JSON summary lines of chaos runs (bench/chaos.py output) to plot')
    parser.add_argument('--out', default=str(ROOT / 'doc' / 'source' /
                                             'benchmarks-history.md'))
    parser.add_argument('--timeout', type=int, default=1800, help='seconds per bench run')
    parser.add_argument('--region', action='store_true',
                        help='also N=100,000 in the region runs (bench.region --n 100000)')
    args = parser.parse_args(argv)
    if args.from_dir:
        collected = load_saved(pathlib.Path(args.from_dir))
    else:
        selected = {s for s in args.only.split(',') if s}
        collected = run_all(selected, args.quick, pathlib.Path(args.results), args.timeout,
                            args.region)
        if selected:
            collected = keep_the_others(collected, pathlib.Path(args.results))
    chaos = plots.read_chaos(args.chaos) if args.chaos else []
    out = pathlib.Path(args.out)
    info = machine()
    if args.from_dir:
        info['date'] += (' (re-drawn from saved results: each section\'s numbers are '
                         'from the run its file recorded)')
    text = plots.write_report(out, collected, chaos, info)
    print(text)
    print(json.dumps({'benchmark': 'report', 'out': str(out),
                      'experiments': sorted(collected),
                      'failed': sorted(n for n, c in collected.items()
                                       if any('error' in r for r in c['runs']))}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
