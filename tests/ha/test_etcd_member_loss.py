"""One etcd member of three is killed (kill -9) under load: no conductor leaves the ring.

tooz's etcd3gw driver takes one ``host:port`` and cannot fail over between
members, so berth's ``[coordination] backend_url`` names an ``etcd gateway``
(a TCP proxy over the three members, tests/ha/etcd_cluster.py).  The member
killed is the raft leader, the harder case: a new leader is elected (and
leases are kept: a new leader renews every lease it takes over).

The deployment is otherwise the chaos one (PostgreSQL, one RabbitMQ,
berth-api under gunicorn, three conductors) with the chaos load.
Asserted: no ring rebuild logged by any berth process (API workers or
conductors) from the kill until the end (an API worker that builds its app
on its first request after the kill reads the whole group: its first read,
not a change), a tooz observer never reads a
member set other than the three conductors, no 5xx or unanswered request,
every acknowledged write stored, nothing left ``allocating``.

Measured here (2 cores, shared, 2026-11-24): the three members and the
gateway are healthy 1-3 s after they are spawned.
"""

import tempfile
import time

from tests.ha import conftest
from tests.ha import deployment as ha

pytestmark = conftest.MARKS

DOWN = 10         # seconds the member stays dead


def kill_leader(dep):
    """kill -9 the etcd raft leader; restart it after ``DOWN`` seconds."""
    victim = dep.tooz.leader()
    assert victim is not None, 'no etcd member names a leader'
    injected = time.monotonic()
    dep.tooz.kill(victim)
    print('ha: killed etcd member m%d (the leader)' % victim)
    time.sleep(DOWN)
    print('ha: leader while m%d was dead: m%s' % (victim, dep.tooz.leader()))
    dep.tooz.start_member(victim)
    repaired = time.monotonic()
    return injected, repaired


def test_etcd_member_kill_changes_no_ring():
    ha.require('single', 'cluster')
    workdir = tempfile.mkdtemp(prefix='berth-ha-etcd-')
    failed = True
    started = time.monotonic()
    try:
        with ha.HADeployment(workdir, rabbit='single', tooz='cluster').start() as dep:
            print('ha: etcd cluster healthy in %.1fs; deployment up in %.1fs (logs in %s)'
                  % (dep.tooz.formed_in, time.monotonic() - started, workdir))
            result = ha.run_fault(dep, kill_leader, warm=10, after=10)
        assert result['ring_log_all'] > 0          # the joins at start-up were logged
        assert result['ring_log'] == []
        # an API worker that built its app since the kill: its first read is the whole group
        whole = '3 members; joined %s, left []' % (['c0', 'c1', 'c2'],)
        assert [line for _, line in result['ring_first_reads'] if whole not in line] == []
        assert result['ring_reads'] == []
        ha.assert_rode_through(result)
        failed = False
    finally:
        ha.finish(workdir, failed)
