"""The floor under a claim: oslo.messaging calls on RabbitMQ with no berth code behind them.

Issue 20 asks for <= 2.5 ms of CPU per claim summed over every process
(API, conductors, RabbitMQ, PostgreSQL, clients) on RabbitMQ + PostgreSQL
with 3 conductors.  A claim is one HTTP request to berth-api and a share of
one RPC call to a conductor (RPC 1.9 coalesces ~1.9 claims per call at 10
clients).  This measures what the call alone costs with berth's transport
settings (common.rpc: its transport options, its context serializer, the
API's slower reply polls) and nothing else: ``--servers`` RPC server
processes with an endpoint that returns at once, ``--callers`` threads in
one calling process (as berth-api's request threads share one transport),
each call carrying ``--claims`` claims' worth of arguments (the consumers
of ``claim_resources_many``) to a server chosen round-robin.  CPU (user +
system, /proc) per call of the calling process, the servers and RabbitMQ
(the broker's whole process tree).

    .venv/bin/python -W ignore -m bench.rpc_floor [--servers 3] [--callers 10]
        [--calls 4000] [--claims 2]

``--server-polls S`` starts the servers' empty-poll timeout at S seconds
(default common.rpc.POLL_MIN, as berth-conductor; 0 keeps oslo.messaging's
1 ms).
Prints a table and a final JSON line.

Recorded 2026-11-26 19:16-19:19 UTC on main 7192c50 (shared 2-CPU VM, load
average 0.5-1.7; bench/results/rpc_floor.log), 3000 calls a run, CPU ms
per call (caller / servers / RabbitMQ = total) and per claim:

    claims per call  server polls  calls/s  p50/p95 ms   per call                    per claim
    1                0.25 s        697.2    13.1 / 27.3  0.91 / 1.18 / 0.51 = 2.60   2.60
    2                0.25 s        865.5    10.5 / 22.6  0.72 / 0.90 / 0.41 = 2.03   1.02
    4                0.25 s        839.6    10.8 / 22.2  0.81 / 0.92 / 0.42 = 2.15   0.54
    2                1 ms (oslo)   713.6    12.5 / 27.7  0.83 / 1.30 / 0.49 = 2.61   1.31
    2                0.25 s        725.4    12.6 / 25.2  0.88 / 1.14 / 0.48 = 2.50   1.25
    2                1 ms (oslo)   699.3    13.0 / 27.3  0.85 / 1.29 / 0.49 = 2.63   1.32
    2                0.25 s        802.6    11.3 / 22.5  0.80 / 0.98 / 0.44 = 2.22   1.11

A call costs ~2-2.6 ms of CPU over the three processes whatever it
carries, so the messaging share of a claim is that divided by the claims
per call: ~1.0-1.3 ms at the ~1.9 berth-api's coalescing reaches with 10
clients and 3 conductors, half of issue 20's 2.5 ms per claim before HTTP,
PostgreSQL and any berth code.  The slower listener polls take 0.15-0.3 ms
off the servers' CPU per call (the A/B rows, run alternately).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO
import uuid as uuidlib

from common import rpc

TOPIC = 'berth-rpc-floor'


def _conf(state):
    from common.conf import builder

    return builder.build(config_files=[], overrides={'state_path': state})


def claims_payload(count):
    """``claim_resources_many``'s arguments for ``count`` new consumers (one compute each)."""
    project, user = str(uuidlib.uuid4()), str(uuidlib.uuid4())
    return [{'tree': str(uuidlib.uuid4()), 'consumers': [{
        'uuid': str(uuidlib.uuid4()), 'project_id': project, 'user_id': user,
        'consumer_generation': None, 'consumer_type': None,
        'allocations': {str(uuidlib.uuid4()): {
            'resources': {'VCPU': 1, 'MEMORY_MB': 128, 'DISK_GB': 5}}}}]}
        for _ in range(count)]


class Endpoint:
    """Answers every call at once with one None per claim (a batch all written)."""

    def claim_resources_many(self, ctx, claims):
        return [None] * len(claims)


def serve(url, host, state, polls=None):
    """Run one RPC server until SIGTERM (the server processes' main)."""
    import signal

    import oslo_messaging as messaging
    from oslo_messaging._drivers import amqpdriver

    if polls:
        amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN = polls

    conf = _conf(state)
    transport = rpc.get_transport(conf, url=url)
    server = messaging.get_rpc_server(
        transport, messaging.Target(topic=TOPIC, server=host), [Endpoint()],
        serializer=rpc.RequestContextSerializer())
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    print('ready', flush=True)
    stop.wait()
    server.stop()
    server.wait()
    transport.cleanup()


def call(url, servers, callers, calls, claims, state):
    """Make ``calls`` calls from ``callers`` threads; print their latencies as JSON."""
    import oslo_messaging as messaging

    from common import context as berth_context

    rpc.slow_amqp_polls()               # as berth-api does
    conf = _conf(state)
    transport = rpc.get_transport(conf, url=url)
    client = messaging.get_rpc_client(transport, messaging.Target(topic=TOPIC),
                                      serializer=rpc.RequestContextSerializer(),
                                      timeout=30)
    hosts = ['floor-%d' % i for i in range(servers)]
    preps = [client.prepare(server=h) for h in hosts]
    ctx = berth_context.RequestContext(user_id=str(uuidlib.uuid4()),
                                       project_id=str(uuidlib.uuid4()),
                                       roles=['admin', 'member', 'reader'])
    for prep in preps:                 # reply queue and connections made
        prep.call(ctx, 'claim_resources_many', claims=claims_payload(claims))
    print('warm', flush=True)
    sys.stdin.readline()                 # the parent reads CPU, then says go
    counter = iter(range(calls))
    lock = threading.Lock()
    times = []

    def worker():
        mine = []
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                break
            payload = claims_payload(claims)
            t = time.perf_counter()
            preps[i % servers].call(ctx, 'claim_resources_many', claims=payload)
            mine.append((time.perf_counter() - t) * 1000)
        with lock:
            times.extend(mine)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    print(json.dumps({'wall_s': wall, 'times': times}), flush=True)
    sys.stdin.readline()
    transport.cleanup()


def _pipe(stream: IO[str] | None) -> IO[str]:
    """A child's stdin or stdout, opened with subprocess.PIPE."""
    if stream is None:
        raise RuntimeError('the child process has no pipe')
    return stream


def run(args):
    from bench import candidates, cluster
    from bench import claims as bench_claims
    from tests import services

    missing = services.RabbitMQ.missing()
    if missing:
        raise SystemExit('RabbitMQ is not installed (missing %s)' % ', '.join(missing))
    workdir = tempfile.mkdtemp(prefix='berth-bench-rpc-floor-')
    rabbit = services.RabbitMQ(workdir).start()
    me = [sys.executable, '-W', 'ignore', '-m', 'bench.rpc_floor']
    procs = []
    try:
        for i in range(args.servers):
            with open(os.path.join(workdir, 'server-%d.log' % i), 'w') as log:
                proc = subprocess.Popen(
                    me + ['--serve', rabbit.url, '--host', 'floor-%d' % i,
                          '--server-polls', str(args.server_polls),
                          '--state', os.path.join(workdir, 's%d' % i)],
                    stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
            procs.append(proc)
            if _pipe(proc.stdout).readline().strip() != 'ready':
                raise RuntimeError('RPC server %d did not start (see %s)' % (i, log.name))
        with open(os.path.join(workdir, 'caller.log'), 'w') as log:
            caller = subprocess.Popen(
                me + ['--call', rabbit.url, '--servers', str(args.servers),
                      '--callers', str(args.callers), '--calls', str(args.calls),
                      '--claims', str(args.claims), '--state', os.path.join(workdir, 'c')],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                start_new_session=True)
        procs.append(caller)
        to_caller, from_caller = _pipe(caller.stdin), _pipe(caller.stdout)
        if from_caller.readline().strip() != 'warm':
            raise RuntimeError('the caller did not start (see %s/caller.log)' % workdir)

        def cpu():
            return {'caller': cluster.cpu_seconds(caller.pid),
                    'servers': sum(cluster.cpu_seconds(p.pid) for p in procs[:-1]),
                    'rabbitmq': bench_claims.tree_cpu(rabbit.proc.pid)}

        load_before = os.getloadavg()[0]
        before = cpu()
        to_caller.write('go\n')
        to_caller.flush()
        result = json.loads(from_caller.readline())
        after = cpu()
        to_caller.write('done\n')
        to_caller.flush()
        caller.wait(60)
    finally:
        for proc in procs:
            cluster._stop_process(proc)
        rabbit.stop()
    calls, times = args.calls, result['times']
    per_call = {k: round((after[k] - before[k]) * 1000 / calls, 3) for k in after}
    per_call['total'] = round(sum(per_call.values()), 3)
    return {'servers': args.servers, 'callers': args.callers, 'calls': calls,
            'claims_per_call': args.claims,
            'calls_per_s': round(calls / result['wall_s'], 1),
            'p50_ms': round(statistics.median(times), 2),
            'p95_ms': round(candidates._pct(times, 95), 2), 'p99_ms': round(candidates._pct(times, 99), 2),
            'cpu_ms_per_call': per_call,
            'cpu_ms_per_claim': {k: round(v / args.claims, 3) for k, v in per_call.items()},
            'load_avg': [round(load_before, 2), round(os.getloadavg()[0], 2)]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--servers', type=int, default=3, help='RPC server processes')
    parser.add_argument('--callers', type=int, default=10, help='calling threads')
    parser.add_argument('--calls', type=int, default=4000)
    parser.add_argument('--claims', type=int, default=2, help='claims carried per call')
    parser.add_argument('--server-polls', type=float, default=rpc.POLL_MIN,
                        help="the servers' first poll timeout, s (default berth-conductor's; "
                             "0: oslo.messaging's 1 ms)")
    parser.add_argument('--serve', metavar='URL', help=argparse.SUPPRESS)
    parser.add_argument('--call', metavar='URL', help=argparse.SUPPRESS)
    parser.add_argument('--host', help=argparse.SUPPRESS)
    parser.add_argument('--state', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve, args.host, args.state, args.server_polls)
    if args.call:
        return call(args.call, args.servers, args.callers, args.calls, args.claims,
                    args.state)
    row = run(args)
    print('%-8s %-8s %-7s %-7s %-8s %-7s %-7s | cpu ms per call: %-7s %-8s %-8s %-7s' % (
        'servers', 'callers', 'claims', 'calls', 'calls/s', 'p50 ms', 'p95 ms',
        'caller', 'servers', 'rabbit', 'total'))
    c = row['cpu_ms_per_call']
    print('%-8d %-8d %-7d %-7d %-8.1f %-7.2f %-7.2f | %16.3f %-8.3f %-8.3f %-7.3f' % (
        row['servers'], row['callers'], row['claims_per_call'], row['calls'],
        row['calls_per_s'], row['p50_ms'], row['p95_ms'], c['caller'], c['servers'],
        c['rabbitmq'], c['total']))
    print('per claim (%d per call): %s' % (row['claims_per_call'],
                                           json.dumps(row['cpu_ms_per_claim'])))
    print(json.dumps(row, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
