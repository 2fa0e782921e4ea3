"""GET /capacity against real processes: the count is what POST /claims then grants.

Three berth-conductors, a berth-api, RabbitMQ, etcd, PostgreSQL.  A fresh
aggregate scopes the cloud (the session's database is shared with other
modules): three hosts and a nested one, all sharing one DISK_GB provider.
The count, taken before any claim, equals the claims granted until the
first refusal, and then falls to 0 exactly.
"""

import concurrent.futures
import uuid as uuidlib

import pytest

from tests import fixtures
from tests.integration import conftest, test_conductors

pytestmark = conftest.MARKS

HOSTS = ('cap0', 'cap1', 'cap2')


@pytest.fixture(scope='module')
def cluster(rabbitmq, etcd, pg_synced, tmp_path_factory):
    c = test_conductors.Cluster(tmp_path_factory.mktemp('capacity-cluster'), rabbitmq,
                                etcd, pg_synced)
    with c.serving(HOSTS, tmp_path_factory.mktemp('capacity-api')):
        yield c


@pytest.fixture(scope='module')
def http(cluster):
    client = fixtures.PlacementClient(cluster.api_url, version='latest')
    yield client
    client.close()


def _provider(http, inventories, agg, parent=None, traits=()):
    rp = str(uuidlib.uuid4())
    body = {'name': 'cap-' + rp, 'uuid': rp}
    if parent:
        body['parent_provider_uuid'] = parent
    resp = http.post('/resource_providers', json=body)
    assert resp.status_code == 200, resp.text
    gen = 0
    if inventories:
        resp = http.put('/resource_providers/%s/inventories' % rp, json={
            'resource_provider_generation': gen, 'inventories': inventories})
        assert resp.status_code == 200, resp.text
        gen = resp.json()['resource_provider_generation']
    if traits:
        resp = http.put('/resource_providers/%s/traits' % rp, json={
            'resource_provider_generation': gen, 'traits': list(traits)})
        assert resp.status_code == 200, resp.text
        gen = resp.json()['resource_provider_generation']
    resp = http.put('/resource_providers/%s/aggregates' % rp, json={
        'resource_provider_generation': gen, 'aggregates': [agg]})
    assert resp.status_code == 200, resp.text
    return rp


def _claim(session, agg):
    resp = session.post('/claims', json={
        'consumer_uuid': str(uuidlib.uuid4()), 'project_id': 'cap', 'user_id': 'u',
        'resources': {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 10},
        'member_of': [agg]})
    if resp.status_code == 409:
        assert resp.json()['errors'][0]['code'] == 'berth.no_valid_host', resp.text
    else:
        assert resp.status_code == 201, resp.text
    return resp.status_code


def _fits(http, agg):
    resp = http.get('/capacity?resources=VCPU:2,MEMORY_MB:4096,DISK_GB:10'
                    '&member_of=%s' % agg)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_the_count_is_what_the_claims_then_get(cluster, http):
    agg = str(uuidlib.uuid4())
    for vcpu in (8, 6, 4):                        # 4, 3 and 2 copies by VCPU
        _provider(http, {'VCPU': {'total': vcpu}, 'MEMORY_MB': {'total': 65536}}, agg)
    root = _provider(http, {'VCPU': {'total': 8}}, agg)
    _provider(http, {'MEMORY_MB': {'total': 8192}}, agg, parent=root)   # 2 copies
    _provider(http, {'DISK_GB': {'total': 200, 'max_unit': 50, 'step_size': 5}}, agg,
              traits=['MISC_SHARES_VIA_AGGREGATE'])                     # 20 copies
    counted = _fits(http, agg)
    assert counted['fits'] == 11 and counted['aggregates'] == [{'uuid': agg, 'fits': 11}]
    # a burst over the three conductor processes, then one at a time until refused
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        burst = list(pool.map(lambda _: _claim_alone(cluster, agg), range(6)))
    granted = burst.count(201)
    while _claim(http, agg) == 201:
        granted += 1
        assert granted <= 40, 'claims never stopped'
    assert granted == counted['fits']
    assert _fits(http, agg)['fits'] == 0


def _claim_alone(cluster, agg):
    """One claim on a connection of its own (the burst's threads share none)."""
    session = fixtures.PlacementClient(cluster.api_url, version='latest')
    try:
        return _claim(session, agg)
    finally:
        session.close()
