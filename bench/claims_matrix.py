"""``bench.claims --matrix 1x1,2x3``: claims per API processes x conductors cell.

One RabbitMQ, PostgreSQL and etcd for the whole run (bench/cluster.py); per
cell a fresh database, ``P`` berth-api worker processes (``[api] workers``,
16 threads each) and ``C`` berth-conductor processes, the placeload topology
and the same closed-loop load (``--workers`` clients, PUT-only).  Each cell
reports claims/s, p50/p95/p99, CPU ms per claim by process kind (API,
conductors, PostgreSQL, RabbitMQ, coordination; clients apart), claims per
RPC call, PostgreSQL commits per claim and RPC messages per claim (see
bench/matrix.py for how each is counted).  Prints a table, writes the runs
to ``bench/results/claims_matrix-<UTC time>.json`` and ends with a JSON line.

    .venv/bin/python -W ignore -m bench.claims --matrix 1x1,2x3 [--repeat 2]
        [--conductor-option 'claim_routing = process']

``--conductor-option``: a ``[conductor]`` line for every process of each
cell (repeatable), to compare one setting against the default.
``BERTH_BENCH_PYSPY=<py-spy>``: profile the API and conductors while the
claims run (bench/profile_hook.py; not in runs whose numbers count).
"""

import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

import requests

from bench import cluster as bench_cluster
from bench import matrix, profile_hook

RESULTS = pathlib.Path(__file__).resolve().parent / 'results'
# PostgreSQL backends flush their statistics when idle for 10 s at most
PG_STATS_SETTLE = 11


class Probe:
    """Counters of one cell read before and after its claims, outside the CPU window."""

    def __init__(self, servers, stack, database, cpu=None, recorder=None):
        self.servers = servers
        self.stack = stack
        self.database = database
        self.cpu = cpu
        # bench.profile_hook.Recorder: py-spy from the first snapshot's end
        # to the second one's start, i.e. while the claims run
        self.recorder = recorder
        self._recording = False

    def snapshot(self):
        if self._recording:
            self.recorder.stop()
            self._recording = False
        else:
            try:
                return self._snapshot()
            finally:
                if self.recorder is not None:
                    self.recorder.start(
                        {'api': [self.stack.procs['api'].pid],
                         'conductor': [p.pid for n, p in self.stack.procs.items()
                                       if n != 'api']})
                    self._recording = True
        return self._snapshot()

    def _snapshot(self):
        cpu0, t0 = (self.cpu() if self.cpu else {}), time.monotonic()
        time.sleep(PG_STATS_SETTLE)     # no load meanwhile: the idle CPU of each kind
        cpu1, idle = (self.cpu() if self.cpu else {}), time.monotonic() - t0
        try:
            text = requests.get(self.stack.url + '/metrics', timeout=30).text
        except requests.RequestException:
            text = ''
        return {'rpc': matrix.rpc_counts(matrix.parse_prometheus(text)),
                'pg_commits': matrix.pg_commits(self.servers.postgresql, self.database),
                'rabbit_received': matrix.rabbit_received(self.servers.rabbitmq),
                'idle_cpu_ms_per_s': {k: round((cpu1[k] - cpu0[k]) * 1000 / idle, 1)
                                      for k in cpu1}}

    @staticmethod
    def summarise(before, after, counted):
        return summarise_counters(before, after, counted)


def summarise_counters(before, after, counted):
    """Per-claim RPC messages, claims per call and commits from two snapshots."""
    calls = matrix.delta(after['rpc'], before['rpc'])
    claim_calls = calls.get('claim_resources_many', 0) + calls.get('claim_resources', 0)
    out = {'rpc_calls': {m: int(v) for m, v in sorted(calls.items()) if v},
           'rpc_msgs_per_claim': round(matrix.rpc_messages(calls) / counted, 2),
           'batch': {'claims_per_rpc_call': round(counted / claim_calls, 2)
                     if claim_calls else None}}
    if after['pg_commits'] is not None and before['pg_commits'] is not None:
        commits = after['pg_commits'] - before['pg_commits']
        out['batch']['pg_commits_per_claim'] = round(commits / counted, 2)
    if after.get('idle_cpu_ms_per_s'):      # the quiet seconds after the claims
        out['idle_cpu_ms_per_s'] = after['idle_cpu_ms_per_s']
    if after['rabbit_received'] is not None and before['rabbit_received'] is not None:
        got = after['rabbit_received'] - before['rabbit_received']
        out['rabbit_msgs_per_claim'] = round(got / counted, 2)
    return out


def run_cell(servers, workdir, args, apis, conductors, index, measure):
    """One deployment of ``apis`` API processes and ``conductors`` conductors, ``measure``d."""
    db_name = 'bench_m%d_%dx%d' % (index, apis, conductors)
    stack = bench_cluster.Cluster(servers, os.path.join(workdir, db_name), conductors,
                                  db_name, api_workers=apis,
                                  extra_conf=''.join('[conductor]\n%s\n' % o
                                                     for o in args.conductor_option or ()))
    try:
        stack.start()

        def every_process():
            return {'api': matrix.tree_cpu(stack.procs['api'].pid),
                    'conductors': sum(matrix.tree_cpu(p.pid) for n, p in
                                      stack.procs.items() if n != 'api'),
                    'postgresql': matrix.tree_cpu(servers.postgresql.proc.pid),
                    'rabbitmq': matrix.tree_cpu(servers.rabbitmq.proc.pid),
                    'etcd': matrix.tree_cpu(servers.etcd.proc.pid)}
        summary = measure(
            stack.url, '%dx%d' % (apis, conductors), args, every_process, conductors,
            probe=Probe(servers, stack, db_name, every_process,
                        profile_hook.Recorder.from_env(db_name)))
        summary['api_processes'] = apis
        summary['conductor_options'] = list(args.conductor_option or ())
        return summary
    finally:
        stack.stop()


COLUMNS = ('cell', 'ok/s', 'p50', 'p95', 'p99', 'api', 'cond', 'pg', 'rmq', 'coord',
           'servers', 'client', 'c/call', 'commit/c', 'msgs/c', 'rmq/c', 'load1',
           'idle api', 'idle cond')


def row(s):
    cpu = s.get('cpu_ms_per_claim', {})
    batch = s.get('batch', {})
    return (s['deployment'], s['claims_per_s'], s['p50_ms'], s['p95_ms'], s['p99_ms'],
            cpu.get('api'), cpu.get('conductors'), cpu.get('postgresql'),
            cpu.get('rabbitmq'), cpu.get('coordination'), cpu.get('servers'),
            cpu.get('clients'), batch.get('claims_per_rpc_call'),
            batch.get('pg_commits_per_claim'), s.get('rpc_msgs_per_claim'),
            s.get('rabbit_msgs_per_claim'), s['load_average_1m'],
            s.get('idle_cpu_ms_per_s', {}).get('api'),
            s.get('idle_cpu_ms_per_s', {}).get('conductors'))


def print_table(summaries):
    print(' | '.join('%7s' % c for c in COLUMNS))
    for s in summaries:
        print(' | '.join('%7s' % ('-' if v is None else v,) for v in row(s)))
    if summaries:
        print('(load: %s; CPU in ms per claim; c/call: claims per RPC call; commit/c: '
              'PostgreSQL commits per claim; msgs/c: RPC messages per claim counted by '
              'the API; rmq/c: messages RabbitMQ received per claim; idle: CPU ms per '
              'second of the API processes and conductors, all together, in the '
              '%d s after the claims)'
              % (summaries[0]['load'], PG_STATS_SETTLE))


def main(args, measure):
    """Run the cells of ``args.matrix``, each measured by ``measure`` (bench.claims.measure,
    handed down by ``bench.claims --matrix``: this module never imports bench.claims)."""
    cells = matrix.parse_matrix(args.matrix)
    workdir = tempfile.mkdtemp(prefix='berth-bench-matrix-')
    servers = bench_cluster.Servers(workdir)
    summaries = []
    try:
        servers.start()
        index = 0
        for _ in range(args.repeat):
            for apis, conductors in cells:
                summaries.append(run_cell(servers, workdir, args, apis, conductors, index,
                                          measure))
                index += 1
                print('  '.join(str(v) for v in row(summaries[-1])), file=sys.stderr)
    finally:
        servers.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print_table(summaries)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / ('claims_matrix-%s.json' % time.strftime('%Y%m%dT%H%M%SZ',
                                                              time.gmtime()))
    path.write_text(json.dumps({'argv': sys.argv, 'runs': summaries}, indent=1,
                               sort_keys=True) + '\n')
    print(json.dumps(summaries, sort_keys=True))
    return 0
