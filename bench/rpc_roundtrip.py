"""RPC round trip of ConductorAPI.ping and hash-ring settle times.

Transports: the embedded ``kombu+memory`` (conductor in this process) and, when
RabbitMQ is installed, a real broker started on a free loopback port with a
``berth-conductor`` process behind it (etcd for tooz when installed, else the
file backend).  Ring settle: how long until a reader's ring shows a new
conductor, and how long until it drops one killed with SIGKILL (tooz timeout 5 s).
Prints a table and a final JSON line.

    .venv/bin/python -m bench.rpc_roundtrip [--calls 1000] [--no-rabbit]
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from common import context as berth_context
from common import rpc
from common.conf import builder
from conductor import rpcapi
from conductor import service as conductor_service
from tests import services

TOOZ_TIMEOUT = 5


def _conf(state, **overrides):
    overrides = {k.removeprefix('DEFAULT.'): v for k, v in overrides.items()}
    return builder.build(config_files=[], overrides={
        'state_path': state, 'coordination.watch_interval': 0.2, **overrides})


def _measure(api, calls):
    ctx = berth_context.admin_context()
    api.ping(ctx, 'warm-up')
    samples = []
    for i in range(calls):
        t = time.perf_counter()
        api.ping(ctx, 'key-%d' % i)
        samples.append((time.perf_counter() - t) * 1e3)
    samples.sort()
    return {'calls': calls, 'median_ms': round(statistics.median(samples), 2),
            'p95_ms': round(samples[int(calls * 0.95)], 2),
            'p99_ms': round(samples[int(calls * 0.99)], 2)}


def _wait(predicate, deadline=120):
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > deadline:
            raise RuntimeError('timed out')
        time.sleep(0.02)
    return round(time.monotonic() - start, 2)


def bench_memory(calls, workdir):
    conf = _conf(os.path.join(workdir, 'memory'))
    transport = rpc.get_transport(conf, url=rpc.EMBEDDED_TRANSPORT_URL)
    svc = conductor_service.ConductorService(conf, 'bench-c0', None, transport).start()
    api = rpcapi.APIConductorClient(conf, transport=transport)
    try:
        return _measure(api, calls)
    finally:
        api.stop()
        svc.stop(grace=0)
        transport.cleanup()


def bench_rabbit(calls, workdir):
    rabbit = services.RabbitMQ(workdir).start()
    coord = services.Etcd(workdir) if not services.Etcd.missing() else None
    procs = []
    try:
        if coord is not None:
            coord.start()
            backend = coord.url(TOOZ_TIMEOUT)
        else:
            backend = 'file://%s?timeout=%d' % (os.path.join(workdir, 'coord'),
                                                TOOZ_TIMEOUT)
        config = os.path.join(workdir, 'berth.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\ntransport_url = %s\nstate_path = %s\n'
                    '[coordination]\nbackend_url = %s\nwatch_interval = 0.2\n'
                    % (rabbit.url, workdir, backend) + services.RPC_CONF)
        conf = _conf(os.path.join(workdir, 'client'))
        conf(['--config-file', config], project='berth', default_config_files=[])
        conf.set_override('watch_interval', 0.2, group='coordination')
        api = rpcapi.APIConductorClient(conf)
        exe = os.path.join(os.path.dirname(sys.executable), 'berth-conductor')

        def start(host):
            host_conf = os.path.join(workdir, host + '.conf')
            with open(host_conf, 'w') as f:
                f.write('[DEFAULT]\nhost = %s\n' % host)
            log = open(os.path.join(workdir, host + '.log'), 'ab')
            procs.append(subprocess.Popen([exe, '--config-file', config,
                                           '--config-file', host_conf],
                                          stdout=log, stderr=subprocess.STDOUT,
                                          start_new_session=True))
            log.close()
            return procs[-1]

        started = time.monotonic()
        start('bench-r0')
        _wait(lambda: 'bench-r0' in api.ring.members())
        join_s = round(time.monotonic() - started, 2)
        result = _measure(api, calls)
        victim = start('bench-r1')
        _wait(lambda: 'bench-r1' in api.ring.members())
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        result.update({'backend': backend.split(':')[0],
                       'process_start_to_in_ring_s': join_s,
                       'kill9_to_out_of_ring_s': _wait(
                           lambda: 'bench-r1' not in api.ring.members())})
        api.stop()
        return result
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
        if coord is not None:
            coord.stop()
        rabbit.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--calls', type=int, default=1000)
    parser.add_argument('--no-rabbit', action='store_true')
    args = parser.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix='berth-bench-rpc-')
    results = {'kombu+memory': bench_memory(args.calls, workdir)}
    if not args.no_rabbit and not services.RabbitMQ.missing():
        results['rabbit'] = bench_rabbit(args.calls, os.path.join(workdir, 'rabbit'))
    print('%-14s %7s %10s %8s %8s' % ('transport', 'calls', 'median ms', 'p95 ms', 'p99 ms'))
    for name, r in results.items():
        print('%-14s %7d %10.2f %8.2f %8.2f' % (name, r['calls'], r['median_ms'],
                                                r['p95_ms'], r['p99_ms']))
    if 'rabbit' in results:
        r = results['rabbit']
        print('ring (%s): conductor process start -> in ring %.2fs; kill -9 -> out of '
              'ring %.2fs (tooz timeout %ds)' % (r['backend'], r['process_start_to_in_ring_s'],
                                                 r['kill9_to_out_of_ring_s'], TOOZ_TIMEOUT))
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
