"""Candidate queries while claims run: the region's distinct queries beside writes.

bench/region.py measures distinct ``GET /allocation_candidates`` on a quiet
server; a scheduler's server is never quiet.  This bench loads the same
topology (bench/region.py's: placeload, nested trees), starts ``berth
serve`` in its own process and then, on that one server:

1. *distinct*: every shape's distinct queries alone (bench/region.measure);
2. *claims alone*: a closed loop of ``--workers`` claim clients (each sends
   its next ``PUT /allocations/{new consumer}``, 1.38, ``VCPU: 1`` on a
   random VCPU provider, when its last one was answered) for
   ``--claim-seconds``: claims/s and the server's CPU per claim;
3. *mixed*: the same claim loop keeps running while every shape's distinct
   queries are asked again (one query client, closed loop too).

Server CPU per returned candidate in the mixed phase is given twice:
*gross* (the server process's CPU over the shape's requests, the claims'
share included) and *net* (less the claims answered meanwhile times phase
2's CPU per claim): the targets are judged on the net figure.  The claim
clients run in a process of their own (bench/claims.Client, plain
http.client).

    .venv/bin/python -m bench.mixed --n 10000 --db sqlite --workers 4

Last line: JSON (bench/report.py's ``mixed`` experiment draws it beside
the region's distinct rows).

Recorded 2026-11-27 20:13-20:15 UTC (``bench.report --only region,mixed
--region``, N=10,000, 4 claim clients, load average 3.2-7.2; results in
bench/results/mixed.json, table in doc/source/benchmarks-history.md), p50 / p95 ms and
net server CPU us per candidate, quiet (distinct) -> claims running:

    shape          db          quiet                    mixed
    limit=50       sqlite      1.3 / 2.2                17.0 / 36.5 (p95/p50 2.15)
    limit=50       postgresql  1.17 / 1.47              69.3 / 103.1
    no limit       sqlite      160 / 255, 6.1 us        436 / 635, 11.8 us
    no limit       postgresql  145 / 192, 6.2 us        482 / 663, 11.6 us
    required=SSD   sqlite      34.8 / 47.4, 8.4 us      228 / 296, 28.9 us
    required=SSD   postgresql  37.3 / 61.9, 9.2 us      208 / 345, 29.3 us

Claims alone 223 (SQLite) / 162 (PostgreSQL) granted/s at 4.1 / 4.6 ms of
server CPU each; 93 / 64 per second while the queries ran.  Both targets
hold on the quiet rows and five of six mixed rows miss one: each claim
changes a provider the queries walk, so the next query rebuilds what it
reuses when the server is quiet (most likely; the *cold* rows of bench/candidates.py
are the extreme: a write before every query).  Not measured further yet.
"""

import argparse
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
import uuid as uuidlib

from bench import candidates_servers as servers
from bench import claims as claims_bench
from bench import host_speed, placeload, region, serve_process

SHAPES = ('limit=50', 'no limit', 'required=SSD')
ALONE, MIXED, STOP, WARM = 0, 1, 2, 3


def vcpu_providers(port):
    """Every provider with VCPU inventory (roots of flat computes, NUMA children)."""
    client = servers.Client('127.0.0.1', port, version='1.14')
    status, body = client.call('GET', '/resource_providers?resources=VCPU:1')
    if status != 200:
        raise RuntimeError('listing providers: %s %s' % (status, body[:300]))
    return [rp['uuid'] for rp in json.loads(body)['resource_providers']]


def _claim_loop(client, targets, phase, granted, out):
    """One closed-loop claim client: claim, wait for the answer, claim again."""
    while phase.value != STOP:
        which = phase.value
        body = {'allocations': {random.choice(targets): {'resources': {'VCPU': 1}}},
                'project_id': 'bench', 'user_id': 'bench', 'consumer_generation': None,
                'consumer_type': 'INSTANCE'}
        t0 = time.perf_counter()
        resp = client.call('PUT', '/allocations/%s' % uuidlib.uuid4(), body)
        out.append((which, resp.status_code, time.perf_counter() - t0))
        if resp.status_code == 204:
            with granted.get_lock():
                granted.value += 1


def claimer(url, targets, workers, phase, granted, answered, pipe):
    """The claim clients' process: ``workers`` threads until ``phase`` is STOP."""
    import threading
    client = claims_bench.Client(url, 'admin')
    out: list = []
    threads = [threading.Thread(target=_claim_loop,
                                args=(client, targets, phase, granted, out))
               for _ in range(workers)]
    for t in threads:
        t.start()
    while phase.value != STOP:
        answered.value = len(out)
        time.sleep(0.01)
    for t in threads:
        t.join()
    pipe.send(out)
    pipe.close()


def claim_stats(out, which, seconds):
    """Claims/s (granted), p50/p95/p99 and the refusals of one phase's claims."""
    mine = [o for o in out if o[0] == which]
    times = [o[2] * 1000 for o in mine]
    granted = sum(1 for o in mine if o[1] == 204)
    return {'claims': len(mine), 'granted': granted,
            'claims_per_s': round(granted / seconds, 1) if seconds else None,
            'p50_ms': round(claims_bench._percentile(times, 50), 1) if times else None,
            'p95_ms': round(claims_bench._percentile(times, 95), 1) if times else None,
            'p99_ms': round(claims_bench._percentile(times, 99), 1) if times else None,
            'refused': len(mine) - granted, 'seconds': round(seconds, 1)}


def mixed_shape(serve, shape, args, start, answered, cpu_per_claim):
    """One shape's distinct queries with the claims running; net CPU per candidate."""
    a0, c0, t0 = answered.value, serve.cpu(), time.perf_counter()
    v = region.measure(serve, shape, args.requests, start, args.shape_seconds,
                       args.most_requests)
    seconds, cpu = time.perf_counter() - t0, serve.cpu() - c0
    claims = answered.value - a0
    net = max(0.0, cpu - claims * cpu_per_claim / 1000.0)
    v['claims_meanwhile'] = claims
    v['claims_per_s_meanwhile'] = round(claims / seconds, 1)
    v['net_cpu_ms'] = round(net * 1000 / v['requests'], 2)
    if shape not in region.LIMITED and v['candidates']:
        v['net_cpu_us_per_candidate'] = round(net * 1e6 / v['requests'] / v['candidates'], 2)
    return v


def run(args):
    pg = servers.Postgres() if args.db == 'postgresql' else None
    connection = pg.new_database('mixed_n%d' % args.n) if pg else None
    state = tempfile.mkdtemp(prefix='berth-bench-mixed-')
    log = open(os.path.join(state, 'serve.log'), 'w')
    row = {'N': args.n, 'db': args.db, 'nested': True, 'host_reference_ms':
           [host_speed.reference_ms()],
           'load': {'query_clients': 1, 'claim_clients': args.workers,
                    'loop': 'closed', 'mix': 'one query client, %d claim clients'
                    % args.workers}}
    serve = proc = None
    ctx = multiprocessing.get_context('spawn')
    phase = ctx.Value('i', WARM)
    try:
        placeload.load_state(args.n, connection, state=state, nested=True)
        serve = serve_process.Serve(state, connection, log)
        targets = vcpu_providers(serve.port)
        row['shapes'], start = {}, 1
        for shape in args.shapes:
            serve.client = servers.Client('127.0.0.1', serve.port)
            row['shapes'][shape] = {'distinct': region.measure(
                serve, shape, args.requests, start, args.shape_seconds, args.most_requests)}
            start += row['shapes'][shape]['distinct']['requests']
        granted, answered = ctx.Value('i', 0), ctx.Value('i', 0)
        receiver, sender = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=claimer, args=('http://127.0.0.1:%d' % serve.port, targets,
                                                 args.workers, phase, granted, answered,
                                                 sender))
        proc.start()
        sender.close()
        time.sleep(1.0)                         # the clients connected, warm
        phase.value = ALONE
        a0, c0, t0 = answered.value, serve.cpu(), time.perf_counter()
        time.sleep(args.claim_seconds)
        alone_s = time.perf_counter() - t0
        cpu_per_claim = (serve.cpu() - c0) * 1000 / max(1, answered.value - a0)
        row['claims_alone'] = {'cpu_ms_per_claim': round(cpu_per_claim, 3)}
        phase.value = MIXED
        t0 = time.perf_counter()
        for shape in args.shapes:
            serve.client = servers.Client('127.0.0.1', serve.port)
            got = mixed_shape(serve, shape, args, start, answered, cpu_per_claim)
            row['shapes'][shape]['mixed'] = got
            start += got['requests']
            print(shape, json.dumps(row['shapes'][shape]), file=sys.stderr, flush=True)
        mixed_s = time.perf_counter() - t0
        phase.value = STOP
        out = receiver.recv()
        proc.join()
        row['claims_alone'].update(claim_stats(out, ALONE, alone_s))
        row['claims_mixed'] = claim_stats(out, MIXED, mixed_s)
        row['load']['requests'] = {'queries': sum(
            v['distinct']['requests'] + v['mixed']['requests'] for v in row['shapes'].values()),
            'claims': len(out)}
        row['memory'] = serve.memory()
        row['loadavg'] = [round(x, 2) for x in os.getloadavg()]
        row['host_reference_ms'].append(host_speed.reference_ms())
    finally:
        phase.value = STOP
        if proc is not None and proc.is_alive():
            proc.join(timeout=60)
        if serve is not None:
            serve.stop()
        log.close()
        if pg is not None:
            pg.stop()
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=10000, help='computes')
    parser.add_argument('--db', default='sqlite', choices=('sqlite', 'postgresql'))
    parser.add_argument('--workers', type=int, default=4,
                        help='closed-loop claim clients (the write load)')
    parser.add_argument('--requests', type=int, default=50,
                        help='distinct queries per shape and phase, at least')
    parser.add_argument('--shape-seconds', type=float, default=2.0,
                        help='then more queries until a shape has run this long')
    parser.add_argument('--most-requests', type=int, default=200)
    parser.add_argument('--claim-seconds', type=float, default=3.0,
                        help='claims alone (their CPU per claim) before the mixed phase')
    parser.add_argument('--shapes', type=lambda v: v.split(','), default=list(SHAPES))
    args = parser.parse_args(argv)
    unknown = set(args.shapes) - {s for s, _ in region.SHAPES} - set(region.LIMITED)
    if unknown:
        parser.error('unknown shapes: %s' % ', '.join(sorted(unknown)))
    load_before = [round(x, 2) for x in os.getloadavg()]
    row = run(args)
    row['load_before'] = load_before
    print(json.dumps({'benchmark': 'mixed', 'cpus': os.cpu_count(), 'results': [row]},
                     sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
