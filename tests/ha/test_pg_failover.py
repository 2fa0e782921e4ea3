"""berth on a Patroni cluster loses no acknowledged write when the primary dies.

A whole deployment (tests/chaos/deployment.py: RabbitMQ, etcd for tooz, two
conductor processes, both APIs under gunicorn) runs on a PostgreSQL primary
+ synchronous standby managed by Patroni (tests/ha/patroni_cluster.py),
reached through the libpq multi-host URL.  Under a steady load of claims
(``PUT /allocations``, ``POST /claims``) and node allocations
(``POST /v1/allocations``), the primary's Patroni and postmaster are killed
with SIGKILL (a dead host).  Then:

* every write answered 2xx is stored after the failover (and every refused
  one is not: tests/chaos/invariants.check_records), nothing is left
  ``allocating``, the snapshot invariants hold;
* writes resume: claims and node allocations are answered 2xx again,
  started after the first error, with no configuration change;
* no answer is a 5xx other than 503;
* a conductor restarted while there is no primary waits for one (db/connect.py:
  ``[database] max_retries``; it used to exit at once with libpq 14+) and
  is alive at the end.

The failover timeline (kill, first error, promotion, first success after,
last error) is printed, not asserted: the box is shared.
"""

import os
import shutil
import signal
import tempfile
import time

import pytest

from tests.chaos import deployment, invariants
from tests.chaos import load as chaos_load
from tests.chaos import run as chaos_run
from tests.ha import conftest, patroni_cluster

pytestmark = conftest.MARKS

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'
SEED = 20261124
STEADY = 20          # acknowledged writes before the kill
RESUME_DEADLINE = 240  # seconds after the kill for both kinds of write to succeed again
AFTER = 5            # seconds of load after writes resumed
QUIET_DEADLINE = 120   # seconds for the sweep to settle what the failover left allocating


def _unavailable(reason):
    reason = '!!! PostgreSQL HA test SKIPPED: %s !!!' % reason
    if REQUIRE:
        pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
    pytest.skip(reason)


@pytest.fixture
def patroni_venv():
    """The Patroni venv (built once per machine); skip or fail when it cannot be."""
    missing = patroni_cluster.missing() + sum(deployment.missing_binaries('etcd').values(),
                                              [])
    if missing:
        _unavailable('not installed: %s' % missing)
    try:
        venv, took = patroni_cluster.ensure_venv()
    except patroni_cluster.PatroniUnavailable as exc:
        _unavailable('patroni==%s cannot be installed: %s'
                     % (patroni_cluster.PATRONI_VERSION, exc))
    print('patroni venv %s (%.1f s to build)' % (venv, took))
    return venv


class PatroniDeployment(deployment.Deployment):
    """A chaos-tier deployment whose database is a Patroni cluster."""

    def __init__(self, workdir, cluster, **kwargs):
        super().__init__(workdir, **kwargs)
        shutil.rmtree(self.postgresql.dir, ignore_errors=True)   # the unused single server
        self.postgresql = cluster


def _wait(predicate, deadline, what):
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.5)


def _ok(records, kind_of, since):
    return [r for r in records if r['op'] == 'create' and kind_of(r['kind'])
            and r['outcome'] == 'ok' and r['t0'] >= since]


def timeline(records, killed, promoted):
    """The failover as seconds from the kill: first/last error, first success after."""
    errors = [r for r in records if r['t1'] >= killed
              and (r['status'] is None or r['status'] >= 500)]
    first_error = min((r['t1'] for r in errors), default=None)
    since = killed if first_error is None else first_error
    successes = [r for r in records if r['outcome'] == 'ok' and r['op'] == 'create'
                 and r['t0'] >= since]
    statuses = {}
    for r in errors:
        statuses[r['status']] = statuses.get(r['status'], 0) + 1

    def rel(t):
        return '-' if t is None else '%+.1f s' % (t - killed)
    return {'kill': rel(killed), 'first error': rel(first_error),
            'new primary': rel(promoted),
            'first success after': rel(min((r['t1'] for r in successes), default=None)),
            'last error': rel(max((r['t1'] for r in errors), default=None)),
            'errors by status': statuses}


def test_primary_killed_loses_no_acknowledged_write(patroni_venv):
    workdir = tempfile.mkdtemp(prefix='berth-ha-pg-')
    cluster = patroni_cluster.PatroniCluster(patroni_venv)
    dep = PatroniDeployment(workdir, cluster, conductors=2, api_workers=2)
    recorder = chaos_load.Recorder()
    load = checker = None
    passed = False
    try:
        dep.start()
        print('patroni bootstrap %.1f s; members %s'
              % (cluster.timings['bootstrap'], cluster.members()))
        providers, _ = chaos_run._topology(dep)
        checker = invariants.Checker(dep.db_url)
        load = chaos_load.Load(recorder, SEED, dep.placement_url, dep.baremetal_url,
                               providers, chaos_run.LOAD_NODES, claimers=3, schedulers=1,
                               allocators=2).start()
        _wait(lambda: len(_ok(recorder.snapshot(), lambda k: True, 0)) >= STEADY,
              time.monotonic() + 120, 'the load saw no %d writes before the kill' % STEADY)

        killed = time.monotonic()
        old = cluster.kill_primary()
        # a conductor (re)started while there is no primary waits for one
        dep.kill_conductor('c1', signal.SIGKILL)
        dep.start_conductor('c1')
        new = cluster.wait_new_primary(old)
        promoted = time.monotonic()
        print('killed %s; %s is the primary after %.1f s' % (old, new, promoted - killed))

        def resumed():
            records = recorder.snapshot()
            return (_ok(records, lambda k: k != 'node', promoted)
                    and _ok(records, lambda k: k == 'node', promoted))
        _wait(resumed, killed + RESUME_DEADLINE,
              'writes did not resume within %ss of the kill' % RESUME_DEADLINE)
        time.sleep(AFTER)
        load.stop()
        records = recorder.snapshot()
        print('failover timeline: %s' % timeline(records, killed, promoted))
        print('requests: %d, acknowledged writes: %d'
              % (len(records), len(_ok(records, lambda k: True, 0))))

        _wait(lambda: not checker.allocating(), time.monotonic() + QUIET_DEADLINE,
              'node allocations left allocating: %s' % checker.allocating())
        assert checker.check() == []
        assert invariants.check_records(checker, records) == []
        server_errors = sorted({(r['kind'], r['op'], r['status'], r['detail'][:120])
                                for r in records
                                if r['status'] is not None and r['status'] >= 500
                                and r['status'] != 503})
        assert server_errors == []
        assert dep.dead() == []
        print('c1 restarted during the failover; it waited for a primary: %s'
              % ('retry 1 of unlimited' in dep.conductors['c1'].tail(400)))
        passed = True
    finally:
        if load is not None:
            load.stop()
        if not passed:
            deployment.print_log_tails(workdir)
            for node in cluster.nodes:
                print('----- %s -----\n%s' % (node.log, patroni_cluster.services._tail(
                    node.log, 60)))
        if checker is not None:
            checker.dispose()
        dep.stop()
    shutil.rmtree(workdir, ignore_errors=True)
