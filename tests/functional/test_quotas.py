"""Quota limits (/quotas and enforcement in the claiming transaction) over HTTP."""

import concurrent.futures
import threading

import pytest

from tests import fixtures
from tests.functional import claim_helpers as h

EXCEEDED = 'berth.quota.exceeded'


@pytest.fixture
def conf(conf):
    """Quota enforced, three conductors (claims of one project race across them)."""
    conf.set_override('enforce', True, group='quota')
    conf.set_override('embedded_conductors', 3, group='conductor')
    return conf


def _put(client, consumer, rp, vcpu, project='p1', user='u1', consumer_type='INSTANCE'):
    return client.put('/allocations/%s' % consumer, json={
        'allocations': {rp: {'resources': {'VCPU': vcpu}}}, 'project_id': project,
        'user_id': user, 'consumer_generation': None, 'consumer_type': consumer_type})


def test_limits_round_trip_with_usage_beside_them(client, ctx):
    rp = h.host(client, ctx)
    assert _put(client, h.new_uuid(), rp, 2).status_code == 204
    resp = client.put('/quotas/p1', json={'resources': {'VCPU': 10, 'MEMORY_MB': 0},
                                          'consumers': {'INSTANCE': 5}})
    assert resp.status_code == 200, resp.text
    shown = client.get('/quotas/p1').json()
    assert shown == resp.json() == {
        'project_id': 'p1', 'user_id': None,
        'resources': {'MEMORY_MB': {'limit': 0, 'usage': 0},
                      'VCPU': {'limit': 10, 'usage': 2}},
        'consumers': {'INSTANCE': {'limit': 5, 'usage': 1}}, 'source': 'berth',
        'enforced': True}
    assert 'Warning' not in resp.headers       # enforced limits need no warning
    # a user's limits are a separate scope
    assert client.get('/quotas/p1?user_id=u1').json()['resources'] == {}
    assert client.delete('/quotas/p1').status_code == 204
    assert client.get('/quotas/p1').json()['resources'] == {}


def test_available_at_every_microversion_and_admin_only(client):
    assert client.get('/quotas/p1', version='1.0').status_code == 200
    assert client.get('/quotas/p1', token='alice:p1').status_code == 403
    resp = client.put('/quotas/p1', json={'resources': {'VCPU': 1}}, token='alice:p1')
    assert resp.status_code == 403
    assert client.get('/quotas/p1').json()['resources'] == {}


@pytest.mark.parametrize('body, text', [
    ({'resources': {'VCPU': -1}}, 'minimum'),
    ({'resources': {'VCPU': 1.5}}, "is not of type 'integer'"),
    ({'resources': {'VCPU': '3'}}, "is not of type 'integer'"),
    ({'resources': {'NO_SUCH_CLASS': 3}}, 'NO_SUCH_CLASS'),
    ({'resources': {'vcpu': 3}}, 'does not match'),
    ({'consumers': {'INSTANCE': -2}}, 'minimum'),
    ({'consumers': {'INSTANCE': 0.5}}, "is not of type 'integer'"),
    ({'limits': {}}, 'Additional properties'),
])
def test_bad_limits_are_400_and_change_nothing(client, body, text):
    assert client.put('/quotas/p1', json={'resources': {'VCPU': 4}}).status_code == 200
    resp = client.put('/quotas/p1', json=body)
    assert text in h.error(resp, 400, 'placement.undefined_code')
    assert client.get('/quotas/p1').json()['resources'] == {
        'VCPU': {'limit': 4, 'usage': 0}}


def test_bad_user_limits_are_400_and_change_nothing(client):
    assert client.put('/quotas/p1?user_id=u1',
                      json={'resources': {'VCPU': 2}}).status_code == 200
    for body in ({'resources': {'NO_SUCH_CLASS': 1}}, {'resources': {'VCPU': -1}},
                 {'resources': {'VCPU': 'x'}}):
        h.error(client.put('/quotas/p1?user_id=u1', json=body), 400,
                'placement.undefined_code')
    assert client.get('/quotas/p1?user_id=u1').json()['resources'] == {
        'VCPU': {'limit': 2, 'usage': 0}}


def test_bad_query_is_400(client):
    h.error(client.get('/quotas/p1?user=u1'), 400, 'placement.undefined_code')


def test_put_allocations_over_a_limit_is_403(client, ctx):
    rp = h.host(client, ctx)
    client.put('/quotas/p1', json={'resources': {'VCPU': 3}})
    assert _put(client, h.new_uuid(), rp, 2).status_code == 204
    consumer = h.new_uuid()
    detail = h.error(_put(client, consumer, rp, 2), 403, EXCEEDED)
    assert 'project p1' in detail and 'VCPU limit 3' in detail
    assert client.get('/allocations/%s' % consumer).json()['allocations'] == {}
    # other projects are not limited
    assert _put(client, h.new_uuid(), rp, 2, project='p2').status_code == 204


def test_post_allocations_checks_every_project(client, ctx):
    rp = h.host(client, ctx)
    client.put('/quotas/p2', json={'resources': {'VCPU': 1}})
    body = {c: {'allocations': {rp: {'resources': {'VCPU': 1}}}, 'project_id': p,
                'user_id': 'u', 'consumer_generation': None, 'consumer_type': 'INSTANCE'}
            for c, p in ((h.new_uuid(), 'p1'), (h.new_uuid(), 'p2'), (h.new_uuid(), 'p2'))}
    h.error(client.post('/allocations', json=body), 403, EXCEEDED)
    assert h.usage(client, rp)['VCPU'] == 0


def test_consumer_count_and_user_limits(client, ctx):
    rp = h.host(client, ctx)
    client.put('/quotas/p1', json={'consumers': {'INSTANCE': 2}})
    client.put('/quotas/p1?user_id=u2', json={'resources': {'VCPU': 1}})
    assert _put(client, h.new_uuid(), rp, 1).status_code == 204
    assert _put(client, h.new_uuid(), rp, 1, consumer_type='MIGRATION').status_code == 204
    assert _put(client, h.new_uuid(), rp, 1, user='u2').status_code == 204
    detail = h.error(_put(client, h.new_uuid(), rp, 1), 403, EXCEEDED)
    assert 'INSTANCE consumers limit 2' in detail
    detail = h.error(_put(client, h.new_uuid(), rp, 1, user='u2',
                          consumer_type='MIGRATION'), 403, EXCEEDED)
    assert 'project p1 user u2' in detail and 'VCPU limit 1' in detail


def test_shrinking_a_usage_above_a_lowered_limit_is_allowed(client, ctx):
    rp = h.host(client, ctx)
    consumer = h.new_uuid()
    assert _put(client, consumer, rp, 4).status_code == 204
    client.put('/quotas/p1', json={'resources': {'VCPU': 1}})
    resp = client.put('/allocations/%s' % consumer, json={
        'allocations': {rp: {'resources': {'VCPU': 3}}}, 'project_id': 'p1',
        'user_id': 'u1', 'consumer_generation': 1, 'consumer_type': 'INSTANCE'})
    assert resp.status_code == 204, resp.text
    assert client.delete('/allocations/%s' % consumer).status_code == 204


def test_schedule_and_claim_is_checked_too(client, ctx):
    h.host(client, ctx)
    client.put('/quotas/p1', json={'resources': {'VCPU': 2}})
    assert h.claim(client, resources={'VCPU': 2}).status_code == 201
    h.error(h.claim(client, resources={'VCPU': 1}), 403, EXCEEDED)


def test_burst_from_one_project_never_overshoots(berth, client, ctx):
    """40 claims at once from 8 threads over 3 conductors and 4 trees; limit 10."""
    hosts = [h.host(client, ctx, vcpu=16) for _ in range(4)]
    client.put('/quotas/p1', json={'resources': {'VCPU': 10}})
    threads = 8
    start = threading.Barrier(threads)
    local = threading.local()

    def one(i):
        if not hasattr(local, 'client'):
            local.client = fixtures.PlacementClient(berth.placement_url,
                                                    version='latest')
            start.wait()
        if i % 2:
            resp = _put(local.client, h.new_uuid(), hosts[i % 4], 1)
        else:
            resp = h.claim(local.client, resources={'VCPU': 1})
        return resp.status_code

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(one, range(40)))
    granted = [s for s in results if s in (201, 204)]
    assert len(granted) == 10 and results.count(403) == 30, results
    assert client.get('/quotas/p1').json()['resources']['VCPU'] == {
        'limit': 10, 'usage': 10}
    assert sum(h.usage(client, rp)['VCPU'] for rp in hosts) == 10


def test_usage_still_counted_with_every_conductor_down(berth, client, ctx):
    rp = h.host(client, ctx)
    client.put('/quotas/p1', json={'resources': {'VCPU': 5}})
    assert _put(client, h.new_uuid(), rp, 3).status_code == 204
    for conductor in berth.conductors:
        conductor.stop(grace=0)
    berth.conductor_api.ring.refresh()
    assert client.get('/quotas/p1').json()['resources']['VCPU'] == {'limit': 5,
                                                                     'usage': 3}
    resp = h.claim(client, resources={'VCPU': 1})
    h.error(resp, 503, 'berth.service_unavailable')
