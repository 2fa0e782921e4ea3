"""kill -9 of one of two conductors: its allocations are taken over within the bound.

Real servers: the session's RabbitMQ, etcd (tooz membership) and
PostgreSQL; two ``berth-conductor`` processes.  The survivor has a row of its
own whose lock the test holds (a database that hangs one statement), so its
resume of that row hangs; the killed conductor's ``allocating`` rows must
still be taken over and finished within the documented bound
(doc/source/operations.md, "Orphaned node allocations"): the tooz membership
timeout + ``ring_refresh_interval`` + ``orphan_check_interval``, plus the
time to drive them.  Before, the periodic tasks shared one thread: the hung
resume held the orphan check, and the orphans stayed ``allocating`` until
the lock went (in the chaos runs: until the killed conductor came back).
"""

import datetime
import pathlib
import signal
import subprocess
import time
import uuid as uuidlib

import pytest
import sqlalchemy as sa

from tests.integration import conftest
from tests.integration import test_conductors as tc

pytestmark = conftest.MARKS

SIGNING_KEY = 'orphan-takeover-bound-test-signing-key-0123456789'
TOOZ_TIMEOUT = 3
RING_REFRESH = 1
ORPHAN_CHECK = 1
ORPHANS = 6
# the documented bound, and what a loaded test host adds to driving the rows
BOUND = TOOZ_TIMEOUT + RING_REFRESH + ORPHAN_CHECK
SLACK = 15
RESOURCE_CLASS = 'orphan-bound-none'     # no node has it: each row ends ``error``


def _conf(workdir, rabbitmq, etcd, db_url):
    path = workdir / 'berth.conf'
    path.write_text(
        '[DEFAULT]\ntransport_url = %s\n[rpc]\nsigning_key = %s\n'
        '[database]\nconnection = %s\n'
        '[coordination]\nbackend_url = %s\nwatch_interval = 0.2\n'
        'ring_refresh_interval = %d\n'
        '[conductor]\nworkers = 4\ngraceful_shutdown_timeout = 5\n'
        '[allocation]\norphan_check_interval = %d\nsweep_interval = 5\n'
        'stale_timeout = 60\n'
        % (rabbitmq.url, SIGNING_KEY, db_url, etcd.url(TOOZ_TIMEOUT), RING_REFRESH,
           ORPHAN_CHECK))
    return path


def _insert(conn, affinity, age=0):
    uuid = str(uuidlib.uuid4())
    created = (datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
               - datetime.timedelta(seconds=age))
    conn.execute(sa.text(
        "INSERT INTO node_allocations (uuid, state, resource_class, conductor_affinity, "
        "created_at) VALUES (:u, 'allocating', :rc, :a, :c)"),
        {'u': uuid, 'rc': RESOURCE_CLASS, 'a': affinity, 'c': created})
    return uuid


@pytest.fixture
def conductors(rabbitmq, etcd, pg_synced, tmp_path_factory):
    workdir = pathlib.Path(tmp_path_factory.mktemp('orphan-bound'))
    config = _conf(workdir, rabbitmq, etcd, pg_synced)
    procs = {}

    def start(host):
        host_conf = workdir / ('%s.conf' % host)
        host_conf.write_text('[DEFAULT]\nhost = %s\n' % host)
        with open(workdir / ('%s.log' % host), 'ab') as log:
            procs[host] = subprocess.Popen(
                [conftest.bin_path('berth-conductor'), '--config-file', str(config),
                 '--config-file', str(host_conf)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
        return workdir / ('%s.log' % host)

    engine = sa.create_engine(pg_synced)
    yield start, procs, engine
    for proc in procs.values():
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs.values():
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    with engine.begin() as conn:
        conn.execute(sa.text('DELETE FROM node_allocations WHERE resource_class = :rc'),
                     {'rc': RESOURCE_CLASS})
    engine.dispose()


def test_orphans_of_a_killed_conductor_are_taken_over_within_the_bound(conductors):
    start, procs, engine = conductors
    survivor, victim = 'bound-a', 'bound-b'
    with engine.begin() as conn:
        mine = _insert(conn, survivor, age=120)
    holder = engine.connect()
    held = holder.begin()
    holder.execute(sa.text('SELECT id FROM node_allocations WHERE uuid = :u FOR UPDATE'),
                   {'u': mine})
    try:
        logs = {host: start(host) for host in (survivor, victim)}
        for host, log in logs.items():
            tc.wait_for(lambda log=log, host=host: 'Conductor %s started' % host
                        in log.read_text(), '%s to start' % host, deadline=90,
                        interval=0.5)
        tc.wait_for(lambda: 'Conductor ring (%s): 2 members' % survivor
                    in logs[survivor].read_text(), 'both conductors in the ring',
                    deadline=30, interval=0.2)
        procs[victim].send_signal(signal.SIGKILL)
        procs[victim].wait(10)
        killed = time.monotonic()
        with engine.begin() as conn:
            orphans = [_insert(conn, victim) for _ in range(ORPHANS)]

        def left():
            with engine.connect() as conn:
                return conn.execute(sa.text(
                    "SELECT count(*) FROM node_allocations WHERE uuid IN :us "
                    "AND state = 'allocating'").bindparams(
                        sa.bindparam('us', expanding=True)), {'us': orphans}).scalar()
        tc.wait_for(lambda: left() == 0, 'the orphans to be finished',
                    deadline=BOUND + SLACK, interval=0.2)
        took = time.monotonic() - killed
        print('%d orphans finished %.1fs after the kill (bound %ds + driving)'
              % (ORPHANS, took, BOUND))
        text = logs[survivor].read_text()
        assert text.count('took over allocation') == ORPHANS, text[-3000:]
    finally:
        held.rollback()
        holder.close()
