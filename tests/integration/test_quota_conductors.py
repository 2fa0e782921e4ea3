"""Quota across real processes: three berth-conductors, a berth-api, RabbitMQ, etcd, PostgreSQL.

A burst of POST /claims from one project, routed by consumer uuid over the
three conductor processes, ends exactly at the project's limit: each claim
transaction locks the project's rows before it counts (objects.placement.quota), so
no two conductors can both see room for the last unit.  Usage is then read
from the database by the API itself, so GET /quotas keeps counting right
with a conductor killed and with the broker stopped (only the writes, which
need a conductor, answer 503 and write nothing).
"""

import collections
import concurrent.futures
import signal
import threading
import uuid as uuidlib

import pytest

from tests import fixtures
from tests.integration import conftest, test_conductors

pytestmark = conftest.MARKS

HOSTS = ('q0', 'q1', 'q2')
LIMIT = 12
CLAIMS = 40
THREADS = 10


@pytest.fixture(scope='module')
def cluster(rabbitmq, etcd, pg_synced, tmp_path_factory):
    c = test_conductors.Cluster(tmp_path_factory.mktemp('quota-cluster'), rabbitmq, etcd,
                                pg_synced)
    with open(c.config, 'a') as f:
        f.write('[quota]\nenforce = true\n')
    with c.serving(HOSTS, tmp_path_factory.mktemp('quota-api')):
        yield c


@pytest.fixture(scope='module')
def http(cluster):
    client = fixtures.PlacementClient(cluster.api_url, version='1.38')
    yield client
    client.close()


def _host(http, vcpu=100):
    return test_conductors.add_vcpu_host(http, 'quota', vcpu)


def _claim(session, project, consumer):
    resp = session.post('/claims', json={
        'consumer_uuid': consumer, 'project_id': project, 'user_id': 'u',
        'consumer_type': 'INSTANCE', 'resources': {'VCPU': 1}})
    code = resp.json()['errors'][0]['code'] if resp.status_code >= 400 else None
    return resp.status_code, code


def _usage(http, project):
    resp = http.get('/quotas/%s' % project)
    assert resp.status_code == 200, resp.text
    return resp.json()['resources']['VCPU']


def test_burst_through_three_conductor_processes_stops_at_the_limit(cluster, http):
    hosts = [_host(http) for _ in range(4)]
    project = 'quota-%s' % uuidlib.uuid4().hex[:8]
    assert http.put('/quotas/%s' % project,
                    json={'resources': {'VCPU': LIMIT}}).status_code == 200
    consumers = [str(uuidlib.uuid4()) for _ in range(CLAIMS)]
    # routed by consumer uuid: the burst reaches every conductor process
    assert {cluster.ring.owner(c) for c in consumers} == set(HOSTS)
    start = threading.Barrier(THREADS)
    local = threading.local()

    def one(consumer):
        if not hasattr(local, 'session'):
            local.session = fixtures.PlacementClient(cluster.api_url, version='1.38')
            start.wait()
        return _claim(local.session, project, consumer)

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        answers = list(pool.map(one, consumers))
    cluster.project = project
    results = collections.Counter(answers)
    assert results == {(201, None): LIMIT, (403, 'berth.quota.exceeded'): CLAIMS - LIMIT}
    assert _usage(http, project) == {'limit': LIMIT, 'usage': LIMIT}
    # what is stored: each granted consumer holds one VCPU, the refused none
    # (the module's database is shared, so the claims may land on providers of
    # other tests too: count per consumer, not per provider of this test)
    held = {}
    for consumer, answer in zip(consumers, answers):
        allocs = http.get('/allocations/%s' % consumer).json()['allocations']
        held[consumer] = sum(a['resources'].get('VCPU', 0) for a in allocs.values())
        assert held[consumer] == (1 if answer[0] == 201 else 0), (consumer, answer)
    assert sum(held.values()) == LIMIT
    used = [http.get('/resource_providers/%s/usages' % rp).json()['usages']['VCPU']
            for rp in hosts]
    assert sum(used) <= LIMIT


def test_usage_is_counted_with_a_conductor_and_then_the_broker_down(cluster, http,
                                                                    rabbitmq):
    project = cluster.project
    victim = cluster.ring.owner(project)
    cluster.signal(victim, signal.SIGKILL)
    assert _usage(http, project) == {'limit': LIMIT, 'usage': LIMIT}
    usages = http.get('/usages?project_id=%s' % project).json()['usages']
    assert usages == {'INSTANCE': {'VCPU': LIMIT, 'consumer_count': LIMIT}}
    rabbitmq.stop_broker()
    try:
        assert _usage(http, project) == {'limit': LIMIT, 'usage': LIMIT}
        assert http.put('/quotas/%s' % project,
                        json={'resources': {'VCPU': LIMIT + 1}}).status_code == 200
        assert _usage(http, project) == {'limit': LIMIT + 1, 'usage': LIMIT}
        consumer = str(uuidlib.uuid4())
        assert _claim(http, project, consumer) == (503, 'berth.service_unavailable')
        assert http.get('/allocations/%s' % consumer).json()['allocations'] == {}
    finally:
        rabbitmq.start()
    assert _usage(http, project) == {'limit': LIMIT + 1, 'usage': LIMIT}


def test_no_orphan_processes(cluster):
    test_conductors.assert_no_orphans(cluster)
