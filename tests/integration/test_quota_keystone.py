"""Quota limits from a real Keystone, enforced by three conductor processes on PostgreSQL.

Keystone (tests/keystone_service.py: installed from the package index,
SQLite, fernet, bootstrapped) holds the limits of the placement service
berth's ``[oslo_limit] endpoint_id`` names: a registered limit (the default)
and a project limit (the override), set with Keystone's own API.  A burst
of POST /claims routed over three berth-conductor processes (RabbitMQ,
etcd, PostgreSQL) ends exactly at the limit: each conductor reads the
limits from Keystone (cached) before its transaction, and the count
against them runs inside the claim transaction with the project rows
locked, as for berth's own limits.

The burst's numbers are printed (``-s`` shows them)::

    BERTH_REQUIRE_SERVICES=1 .venv/bin/pytest -q -s -p no:xdist \
        tests/integration/test_quota_keystone.py
"""

import collections
import concurrent.futures
import threading
import uuid as uuidlib

import pytest

from tests import fixtures
from tests import keystone_identity as ks_identity
from tests.integration import conftest, test_conductors

pytestmark = conftest.MARKS

HOSTS = ('k0', 'k1', 'k2')
PROJECT_LIMIT = 12          # class:VCPU project limit of the burst's project
REGISTERED_VCPU = 20        # class:VCPU registered (default) limit
REGISTERED_SERVERS = 100    # servers registered limit (not reached here)
CLAIMS = 40
THREADS = 10


@pytest.fixture(scope='module')
def limits(keystone_identity, tenants):
    """Two fresh Keystone projects; the registered limits and one project limit set."""
    suffix = uuidlib.uuid4().hex[:8]
    service = tenants.placement_service_id
    capped = keystone_identity.ensure_project('quota-capped-%s' % suffix, tenants.domain_id)
    default = keystone_identity.ensure_project('quota-default-%s' % suffix, tenants.domain_id)
    registered = [
        keystone_identity.set_registered_limit(service, 'class:VCPU', REGISTERED_VCPU),
        keystone_identity.set_registered_limit(service, 'servers', REGISTERED_SERVERS)]
    project_limit = keystone_identity.set_project_limit(capped, service, 'class:VCPU',
                                                        PROJECT_LIMIT)
    # what Keystone itself says the effective limits are
    assert keystone_identity.limits(service, capped)['class:VCPU'] == PROJECT_LIMIT
    assert keystone_identity.limits(service, default)['class:VCPU'] == REGISTERED_VCPU
    yield {'capped': capped, 'default': default}
    # the Keystone is the session's: leave its limits as they were
    keystone_identity.delete_project_limit(project_limit)
    for registered_id in registered:
        keystone_identity.delete_registered_limit(registered_id)


@pytest.fixture(scope='module')
def cluster(rabbitmq, etcd, pg_synced, keystone, tenants, limits, tmp_path_factory):
    c = test_conductors.Cluster(tmp_path_factory.mktemp('quota-ks-cluster'), rabbitmq,
                                etcd, pg_synced)
    with open(c.config, 'a') as f:
        f.write('[quota]\nenforce = true\nlimits_source = keystone\n'
                'limits_cache_ttl = 30\n')
        # a claim whose limits are not cached yet holds a conductor worker while
        # Keystone answers (slowly here: SQLite, two workers); room for the burst
        f.write('[conductor]\nworkers = 32\nrpc_timeout = 30\n')
        f.write(ks_identity.oslo_limit_section(keystone.v3, tenants.service,
                                               tenants.placement_endpoint_id))
        # the test Keystone's SQLite answers 500 "database is locked" under
        # concurrent logins: keystoneauth1 retries those
        f.write('status_code_retries = 3\nretriable_status_codes = 500,503\n'
                'status_code_retry_delay = 0.2\n')
    with c.serving(HOSTS, tmp_path_factory.mktemp('quota-ks-api')):
        yield c


@pytest.fixture(scope='module')
def http(cluster):
    client = fixtures.PlacementClient(cluster.api_url, version='1.38')
    yield client
    client.close()


def _host(http, vcpu=100):
    return test_conductors.add_vcpu_host(http, 'quota-ks', vcpu)


def _burst(cluster, project, claims):
    """``claims`` POST /claims of 1 VCPU each from THREADS threads; Counter of outcomes."""
    consumers = [str(uuidlib.uuid4()) for _ in range(claims)]
    # routed by consumer uuid: the burst reaches every conductor process
    assert {cluster.ring.owner(c) for c in consumers} == set(HOSTS)
    start = threading.Barrier(THREADS)
    local = threading.local()

    def one(consumer):
        if not hasattr(local, 'session'):
            local.session = fixtures.PlacementClient(cluster.api_url, version='1.38')
            start.wait()
        resp = local.session.post('/claims', json={
            'consumer_uuid': consumer, 'project_id': project, 'user_id': 'u',
            'consumer_type': 'INSTANCE', 'resources': {'VCPU': 1}})
        code = resp.json()['errors'][0]['code'] if resp.status_code >= 400 else None
        return resp.status_code, code

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        return collections.Counter(pool.map(one, consumers))


def _placed(http, project):
    """VCPU the project holds, counted by GET /usages (a claim may land on any provider)."""
    resp = http.get('/usages?project_id=%s' % project)
    assert resp.status_code == 200, resp.text
    return resp.json()['usages'].get('INSTANCE', {}).get('VCPU', 0)


def test_burst_of_40_against_a_keystone_project_limit_of_12_places_exactly_12(
        cluster, http, limits):
    for _ in range(4):
        _host(http)
    project = limits['capped']
    results = _burst(cluster, project, CLAIMS)
    placed = _placed(http, project)
    print('\nunified limits burst: %d claims of 1 VCPU, Keystone project limit class:VCPU=%d '
          '(registered default %d), 3 conductor processes on PostgreSQL: %d placed (201), '
          '%d refused (403 berth.quota.exceeded), other answers %s, VCPU usage of the '
          'project %d' % (CLAIMS, PROJECT_LIMIT, REGISTERED_VCPU, results[(201, None)],
                          results[(403, 'berth.quota.exceeded')],
                          {k: n for k, n in results.items() if k[0] not in (201, 403)},
                          placed))
    assert results == {(201, None): PROJECT_LIMIT,
                       (403, 'berth.quota.exceeded'): CLAIMS - PROJECT_LIMIT}
    assert placed == PROJECT_LIMIT
    shown = http.get('/quotas/%s' % project).json()
    assert shown['source'] == 'keystone'
    assert shown['resources'] == {'VCPU': {'limit': PROJECT_LIMIT, 'usage': PROJECT_LIMIT}}
    assert shown['consumers'] == {'INSTANCE': {'limit': REGISTERED_SERVERS,
                                               'usage': PROJECT_LIMIT}}
    assert shown['views'] == {'cores': {'limit': None, 'usage': PROJECT_LIMIT}}


def test_the_registered_limit_is_the_default_of_a_project_without_its_own(
        cluster, http, limits):
    _host(http)
    project = limits['default']
    results = _burst(cluster, project, 30)
    print('\nunified limits registered default: 30 claims, class:VCPU default %d: '
          '%d placed' % (REGISTERED_VCPU, results[(201, None)]))
    assert results == {(201, None): REGISTERED_VCPU,
                       (403, 'berth.quota.exceeded'): 30 - REGISTERED_VCPU}
    assert _placed(http, project) == REGISTERED_VCPU
    assert http.get('/quotas/%s' % project).json()['resources'] == {
        'VCPU': {'limit': REGISTERED_VCPU, 'usage': REGISTERED_VCPU}}


def test_quotas_cannot_be_written_in_berth_while_keystone_holds_them(http, limits):
    resp = http.put('/quotas/%s' % limits['capped'], json={'resources': {'VCPU': 99}})
    assert resp.status_code == 409, resp.text
    assert resp.json()['errors'][0]['code'] == 'berth.quota.limits_read_only'


def test_no_orphan_processes(cluster):
    test_conductors.assert_no_orphans(cluster)
