"""Memory of berth-api's workers: N processes sharing one loaded candidate index.

Loads the placeload topology (bench/placeload.py) for ``--n`` computes into
a SQLite file, then starts ``berth-api`` twice on it: once with ``[api]
workers = 1`` (one process, no fork) and once with ``--workers`` processes.
Each run gets ``--searches`` unlimited candidate searches (``VCPU:100N``,
N counting: no provider fits, so the answer is small while every provider
of the index is walked) on fresh connections, and more until every worker
has run one (the one whose CPU time grew),
then the PSS (proportional set size: a page shared by k processes counts
1/k in each, so the sum counts it once) of every process of the run is read
from /proc/PID/smaps_rollup.  Target (issue 36): the N-worker sum at most
1.5 times the single process.

    .venv/bin/python -m bench.api_workers_memory --n 100000 --workers 2

Prints one line per run and a final JSON line.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench import placeload

SEARCH = '/allocation_candidates?resources=VCPU:100'  # + a digit or more
HEADERS = {'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement 1.39'}


def pss_kb(pid):
    with open('/proc/%d/smaps_rollup' % pid) as f:
        return sum(int(line.split()[1]) for line in f if line.startswith('Pss:'))


def children(pid):
    found = []
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                with open('/proc/%s/stat' % name) as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(')') + 2:].split()[1]) == pid:
                found.append(int(name))
    return found


def _config(state, port, bm_port, workers):
    path = os.path.join(state, 'api-%d.conf' % workers)
    with open(path, 'w') as f:
        f.write('[DEFAULT]\nstate_path = %s\n[database]\nconnection = sqlite:///%s\n'
                'sqlite_synchronous = false\n[coordination]\nbackend_url = file://%s\n'
                # no broker is reached: berth-api refuses to start unsigned otherwise
                '[rpc]\nallow_unsigned = true\n'
                '[api]\nauth_strategy = noauth2\nplacement_port = %d\n'
                'baremetal_port = %d\nworkers = %d\nthreads = 4\nserver = %s\n'
                % (state, os.path.join(state, 'berth.sqlite'),
                   os.path.join(state, 'coord'), port, bm_port, workers,
                   # BERTH_BENCH_API_SERVER=gunicorn: the same runs on gunicorn
                   os.environ.get('BERTH_BENCH_API_SERVER', 'builtin')))
    return path


def _get(port, path):
    req = urllib.request.Request('http://127.0.0.1:%d%s' % (port, path), headers=HEADERS)
    with urllib.request.urlopen(req, timeout=600) as rsp:
        return rsp.read()


def cpu_s(pid):
    with open('/proc/%d/stat' % pid) as f:
        stat = f.read()
    utime, stime = stat[stat.rindex(')') + 2:].split()[11:13]
    return (int(utime) + int(stime)) / os.sysconf('SC_CLK_TCK')


def _search_every_worker(port, pids, searches, most=200):
    """At least ``searches`` distinct searches, and on until each of ``pids`` ran one.

    The kernel hands connections to whichever worker accepts first (often the
    same one); the worker that ran a search is the one whose CPU time grew.
    Distinct amounts (no fit either way) keep the answer cache out of it.
    """
    served: set[int] = set()
    for i in range(most):
        if i >= searches and served >= set(pids):
            return
        before = {pid: cpu_s(pid) for pid in pids}
        _get(port, SEARCH + str(i))
        grown = {pid: cpu_s(pid) - t for pid, t in before.items()}
        served.add(max(grown, key=lambda pid: grown[pid]))
    raise RuntimeError('%d searches reached only workers %s of %s' % (most, served, pids))


def run(state, workers, searches):
    from tests import services

    port, bm_port = services.free_port(), services.free_port()
    argv = [os.path.join(os.path.dirname(sys.executable), 'berth-api'),
            '--config-file', _config(state, port, bm_port, workers)]
    log = open(os.path.join(state, 'api-%d.log' % workers), 'w+')
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    try:
        while True:
            try:
                _get(port, '/')
                break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - t0 > 600:
                    log.seek(0)
                    raise RuntimeError('berth-api did not start:\n' + log.read()[-3000:])
                time.sleep(0.2)
        listening = time.perf_counter() - t0
        if workers > 1:     # every worker up (each prints its trust-mode warning)
            while len(re.findall(r'RPC client trust mode', open(log.name).read())) < workers:
                time.sleep(0.2)
        ready = time.perf_counter() - t0
        pss_ready = {pid: pss_kb(pid) for pid in [proc.pid, *children(proc.pid)]}
        _search_every_worker(port, children(proc.pid) or [proc.pid], searches)
        pids = [proc.pid, *children(proc.pid)]
        pss = {pid: pss_kb(pid) for pid in pids}
        return {'workers': workers, 'listening_s': round(listening, 1),
                'ready_s': round(ready, 1),
                'pss_mb_ready': round(sum(pss_ready.values()) / 1024.0, 1),
                'pss_mb': round(sum(pss.values()) / 1024.0, 1),
                'pss_mb_by_pid': {str(p): round(v / 1024.0, 1) for p, v in pss.items()}}
    finally:
        proc.terminate()
        proc.wait(120)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=100000, help='computes')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--searches', type=int, default=8,
                        help='unlimited searches per run (spread over the workers)')
    args = parser.parse_args(argv)
    state = placeload.load_state(args.n, state=tempfile.mkdtemp(prefix='berth-bench-workers-'))
    rows = []
    for workers in (1, args.workers):
        row = run(state, workers, args.searches)
        print('workers=%(workers)d ready %(ready_s)ss  PSS at ready %(pss_mb_ready)s MB, '
              'after the searches %(pss_mb)s MB' % row, flush=True)
        rows.append(row)
    ratio = rows[1]['pss_mb'] / rows[0]['pss_mb']
    print(json.dumps({'n': args.n, 'runs': rows, 'pss_ratio': round(ratio, 2)}))


if __name__ == '__main__':
    main()
