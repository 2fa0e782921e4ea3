"""A restart's first full answer at N computes: its wall time and where its CPU goes.

bench/region.py times *ready* (the first unlimited ``GET
/allocation_candidates`` answered after ``berth serve`` starts) once per
run, after loading a fresh database.  This reuses one state directory (made
once with ``--n``, kept with ``--state``) so restarts can be compared cheaply,
before and after a change (``PYTHONPATH`` picks the code):

* default: ``berth serve`` on the state directory, timed to listening, to
  the first ``limit=50`` answer and to the first full answer, with the
  server's CPU seconds for that answer and the answer's size;
* ``--phases``: the same first answer in this process, split into the
  index load, the search, the provider summaries and the encoding (CPU
  seconds of each, and an md5 of the body: equal bodies before and after).

    .venv/bin/python -m bench.region_ready --n 100000 --state /tmp/r100k
    .venv/bin/python -m bench.region_ready --state /tmp/r100k --phases

Run it under the benchmark lock on a shared machine.  One JSON line.
"""

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from bench import candidates, placeload, serve_process
from bench import candidates_servers as servers

_LOG = 'serve.log'


def phases(state):
    """{phase: CPU seconds}, the body's size and md5: the first full answer in process."""
    from common import context, heap
    from objects import database
    from objects.candidates import finder, preload, wire
    from objects.candidates import request as request_mod

    heap.cap_malloc_arenas()
    db = database.open_database(placeload.conf_for(state))
    out = {}
    clock = [time.process_time()]

    def tick(name):
        now = time.process_time()
        out[name] = round(now - clock[0], 3)
        clock[0] = now

    preload.load_index(db)
    tick('index_load_s')
    request = request_mod.ResourceRequest(groups=[request_mod.RequestGroup(
        resources={'VCPU': 1, 'MEMORY_MB': 256, 'DISK_GB': 10})])   # resources(0)'s
    digest, size = hashlib.md5(), 0
    with heap.collection_paused():
        result = finder.get_candidates(context.admin_context(db), request, finder.Options(),
                                       may_lag=True)
        tick('search_s')
        summaries = result.summary_pieces()
        tick('summaries_s')
        found = list(result.candidates)
        del result
        body = wire.Streamed(found, wire.MAPPINGS, summaries)
        del found, summaries
        for chunk in body.chunks(64 * 1024):
            size += len(chunk)
            digest.update(chunk)
        tick('encode_s')
    db.dispose()
    return {'cpu': out, 'bytes': size, 'md5': digest.hexdigest()}


def restart(state):
    """Times of one ``berth serve`` start on ``state`` to its first full answer.

    As serve_process.Serve times them, plus the server's CPU seconds for
    the first full answer alone (the index load, the search, the encoding).
    """
    from tests import services

    port = services.free_port()
    argv = [os.path.join(os.path.dirname(sys.executable), 'berth'), 'serve',
            '--data-dir', state, '--placement-port', str(port),
            '--baremetal-port', str(services.free_port())]
    times = {}
    with open(os.path.join(state, _LOG), 'a') as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            client = None
            while client is None:
                if proc.poll() is not None:
                    raise RuntimeError('berth serve exited %s' % proc.returncode)
                try:
                    client = servers.Client('127.0.0.1', port)
                    client.call('GET', '/')
                except OSError:
                    client = None
                    time.sleep(0.05)
            times['listening_s'] = round(time.perf_counter() - t0, 2)
            client.get(candidates.resources(0) + '&limit=50')
            times['limited_ready_s'] = round(time.perf_counter() - t0, 2)
            began = serve_process.cpu_seconds(proc.pid)
            body = client.get(candidates.resources(0))
            times['ready_s'] = round(time.perf_counter() - t0, 2)
            times['first_full_answer_cpu_s'] = round(
                serve_process.cpu_seconds(proc.pid) - began, 3)
            times['bytes'] = len(body)
            del body
            times['memory'] = serve_process.memory(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait()
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=None,
                        help='computes: load a fresh state directory first (nested)')
    parser.add_argument('--state', default=None, help='the state directory (kept)')
    parser.add_argument('--phases', action='store_true',
                        help='in process: CPU per phase of the first full answer')
    args = parser.parse_args(argv)
    if args.n is None and args.state is None:
        parser.error('give --n (a new state directory) or --state (an existing one)')
    state = args.state or tempfile.mkdtemp(prefix='berth-bench-ready-')
    row = {'state': state, 'load_before': [round(x, 2) for x in os.getloadavg()]}
    if args.n is not None:
        t = time.perf_counter()
        placeload.load_state(args.n, None, state=state, nested=True)
        row['N'], row['load_s'] = args.n, round(time.perf_counter() - t, 1)
    row['phases' if args.phases else 'restart'] = (phases(state) if args.phases
                                                   else restart(state))
    row['load_after'] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(row, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
