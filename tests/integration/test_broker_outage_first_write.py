"""RabbitMQ stopped before a fresh API process's first write: 503 within the bound, nothing written.

A ``berth-conductor`` joins the ring while RabbitMQ runs; then RabbitMQ stops
and a fresh API starts, ``berth-api`` or gunicorn with one worker (it has
never reached the broker, so it has no reply queue).  Its first write answers 503
``berth.service_unavailable`` in Placement's JSON format within the write
bound (the HTTP client gives up after the bound plus a margin: a hang
fails), reads still work, and ``/status.json`` answers and names the
broker as unreachable.  After RabbitMQ returns, a new write is granted and
the first one is nowhere: it was never committed, then or later.
"""

import os
import pathlib
import signal
import subprocess
import time
import uuid as uuidlib

import pytest
import requests

from conductor import rpcapi
from tests import fixtures, services
from tests.functional import baremetal_helpers as h
from tests.integration import conftest
from tests.integration import test_conductors as tc

pytestmark = conftest.MARKS

RPC_TIMEOUT = 5                 # the cluster's [conductor] rpc_timeout
BOUND = RPC_TIMEOUT + 30        # an answer later than this is a hang: the test fails
ROOT = pathlib.Path(__file__).resolve().parents[2]
# the node class of this module's node (the session's database is shared)
RESOURCE_CLASS = 'outage-test'
GUNICORN = conftest.bin_path('gunicorn')


@pytest.fixture
def cluster(rabbitmq, etcd, pg_synced, tmp_path_factory):
    c = tc.Cluster(tmp_path_factory.mktemp('outage'), rabbitmq, etcd, pg_synced)
    yield c
    c.stop_all()


def _start_gunicorn(cluster):
    """gunicorn with the sample settings and one worker on the cluster's config; its URL."""
    if not os.access(GUNICORN, os.X_OK):
        services.unavailable('gunicorn is not installed in this virtualenv')
    port = services.free_port()
    log_path = cluster.workdir / 'gunicorn.log'
    env = dict(os.environ, BERTH_CONFIG_FILE=str(cluster.config), BERTH_WORKERS='1',
               BERTH_BIND='127.0.0.1:%d' % port)
    with open(log_path, 'ab') as log:
        cluster.procs['gunicorn'] = subprocess.Popen(
            [GUNICORN, '-c', str(ROOT / 'etc/berth/gunicorn.conf.py'),
             '--no-control-socket', 'api.wsgi:application'],
            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
    url = 'http://127.0.0.1:%d' % port

    def answers():
        assert cluster.procs['gunicorn'].poll() is None, log_path.read_text()[-3000:]
        try:    # the worker's first request builds its app, after the fork
            return requests.get(url + '/', timeout=BOUND).status_code == 200
        except requests.RequestException:
            return False
    tc.wait_for(answers, 'gunicorn to answer', deadline=120, interval=0.2)
    return url


START = {'berth-api': lambda cluster: cluster.start_api(), 'gunicorn': _start_gunicorn}


def _conductor_in_ring(cluster, tmp_path):
    """Start conductor ``outage-c0`` while the broker runs; return once it is in the ring."""
    cluster.start('outage-c0')
    reader = rpcapi.APIConductorClient(cluster.client_conf(tmp_path))
    try:
        tc.wait_for(lambda: reader.ring.members() == {'outage-c0'}, 'the conductor')
    finally:
        reader.stop()


def _claim(http, rp, consumer):
    return http.put('/allocations/%s' % consumer, timeout=BOUND, json={
        'allocations': {rp: {'resources': {'VCPU': 1}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None})


@pytest.mark.parametrize('server', sorted(START))
def test_a_fresh_api_answers_503_and_writes_nothing_while_the_broker_is_down(
        cluster, rabbitmq, tmp_path, server):
    _conductor_in_ring(cluster, tmp_path)
    rabbitmq.stop_broker()
    try:
        http = fixtures.PlacementClient(START[server](cluster), version='1.28')
        rp = tc.add_vcpu_host(http, 'outage', vcpu=4)      # no broker needed
        first = str(uuidlib.uuid4())
        started = time.monotonic()
        resp = _claim(http, rp, first)
        took = time.monotonic() - started
        assert resp.status_code == 503, resp.text
        assert resp.headers['content-type'].startswith('application/json')
        assert resp.json()['errors'][0]['code'] == 'berth.service_unavailable'
        print('first write of a fresh %s with the broker down: 503 after %.2fs '
              '(rpc_timeout %ds)' % (server, took, RPC_TIMEOUT))
        status = http.get('/status.json', version='', timeout=BOUND)
        assert status.status_code == 200, status.text
        assert 'broker' in status.json()['unreachable']
        usages = http.get('/resource_providers/%s/usages' % rp, timeout=BOUND)
        assert usages.status_code == 200 and usages.json()['usages']['VCPU'] == 0
    finally:
        rabbitmq.start()
    second = str(uuidlib.uuid4())
    tc.wait_for(lambda: _claim(http, rp, second).status_code == 204,
                'writes to work again once the broker is back', deadline=120, interval=0.5)
    assert http.get('/status.json', version='', timeout=BOUND).json()['unreachable'] == []
    # the first write was never committed, then or later
    assert http.get('/allocations/%s' % first).json()['allocations'] == {}
    assert http.get('/resource_providers/%s/usages' % rp).json()['usages']['VCPU'] == 1
    http.close()


def test_a_node_allocation_on_a_fresh_api_answers_503_and_is_never_driven(
        cluster, rabbitmq, tmp_path):
    """POST /v1/allocations with the broker down: 503, and no conductor drives the row.

    The conductor reads the database, not the broker, so before its re-drive
    left a row it never heard of to the API's send window it drove the
    stored row while the API was still trying to send the cast: the client
    got 201 (state ``active`` or ``error``) for an allocation the API had
    meant to withdraw (mutation: AllocationQueue.redrive taking unseen rows
    at ``min_age`` makes this answer 201).
    """
    _conductor_in_ring(cluster, tmp_path)
    bm_url = 'http://127.0.0.1:%s' % cluster.config.read_text().split(
        'baremetal_port = ')[1].split()[0]
    cluster.start_api()
    bm = fixtures.BaremetalClient(bm_url)
    node = h.make_node(bm, 'outage-n1', resource_class=RESOURCE_CLASS)  # via the conductor
    bm.close()
    assert cluster.signal('api', signal.SIGTERM) == 0
    rabbitmq.stop_broker()
    try:
        cluster.start_api()                       # fresh: it never reached the broker
        bm = fixtures.BaremetalClient(bm_url)
        started = time.monotonic()
        resp = bm.post('/v1/allocations', json={'resource_class': RESOURCE_CLASS}, timeout=BOUND)
        took = time.monotonic() - started
        assert resp.status_code == 503, resp.text
        print('node allocation on a fresh berth-api with the broker down: 503 after '
              '%.2fs' % took)
        # this test's class only: the worker's database is shared with the
        # files before it (test_node_allocation_batch_pg.py leaves its own)
        listed = bm.get('/v1/allocations?resource_class=%s' % RESOURCE_CLASS, timeout=BOUND)
        assert listed.status_code == 200 and listed.json()['allocations'] == []
    finally:
        rabbitmq.start()
    # once the broker is back: still nothing of the first, and the node is free
    done = {}

    def allocated():
        resp = bm.post('/v1/allocations', json={'resource_class': RESOURCE_CLASS}, timeout=BOUND)
        done['resp'] = resp
        return resp.status_code == 201
    tc.wait_for(allocated, 'node allocations to work again', deadline=120, interval=0.5)
    second = h.wait_allocation(bm, done['resp'].json()['uuid'], deadline=60)
    assert second['state'] == 'active' and second['node_uuid'] == node['uuid']
    mine = bm.get('/v1/allocations?resource_class=%s' % RESOURCE_CLASS).json()
    assert [a['uuid'] for a in mine['allocations']] == [second['uuid']]
    # the database is the session's: leave no allocation for the next module
    assert bm.delete('/v1/allocations/%s' % second['uuid']).status_code == 204
    bm.close()
