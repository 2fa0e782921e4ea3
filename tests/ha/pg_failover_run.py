"""berth on a Patroni cluster under load, with PostgreSQL primaries killed in turn.

Shared by the HA test (tests/ha/test_pg_failover.py, one failover) and the
bench (bench/pg_failover.py, failovers for N minutes).  A whole deployment
(tests/chaos/deployment.py: RabbitMQ, etcd for tooz, conductor processes,
both APIs under gunicorn) runs on a PostgreSQL primary + synchronous standby
managed by Patroni (tests/ha/patroni_cluster.py), reached through the libpq
multi-host URL.  The load is the chaos tier's (claims, schedule-and-claims,
node allocations), every answer recorded; the checks at the end are the
chaos invariants (tests/chaos/invariants.py).

berth reads from the standby (``[database] slave_connection``: every node,
``target_session_attrs=prefer-standby``, as doc/source/deployment.md gives it), and
a stream of those lag-tolerant reads (tests/ha/read_stream.py) runs beside
the writes: per failover, what the reads saw, and which server ran the
candidate searches while both were up (``pg_stat_statements``).
"""

import shutil
import signal
import time

from tests.chaos import deployment, invariants
from tests.chaos import load as chaos_load
from tests.chaos import run as chaos_run
from tests.ha import patroni_cluster, read_stream

SEED = 20261124
STEADY = 20            # acknowledged writes before the first kill
RESUME_DEADLINE = 240  # seconds after a kill for both kinds of write to succeed again
QUIET_DEADLINE = 120   # seconds for the sweep to settle what a failover left allocating


class PatroniDeployment(deployment.Deployment):
    """A chaos-tier deployment whose database is a Patroni cluster."""

    def __init__(self, workdir, cluster, **kwargs):
        kwargs['extra_conf'] = ('[database]\nslave_connection = %s\n' % cluster.reader_url
                                + kwargs.get('extra_conf', ''))
        super().__init__(workdir, **kwargs)
        shutil.rmtree(self.postgresql.dir, ignore_errors=True)   # the unused single server
        self.postgresql = cluster


def _wait(predicate, deadline, what):
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.5)


def acknowledged(records, since=0.0, kinds=None):
    """Creates answered 2xx that were sent at or after ``since`` (of ``kinds``, or all)."""
    return [r for r in records if r['op'] == 'create' and r['outcome'] == 'ok'
            and r['t0'] >= since and (kinds is None or r['kind'] in kinds)]


def timeline(records, killed, promoted):
    """One failover in seconds from the kill: first/last error, first success after."""
    errors = [r for r in records if r['t1'] >= killed
              and (r['status'] is None or r['status'] >= 500)]
    first_error = min((r['t1'] for r in errors), default=None)
    since = killed if first_error is None else first_error
    first_ok = min((r['t1'] for r in acknowledged(records, since)), default=None)
    statuses = {}
    for r in errors:
        statuses[r['status']] = statuses.get(r['status'], 0) + 1

    def rel(t):
        return None if t is None else round(t - killed, 1)
    return {'first_error': rel(first_error), 'new_primary': rel(promoted),
            'first_success_after': rel(first_ok),
            'last_error': rel(max((r['t1'] for r in errors), default=None)),
            'errors_by_status': statuses}


class FailoverRun:
    """Deployment + load; ``failover()`` as often as wanted; ``finish()`` checks."""

    def __init__(self, workdir, venv, conductors=3, api_workers=2, out=print):
        self.workdir = workdir
        self.cluster = patroni_cluster.PatroniCluster(venv)
        self.dep = PatroniDeployment(workdir, self.cluster, conductors=conductors,
                                     api_workers=api_workers)
        self.recorder = chaos_load.Recorder()
        self.load = self.checker = self.reads = None
        self.out = out
        self.failovers = []

    def start(self):
        self.dep.start()
        self.out('patroni bootstrap %.1f s' % self.cluster.timings['bootstrap'])
        providers, _ = chaos_run._topology(self.dep)
        self.checker = invariants.Checker(self.dep.db_url)
        read_stream.reset(self.cluster)
        self.load = chaos_load.Load(self.recorder, SEED, self.dep.placement_url,
                                    self.dep.baremetal_url, providers,
                                    chaos_run.LOAD_NODES, claimers=3, schedulers=1,
                                    allocators=2).start()
        self.reads = read_stream.Reads(SEED + 1, self.dep.placement_url,
                                       self.dep.baremetal_url).start()
        _wait(lambda: len(acknowledged(self.recorder.snapshot())) >= STEADY,
              time.monotonic() + 120, 'the load saw no %d writes before a kill' % STEADY)
        _wait(lambda: sum(1 for r in self.reads.recorder.snapshot()
                          if r['op'] == 'candidates' and r['status'] == 200) >= STEADY,
              time.monotonic() + 120, 'no %d candidate reads before a kill' % STEADY)
        return self

    def failover(self, restart_conductor=None):
        """Kill the primary, wait for the promotion and for writes, rejoin the old one.

        ``restart_conductor``: a conductor host to restart right after the
        kill, while there is no primary (it must wait for one).
        """
        leader = self.cluster.leader()
        # the candidate searches each server ran since both were last up
        searches = read_stream.searches(self.cluster)
        killed = time.monotonic()
        old = self.cluster.kill_primary()
        if restart_conductor:
            self.dep.kill_conductor(restart_conductor, signal.SIGKILL)
            self.dep.start_conductor(restart_conductor)
        new = self.cluster.wait_new_primary(old)
        promoted = time.monotonic()

        def resumed():
            records = self.recorder.snapshot()
            return (acknowledged(records, promoted, ('claim', 'schedule'))
                    and acknowledged(records, promoted, ('node',)))
        _wait(resumed, killed + RESUME_DEADLINE,
              'writes did not resume within %ss of the kill' % RESUME_DEADLINE)
        resumed_at = time.monotonic()
        self.cluster.restart_node(old)
        self.cluster.wait_healthy()
        healthy = time.monotonic()
        read_stream.reset(self.cluster)
        result = {'killed': old, 'promoted': new, 'killed_at': killed,
                  'promoted_after': round(promoted - killed, 1),
                  'rejoined_after': round(healthy - resumed_at, 1), 'healthy_at': healthy,
                  'searches_before': {'primary': searches.get(leader),
                                      'standby': sum(v or 0 for k, v in searches.items()
                                                     if k != leader)}}
        self.failovers.append(result)
        return result

    def report(self, result):
        """The failover's timeline, once the load has gone on past it."""
        records = self.recorder.snapshot()
        row = dict(result, **timeline(records, result['killed_at'],
                                      result['killed_at'] + result['promoted_after']))
        failing = [r['t1'] for r in records if result['killed_at'] <= r['t1']
                   and (r['status'] is None or r['status'] >= 500)]
        row.update(read_stream.window(
            self.reads.recorder.snapshot(), result['killed_at'], result['healthy_at'],
            (min(failing), max(failing)) if failing else None))
        return row

    def finish(self):
        """Stop the load, let the sweep settle; the violations found (a list)."""
        self.load.stop()
        self.reads.stop()
        records = self.recorder.snapshot()
        _wait(lambda: not self.checker.allocating(), time.monotonic() + QUIET_DEADLINE,
              'node allocations left allocating: %s' % self.checker.allocating())
        found = list(self.checker.check() or [])
        found += invariants.check_records(self.checker, records)
        found += ['%s %s answered %s: %s' % (r['kind'], r['op'], r['status'], r['detail'][:120])
                  for r in records if r['status'] is not None and r['status'] >= 500
                  and r['status'] != 503]
        found += ['%s exited' % name for name in self.dep.dead()]
        return found

    def stop(self, print_logs=False):
        if self.load is not None:
            self.load.stop()
        if self.reads is not None:
            self.reads.stop()
        if print_logs:
            deployment.print_log_tails(self.workdir)
            for node in self.cluster.nodes:
                print('----- %s -----\n%s' % (node.log, patroni_cluster.services._tail(
                    node.log, 60)))
        if self.checker is not None:
            self.checker.dispose()
        self.dep.stop()
