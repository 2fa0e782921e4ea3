"""berth on a Patroni cluster loses no acknowledged write when the primary dies.

A whole deployment (tests/chaos/deployment.py: RabbitMQ, etcd for tooz, three
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
  is alive at the end;
* the killed node rejoins as the synchronous standby under the same load;
* berth reads from the standby (``[database] slave_connection``: every node,
  ``target_session_attrs=prefer-standby``, as doc/source/deployment.md gives it):
  while both servers are up the primary runs none of the candidate searches
  (``pg_stat_statements``), and a stream of lag-tolerant reads (candidates,
  provider searches, node lists: tests/ha/read_stream.py) gets no error at
  all, before, during or after the failover, and is answered while the
  writes get 503.

The run itself is tests/ha/pg_failover_run.py (bench/pg_failover.py runs
it for minutes).

The failover timeline (kill, first error, promotion, first success after,
last error) is printed, not asserted: the box is shared.
"""

import os
import shutil
import tempfile
import time

import pytest

from tests.chaos import deployment
from tests.ha import conftest, patroni_cluster, pg_failover_run, read_stream

pytestmark = conftest.MARKS

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'
AFTER = 5            # seconds of load after the killed node rejoined


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


def test_primary_killed_loses_no_acknowledged_write(patroni_venv):
    workdir = tempfile.mkdtemp(prefix='berth-ha-pg-')
    run = pg_failover_run.FailoverRun(workdir, patroni_venv)
    passed = False
    try:
        run.start()
        result = run.failover(restart_conductor='c1')
        time.sleep(AFTER)
        found = run.finish()
        records = run.recorder.snapshot()
        reads = run.reads.recorder.snapshot()
        row = run.report(result)
        print('failover: %s' % row)
        print('reads: %d, errors: %s, slowest %.2f s'
              % (len(reads), read_stream.errors(reads),
                 max(r['t1'] - r['t0'] for r in reads)))
        print('requests: %d, acknowledged writes: %d'
              % (len(records), len(pg_failover_run.acknowledged(records))))
        print('c1 restarted during the failover; it waited for a primary: %s'
              % ('retry 1 of unlimited' in run.dep.conductors['c1'].tail(400)))
        assert found == []
        assert read_stream.errors(reads) == {}
        assert row['reads'] and row['reads_ok_while_writes_failed']
        assert result['searches_before']['primary'] == 0
        assert result['searches_before']['standby'] > 0
        assert pg_failover_run.acknowledged(records, result['killed_at']
                                            + result['promoted_after'])
        passed = True
    finally:
        run.stop(print_logs=not passed)
    shutil.rmtree(workdir, ignore_errors=True)
