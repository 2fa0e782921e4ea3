"""Quota limits from Keystone unified limits ([quota] limits_source = keystone) over HTTP.

An embedded berth reads its limits from a fake Keystone on loopback
(tests/fake_keystone.py); the real Keystone is in
tests/integration/test_quota_keystone.py.  The check is the one inside the
claim transaction; only where its limits come from differs.
"""

import pytest

from tests import fake_keystone, fixtures
from tests.functional import claim_helpers as h

EXCEEDED = 'berth.quota.exceeded'
UNAVAILABLE = 'berth.quota.limits_unavailable'


@pytest.fixture
def keystone():
    fake = fake_keystone.FakeKeystone()
    fake.registered = {'servers': 10, 'class:VCPU': 100, 'class:MEMORY_MB': -1, 'cores': 50}
    fake.project_limits = {('p1', 'class:VCPU'): 3, ('p2', 'servers'): 1}
    yield fake
    fake.stop()


@pytest.fixture
def conf(tmp_path, keystone):
    path = tmp_path / 'keystone-limits.conf'
    path.write_text(keystone.oslo_limit_section())
    return fixtures.make_conf(tmp_path / 'state', config_files=[path], **{
        'quota.enforce': True, 'quota.limits_source': 'keystone',
        'quota.limits_cache_ttl': 0, 'quota.limits_stale_max_age': 0})


def _put(client, consumer, rp, vcpu, project='p1', consumer_type='INSTANCE', pcpu=0):
    resources = {'VCPU': vcpu} if vcpu else {}
    if pcpu:
        resources['PCPU'] = pcpu
    return client.put('/allocations/%s' % consumer, json={
        'allocations': {rp: {'resources': resources}}, 'project_id': project,
        'user_id': 'u1', 'consumer_generation': None, 'consumer_type': consumer_type})


def test_project_limit_overrides_the_registered_one_inside_the_claim(client, ctx):
    rp = h.host(client, ctx)
    assert _put(client, h.new_uuid(), rp, 2).status_code == 204
    text = h.error(_put(client, h.new_uuid(), rp, 2), 403, EXCEEDED)
    assert 'VCPU limit 3, usage would be 4' in text
    assert _put(client, h.new_uuid(), rp, 1).status_code == 204
    # another project has the registered default of 100 VCPU
    assert _put(client, h.new_uuid(), rp, 4, project='p3').status_code == 204


def test_servers_counts_instance_consumers(client, ctx):
    rp = h.host(client, ctx)
    assert _put(client, h.new_uuid(), rp, 1, project='p2').status_code == 204
    text = h.error(_put(client, h.new_uuid(), rp, 1, project='p2'), 403, EXCEEDED)
    assert 'INSTANCE consumers limit 1' in text
    # a consumer of another type is not a server
    assert _put(client, h.new_uuid(), rp, 1, project='p2',
                consumer_type='MIGRATION').status_code == 204


def test_get_quotas_shows_keystone_limits_usage_and_cores(client, ctx):
    rp = h.host(client, ctx)
    assert _put(client, h.new_uuid(), rp, 2).status_code == 204
    body = client.get('/quotas/p1').json()
    assert body == {
        'project_id': 'p1', 'user_id': None, 'source': 'keystone',
        'resources': {'VCPU': {'limit': 3, 'usage': 2}},
        'consumers': {'INSTANCE': {'limit': 10, 'usage': 1}},
        'views': {'cores': {'limit': 50, 'usage': 2}}, 'enforced': True}
    # Keystone has no per-user limits
    user = client.get('/quotas/p1?user_id=u1').json()
    assert user['source'] == 'keystone' and user['resources'] == {}
    assert user['views'] == {'cores': {'limit': None, 'usage': 2}}


def test_cores_limits_vcpu_and_pcpu_together(client, ctx, keystone):
    rp = h.host(client, ctx)
    resp = client.put('/resource_providers/%s/inventories' % rp, json={
        'resource_provider_generation': 1,
        'inventories': {'VCPU': {'total': 8}, 'PCPU': {'total': 8}}})
    assert resp.status_code == 200, resp.text
    keystone.project_limits[('p4', 'cores')] = 3
    assert _put(client, h.new_uuid(), rp, 1, project='p4', pcpu=2).status_code == 204
    text = h.error(_put(client, h.new_uuid(), rp, 0, project='p4', pcpu=1), 403, EXCEEDED)
    assert 'cores (VCPU + PCPU) limit 3, usage would be 4' in text


def test_put_and_delete_quotas_are_409_while_keystone_holds_the_limits(client):
    resp = client.put('/quotas/p1', json={'resources': {'VCPU': 1}})
    assert 'openstack limit set' in h.error(resp, 409, 'berth.quota.limits_read_only')
    h.error(client.delete('/quotas/p1'), 409, 'berth.quota.limits_read_only')
    assert client.get('/quotas/p1').json()['resources']['VCPU']['limit'] == 3


def test_keystone_down_refuses_the_claim_with_503_and_writes_nothing(client, ctx, keystone):
    rp = h.host(client, ctx)
    keystone.down = True
    consumer = h.new_uuid()
    text = h.error(_put(client, consumer, rp, 1), 503, UNAVAILABLE)
    assert 'refused rather than let through unlimited' in text
    assert client.get('/allocations/%s' % consumer).json()['allocations'] == {}
    h.error(client.get('/quotas/p1'), 503, UNAVAILABLE)
    keystone.down = False
    assert _put(client, consumer, rp, 1).status_code == 204
