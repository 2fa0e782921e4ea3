"""Two checkouts' candidate search side by side, in-process, request by request.

For a change to the candidate path: berth's code from two trees (``--base``,
e.g. a ``git archive`` of main, and ``--new``, default this checkout), each
in a process of its own serving the Placement WSGI app in-process (no HTTP
server, no client in the figures) on one placeload database (bench/
placeload.py; SQLite at ``STATE/berth.sqlite``, or ``--connection``).  Every
request is a query never asked before (distinct MEMORY_MB/DISK_GB amounts,
what a scheduler sends: no answer cache hit), sent to both processes one
after the other, the order alternating, so load on a shared host hits both
alike.  Both answers must be byte-identical (their sizes and digests are
compared; a difference is counted and printed).  Prints, per shape, p50/p95
wall ms, p25/p50 CPU ms of the serving process, and CPU µs per candidate.

    python -m bench.placeload 1000 /tmp/pl1000
    git archive main | tar -x -C /tmp/base
    python -m bench.candidates_ab --base /tmp/base --state /tmp/pl1000 --computes 1000
"""

import argparse
import collections
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import time

SHAPES = ['', '&limit=1000', '&limit=50', '&required=STORAGE_DISK_SSD']
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _environ(query):
    return {'REQUEST_METHOD': 'GET', 'PATH_INFO': '/allocation_candidates',
            'QUERY_STRING': query, 'SERVER_NAME': '127.0.0.1', 'SERVER_PORT': '8778',
            'REMOTE_ADDR': '127.0.0.1', 'wsgi.url_scheme': 'http',
            'wsgi.input': io.BytesIO(b''), 'wsgi.errors': sys.stderr,
            'SERVER_PROTOCOL': 'HTTP/1.1', 'HTTP_X_AUTH_TOKEN': 'admin',
            'HTTP_ACCEPT': 'application/json',
            'HTTP_OPENSTACK_API_VERSION': 'placement 1.39'}


def serve(state, connection):
    """The worker: one query per stdin line, its timing and digest per stdout line."""
    from api.placement import app as placement_app
    from bench import placeload
    from objects import database

    conf = placeload.conf_for(state, connection)
    app = placement_app.loadapp(conf, database.open_database(conf), conductor=None)
    print('ready', flush=True)
    for line in sys.stdin:
        status = []
        wall, cpu = time.perf_counter(), time.process_time()
        body = b''.join(app(_environ(json.loads(line)),
                            lambda s, h, exc_info=None: status.append(s)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(json.dumps([wall * 1e3, cpu * 1e3, body.count(b'"allocations"'),
                          status[0], len(body), hashlib.sha1(body).hexdigest()]), flush=True)


def _pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def _pipes(proc):
    """(stdin, stdout) of a worker started with both piped."""
    if proc.stdin is None or proc.stdout is None:
        raise RuntimeError('a worker without pipes')
    return proc.stdin, proc.stdout


def compare(args):
    procs = {}
    for side, tree in (('base', args.base), ('new', args.new)):
        # this file, run by path: the tree compared against need not have it
        cmd = [sys.executable, os.path.abspath(__file__), '--worker', '--state', args.state]
        if args.connection:
            cmd += ['--connection', args.connection]
        procs[side] = subprocess.Popen(cmd, cwd=tree, env=dict(os.environ, PYTHONPATH=tree),
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True)
    pipes = {side: _pipes(proc) for side, proc in procs.items()}
    for side, (_, out) in pipes.items():
        if out.readline().strip() != 'ready':
            raise RuntimeError('the %s worker did not start' % side)
    rng = random.Random(args.seed)
    pairs = [(m, d) for m in range(128, 4096) for d in range(5, 60)]
    rng.shuffle(pairs)
    amounts = iter(pairs)
    found: dict = collections.defaultdict(lambda: collections.defaultdict(list))
    differ = 0
    for i in range(args.warmup + args.requests):
        for shape in args.shapes:
            query = 'resources=VCPU:1,MEMORY_MB:%d,DISK_GB:%d' % next(amounts) + shape
            got = {}
            for side in (('base', 'new') if i % 2 == 0 else ('new', 'base')):
                into, out = pipes[side]
                into.write(json.dumps(query) + '\n')
                into.flush()
                got[side] = json.loads(out.readline())
            if got['base'][2:] != got['new'][2:]:
                differ += 1
                print('answers differ: %s' % query, file=sys.stderr)
            if i >= args.warmup:
                for side, row in got.items():
                    found[shape][side].append(row)
    for side, proc in procs.items():
        pipes[side][0].close()
        proc.wait()
    print('load average %.2f %.2f %.2f; answers that differ: %d' % (os.getloadavg() + (differ,)))
    for shape, sides in found.items():
        for side in ('base', 'new'):
            rows = sides[side]
            wall, cpu = [r[0] for r in rows], [r[1] for r in rows]
            n = rows[-1][2]
            print('%-28s %-4s n=%-6d p50 %7.2f p95 %7.2f ms  cpu p25 %7.2f p50 %7.2f ms  '
                  '%6.2f us/candidate' % (
                      shape.lstrip('&') or 'no limit', side, n, _pct(wall, 50), _pct(wall, 95),
                      _pct(cpu, 25), _pct(cpu, 50), _pct(cpu, 50) * 1e3 / max(n, 1)))
    return 1 if differ else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--state', required=True, help='a bench.placeload data directory')
    parser.add_argument('--connection', default=None, help='its server database, if any')
    parser.add_argument('--base', help='the tree to compare against')
    parser.add_argument('--new', default=ROOT)
    parser.add_argument('--requests', type=int, default=150, help='per shape and side')
    parser.add_argument('--warmup', type=int, default=10)
    parser.add_argument('--shapes', type=lambda s: s.split('|'), default=SHAPES,
                        help="'|'-separated query tails ('' is no limit)")
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        # berth's code from PYTHONPATH (the tree compared), not beside this file
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != here]
        serve(args.state, args.connection)
        return 0
    if not args.base:
        parser.error('--base is required')
    return compare(args)


if __name__ == '__main__':
    sys.exit(main())
