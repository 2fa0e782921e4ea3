"""kill -9 of a conductor in the middle of a burst of node allocations.

Real servers: RabbitMQ, Redis (tooz membership), PostgreSQL; three
``berth-conductor`` processes and one ``berth-api``.  One conductor is
killed with SIGKILL while 16 clients allocate; no client sees a 5xx, no node
is held twice, and every allocation ends ``active`` or ``error`` once the
group has noticed (tooz timeout) and the orphan check has run.
"""

import collections
import concurrent.futures
import os
import pathlib
import signal
import subprocess
import tempfile
import threading
import time

import pytest
import requests

from common import context as berth_context
from db import api as db_api
from objects.baremetal import node as node_obj
from tests import services
from tests.integration.conftest import MARKS, bin_path

pytestmark = MARKS

NODES = 60
REQUESTS = 80
TOOZ_TIMEOUT = 3
HEADER = {'X-OpenStack-Ironic-API-Version': '1.60'}


def _write_conf(path, host, rabbitmq, redis, pg_url, bm_port):
    path.write_text(
        '[DEFAULT]\nhost = %s\ntransport_url = %s\n'
        '[database]\nconnection = %s\n'
        '[coordination]\nbackend_url = %s\nwatch_interval = 0.2\n'
        'ring_refresh_interval = 1\n'
        '[conductor]\ngraceful_shutdown_timeout = 5\n'
        '[allocation]\norphan_check_interval = 1\nsweep_interval = 2\n'
        'stale_timeout = 10\n'
        '[api]\nauth_strategy = noauth2\nplacement_port = %d\nbaremetal_port = %d\n'
        % (host, rabbitmq.url, pg_url, redis.url(timeout=TOOZ_TIMEOUT),
           services.free_port(), bm_port) + services.RPC_CONF)
    return str(path)


@pytest.fixture
def cluster(rabbitmq, redis, pg_synced):
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix='berth-kill-'))  # logs kept
    bm_port = services.free_port()
    procs = {}
    logs = []

    def spawn(name, binary):
        conf = _write_conf(tmp_path / ('%s.conf' % name), name, rabbitmq, redis,
                           pg_synced, bm_port)
        log = open(tmp_path / ('%s.log' % name), 'wb')
        logs.append(log)
        procs[name] = subprocess.Popen([bin_path(binary), '--config-file', conf],
                                       stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)

    for i in range(3):
        spawn('cond-%d' % i, 'berth-conductor')
    spawn('api', 'berth-api')
    url = 'http://127.0.0.1:%d' % bm_port
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(url + '/v1', timeout=1).ok:
                break
        except requests.ConnectionError:
            pass
        assert time.monotonic() < deadline, 'berth-api did not start: %s' % tmp_path
        time.sleep(0.2)
    db = db_api.Database(pg_synced)
    try:
        yield url, procs, db
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        for log in logs:
            log.close()
        db.dispose()


def _allocate(session, url, results, lock):
    resp = session.post(url + '/v1/allocations', headers=HEADER,
                        json={'resource_class': 'kill-test'}, timeout=60)
    with lock:
        results.append((resp.status_code, resp.json().get('uuid')))


def test_kill_9_conductor_mid_burst(cluster):
    url, procs, db = cluster
    ctx = berth_context.admin_context(db)
    for i in range(NODES):
        node_obj.create(ctx, {'driver': 'fake-hardware', 'resource_class': 'kill-test',
                              'provision_state': node_obj.AVAILABLE,
                              'power_state': node_obj.POWER_OFF})
    results, lock = [], threading.Lock()
    local = threading.local()
    killed_at = []

    def task(i):
        if i == REQUESTS // 4:
            os.kill(procs['cond-1'].pid, signal.SIGKILL)
            killed_at.append(time.monotonic())
        if not hasattr(local, 'session'):
            local.session = requests.Session()
        _allocate(local.session, url, results, lock)

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(task, range(REQUESTS)))
    answered_at = time.monotonic()
    statuses = collections.Counter(code for code, _ in results)
    assert statuses == {201: REQUESTS}, statuses

    # liveness bound: tooz timeout + orphan check + slack for a loaded machine
    deadline = time.monotonic() + TOOZ_TIMEOUT + 60
    session = requests.Session()
    while True:
        # this module's only: the session's database is shared with other modules
        allocs = session.get(url + '/v1/allocations?resource_class=kill-test',
                             headers=HEADER).json()['allocations']
        if all(a['state'] != 'allocating' for a in allocs) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    settled_at = time.monotonic()
    print('all allocations settled %.1fs after the kill, %.1fs after the last answer'
          % (settled_at - killed_at[0], settled_at - answered_at))
    states = collections.Counter(a['state'] for a in allocs)
    assert states == {'active': NODES, 'error': REQUESTS - NODES}, states
    held = collections.Counter(a['node_uuid'] for a in allocs if a['state'] == 'active')
    assert max(held.values()) == 1
    nodes = session.get(url + '/v1/nodes?fields=uuid,instance_uuid',
                        headers=HEADER).json()['nodes']
    by_node = {n['uuid']: n['instance_uuid'] for n in nodes}
    assert all(by_node[a['node_uuid']] == a['uuid'] for a in allocs
               if a['state'] == 'active')
