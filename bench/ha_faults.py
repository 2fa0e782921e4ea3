"""One RabbitMQ node or one etcd member killed in turn under load, for minutes: a fault table.

    .venv/bin/python -m bench.ha_faults --fault rabbit --minutes 10 [--down 10 --gap 20]
    .venv/bin/python -m bench.ha_faults --fault etcd --minutes 10

The deployment of the HA tier (tests/ha/deployment.py): PostgreSQL,
berth-api under gunicorn and three conductors, on a three-node RabbitMQ
cluster with quorum queues (``--fault rabbit``) or on three etcd members
behind an ``etcd gateway`` (``--fault etcd``), under the chaos tier's load
of claims, schedule-and-claims and node allocations, with a notification
listener, a tooz observer of the conductor ring and the invariant sampler.

Every cycle kills one node or member (``kill -9``; node 0, 1, 2, 0, ...),
keeps it dead ``--down`` seconds, starts it again (a RabbitMQ node: until it
runs in the cluster again; an etcd member: until it is healthy), then lets
the load run ``--gap`` seconds.  A fault's row covers the requests sent from
its kill to the next kill (the last one: to the end of the load):
requests, 5xx, 503, requests without an answer, the worst request, ring
rebuilds logged by any berth process, tooz observer reads other than the
three conductors, broker disconnections logged (RabbitMQ), lost
acknowledged writes (a 2xx create never deleted whose write is not stored
once the deployment is quiet) and invariant violations seen by the sampler.
Then totals (with the requests before the first kill) and a final JSON line.
Exits 1 on any 5xx, request without answer, lost write, ring change or
violation.  Logs stay in the printed work directory.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.ha import deployment as ha  # noqa: E402

COLUMNS = ('fault', 'victim', 'injected s', 'repaired s', 'requests', '5xx', '503',
           'no answer', 'worst s', 'ring logged', 'ring reads off', 'amqp lines',
           'replays', 'ledger hits', 'lost', 'violations', 'load1')
# the API resending a write call with its call id (conductor/rpcapi/replay.py), and
# a conductor answering such a resend from its ledger (conductor/manager/replay.py)
REPLAY_LINE = re.compile(r'did not answer \S+ \(call [0-9a-f-]+\) within')
LEDGER_LINE = re.compile(r'Call [0-9a-f-]+ of \S+ is a replay')


def loadavg():
    with open('/proc/loadavg') as f:
        return f.read().strip()


def out(line):
    print(line, flush=True)


def kill_rabbit(dep, victim, down):
    """kill -9 RabbitMQ node ``victim``; boot it after ``down`` s; (injected, repaired, note)."""
    leaders = dep.rabbitmq.leaders('berth-conductor')
    led = sum(1 for i in leaders.values() if i == victim)
    injected = time.monotonic()
    dep.rabbitmq.kill(victim)
    time.sleep(down)
    dep.rabbitmq.start_node(victim)
    return injected, time.monotonic(), 'leader of %d/%d queues' % (led, len(leaders))


def kill_etcd(dep, victim, down):
    """kill -9 etcd member ``victim``; start it after ``down`` s; (injected, repaired, note)."""
    was_leader = dep.tooz.leader() == victim
    injected = time.monotonic()
    dep.tooz.kill(victim)
    time.sleep(down)
    dep.tooz.start_member(victim)
    return injected, time.monotonic(), 'leader' if was_leader else 'follower'


FAULTS = {'rabbit': ('cluster', 'single', kill_rabbit, 'rabbitmq-%d'),
          'etcd': ('single', 'cluster', kill_etcd, 'etcd-m%d')}


def row(fault, records, start, stop, base, reads, violations, lost):
    """The table row of ``fault`` over the requests sent in ``[start, stop)``."""
    mine = [r for r in records if start <= r['t0'] < stop]
    worst = max((r['t1'] - r['t0'] for r in mine), default=0.0)
    return {
        'fault': fault['n'], 'victim': fault['victim'],
        'injected s': round(start - base, 1),
        'repaired s': None if fault['repaired'] is None else round(fault['repaired'] - base, 1),
        'requests': len(mine),
        '5xx': sum(1 for r in mine if (r['status'] or 0) >= 500),
        '503': sum(1 for r in mine if r['status'] == 503),
        'no answer': sum(1 for r in mine if r['status'] is None),
        'worst s': round(worst, 2),
        'ring logged': fault['ring_logged'],
        'ring reads off': sum(1 for t, _ in reads if start <= t < stop),
        'amqp lines': fault['amqp'],
        'replays': fault['replays'],
        'ledger hits': fault['ledger'],
        'lost': sum(1 for r in lost if start <= r['t0'] < stop),
        'violations': sum(1 for t, _ in violations if start <= t < stop),
        'load1': fault['load1'],
    }


def cycle(dep, kind, n, down, base):
    """One fault, from its kill to the end of its repair; its facts for :func:`row`."""
    _, _, kill, name = FAULTS[kind]
    victim = n % 3
    offsets = ha.log_offsets(dep.workdir)
    fault = {'n': n + 1, 'victim': name % victim, 'repaired': None, 'error': None,
             'offsets': offsets}
    try:
        injected, repaired, note = kill(dep, victim, down)
        fault.update(injected=injected, repaired=repaired)
        out('ha-bench: fault %d: %s (%s) killed at %.1fs, back %.1fs later; load %s'
            % (n + 1, fault['victim'], note, injected - base, repaired - injected,
               loadavg().split()[0]))
    except Exception as exc:       # a node that does not come back ends the run
        fault.setdefault('injected', time.monotonic())
        fault['error'] = '%s: %s' % (type(exc).__name__, exc)
        out('ha-bench: fault %d: %s did not come back: %s' % (n + 1, fault['victim'],
                                                              fault['error']))
    return fault


def close(dep, fault):
    """Count what the berth logs got since the fault's kill (before the next one)."""
    fault['ring_logged'] = len(ha.ring_changes(dep.workdir, fault['offsets']))
    fault['amqp'] = len(ha.log_lines(dep.workdir, fault['offsets'], ha.AMQP_LINE))
    fault['replays'] = len(ha.log_lines(dep.workdir, fault['offsets'], REPLAY_LINE))
    fault['ledger'] = len(ha.log_lines(dep.workdir, fault['offsets'], LEDGER_LINE))
    fault['load1'] = loadavg().split()[0]


def run(kind, minutes, down, gap, warm, workdir, seed, extra_conf=''):
    rabbit, tooz, _, _ = FAULTS[kind]
    started = time.monotonic()
    faults: list[dict] = []
    stopped = None
    with ha.HADeployment(workdir, rabbit=rabbit, tooz=tooz,
                         extra_conf=extra_conf).start() as dep:
        cluster = dep.rabbitmq if kind == 'rabbit' else dep.tooz
        out('ha-bench: %s cluster formed in %.1fs; deployment up in %.1fs (logs in %s)'
            % (kind, cluster.formed_in, time.monotonic() - started, workdir))
        watched = ha.Watched(dep, seed, out)
        try:
            base = time.monotonic()
            time.sleep(warm)
            end = base + minutes * 60
            while time.monotonic() < end:
                fault = cycle(dep, kind, len(faults), down, base)
                faults.append(fault)
                if fault['error']:
                    stopped = fault['error']
                    close(dep, fault)
                    break
                time.sleep(max(0.0, min(gap, end - time.monotonic())))
                close(dep, fault)
                dead = dep.dead()
                if dead:
                    stopped = 'berth processes died: %s' % dead
                    break
        except BaseException:
            watched.abort()
            raise
        load_end = watched.stop_load()
        result = watched.finish(faults[0]['injected'] if faults else base)
    return faults, result, base, load_end, stopped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--fault', choices=sorted(FAULTS), required=True)
    parser.add_argument('--minutes', type=float, default=10)
    parser.add_argument('--down', type=float, default=10,
                        help='seconds a killed node stays dead')
    parser.add_argument('--gap', type=float, default=20,
                        help='seconds of load between a repair and the next kill')
    parser.add_argument('--warm', type=float, default=10,
                        help='seconds of load before the first kill')
    parser.add_argument('--seed', type=int, default=21)
    parser.add_argument('--workdir', default=None)
    parser.add_argument('--transient-quorum', action='store_true',
                        help='also rabbit_transient_quorum_queue = true (reply and '
                             'fanout queues replicated too)')
    args = parser.parse_args(argv)
    extra = ('[oslo_messaging_rabbit]\nrabbit_transient_quorum_queue = true\n'
             if args.transient_quorum else '')
    rabbit, tooz, _, _ = FAULTS[args.fault]
    missing = ha.missing_binaries(rabbit, tooz)
    if missing:
        print('missing servers: %s' % missing, file=sys.stderr)
        return 2
    workdir = args.workdir or tempfile.mkdtemp(prefix='berth-ha-bench-%s-' % args.fault)
    out('load average: %s' % loadavg())
    out('ha-bench: --fault %s --minutes %g --down %g --gap %g --warm %g --seed %d%s'
        % (args.fault, args.minutes, args.down, args.gap, args.warm, args.seed,
           ' --transient-quorum' if args.transient_quorum else ''))
    faults, result, base, load_end, stopped = run(args.fault, args.minutes, args.down,
                                                  args.gap, args.warm, workdir, args.seed,
                                                  extra)
    records = result['records']
    violations = result['timed_violations']
    starts = [f['injected'] for f in faults] + [load_end + 1]
    rows = [row(f, records, starts[i], starts[i + 1], base, result['ring_reads'],
                violations, result['lost']) for i, f in enumerate(faults)]
    out('')
    out(' | '.join(COLUMNS))
    for r in rows:
        out(' | '.join(str(r[c]) for c in COLUMNS))
    summary = totals(rows, records, result, base, load_end)
    out('before the first kill: %d requests'
        % (summary['requests'] - sum(r['requests'] for r in rows)))
    out('totals: %d faults, %d requests, %d x 5xx (%d x 503), %d without answer, worst '
        'request %.2fs, %d ring rebuilds logged, %d observer reads off the 3 conductors '
        '(%d read errors), %d write calls replayed (%d answered from a ledger), '
        '%d lost acknowledged writes of %d, %d invariant violations'
        % (summary['faults'], summary['requests'], summary['5xx'], summary['503'],
           summary['no_answer'], summary['worst_request_s'], summary['ring_logged'],
           summary['ring_reads_off'], summary['ring_read_errors'], summary['replays'],
           summary['ledger_hits'], summary['lost_writes'],
           summary['acknowledged_writes'], summary['violations']))
    errors: dict[str, int] = {}
    for r in records:
        if r['status'] is None or r['status'] >= 500:
            key = '%s %s %s %s' % (r['status'], r['kind'], r['op'], r['detail'][:120])
            errors[key] = errors.get(key, 0) + 1
    for key, count in sorted(errors.items(), key=lambda kv: -kv[1])[:15]:
        out('5xx/no answer x%d: %s' % (count, key))
    for r in result['lost'][:20]:
        out('LOST: %s %s answered %s at %.1fs' % (r['kind'], r['key'], r['status'],
                                                   r['t0'] - base))
    for line in sorted(set(result['violations']))[:20]:
        out('VIOLATION: %s' % line)
    if stopped:
        out('ha-bench: stopped early: %s' % stopped)
    summary['stopped'] = stopped
    out('load average: %s' % loadavg())
    out(json.dumps(summary, sort_keys=True))
    bad = (summary['5xx'] or summary['no_answer'] or summary['lost_writes']
           or summary['violations'] or stopped
           or (args.fault == 'etcd' and (summary['ring_logged'] or summary['ring_reads_off'])))
    return 1 if bad else 0


def totals(rows, records, result, base, load_end):
    worst = max(records, key=lambda r: r['t1'] - r['t0'], default=None)
    return {
        'faults': len(rows), 'load_s': round(load_end - base, 1),
        'requests': len(records),
        'acknowledged_writes': sum(1 for r in records
                                   if r['op'] == 'create' and r['outcome'] == 'ok'),
        '5xx': sum(1 for r in records if (r['status'] or 0) >= 500),
        '503': sum(1 for r in records if r['status'] == 503),
        'no_answer': sum(1 for r in records if r['status'] is None),
        'worst_request_s': round(worst['t1'] - worst['t0'], 2) if worst else None,
        'worst_request': ('%s %s -> %s at %.1fs' % (worst['kind'], worst['op'],
                                                    worst['status'], worst['t0'] - base)
                          if worst else None),
        'ring_logged': sum(r['ring logged'] for r in rows),
        'replays': sum(r['replays'] for r in rows),
        'ledger_hits': sum(r['ledger hits'] for r in rows),
        'ring_reads_off': len(result['ring_reads']),
        'ring_read_errors': result['ring_read_errors'],
        'lost_writes': len(result['lost']),
        'violations': len(result['violations']),
        'missing_notifications': len(result['missing_notifications']),
        'settle_s': round(result['settled'], 1),
        'repair_s_max': max((round(r['repaired s'] - r['injected s'], 1) for r in rows
                             if r['repaired s'] is not None), default=None),
        'dead': result['dead'],
    }


if __name__ == '__main__':
    sys.exit(main())
