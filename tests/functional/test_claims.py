"""POST /claims (schedule-and-claim) over HTTP: weighers, count, reasons, bad input, races."""

import concurrent.futures
import threading

import pytest

from tests import fixtures
from tests.functional import claim_helpers as h

NO_VALID_HOST = 'berth.no_valid_host'


@pytest.fixture
def hosts(client, ctx):
    """Three hosts: 8, 4 and 2 VCPUs; the first also has HW_CPU_X86_AVX2."""
    return [h.host(client, ctx, vcpu=8, traits=['HW_CPU_X86_AVX2'], name='big'),
            h.host(client, ctx, vcpu=4, name='mid'),
            h.host(client, ctx, vcpu=2, name='small')]


def test_spread_picks_most_free_pack_least_free(client, hosts):
    big, mid, small = hosts
    assert h.placed_on(h.claim(client, resources={'VCPU': 1})) == [[big]]
    assert h.placed_on(h.claim(client, resources={'VCPU': 1},
                               weigher='pack')) == [[small]]
    assert h.usage(client, big)['VCPU'] == 1
    assert h.usage(client, small)['VCPU'] == 1


def test_random_weigher_claims_somewhere(client, hosts):
    [[rp]] = h.placed_on(h.claim(client, resources={'VCPU': 1}, weigher='random'))
    assert rp in hosts


def test_default_weigher_comes_from_configuration(conf, client, hosts):
    resp = h.claim(client, resources={'VCPU': 1})
    assert resp.json()['weigher'] == conf.scheduler.default_weigher == 'spread'


def test_claim_is_readable_as_allocations(client, hosts):
    consumer = h.new_uuid()
    resp = h.claim(client, consumer=consumer, resources={'VCPU': 2, 'MEMORY_MB': 256},
                   consumer_type='INSTANCE')
    [claim] = resp.json()['claims']
    assert claim['consumer_uuid'] == consumer and claim['consumer_generation'] == 1
    got = client.get('/allocations/%s' % consumer).json()
    assert got['allocations'][hosts[0]]['resources'] == {'VCPU': 2, 'MEMORY_MB': 256}
    assert got['consumer_type'] == 'INSTANCE' and got['project_id'] == 'p1'


def test_available_at_every_microversion(client, hosts):
    resp = client.post('/claims', version='1.0', json=h.claim_body())
    assert resp.status_code == 201, resp.text


def test_required_traits_and_in_tree_are_honoured(client, hosts):
    big, mid, _ = hosts
    assert h.placed_on(h.claim(client, weigher='pack',
                               required=['HW_CPU_X86_AVX2'])) == [[big]]
    assert h.placed_on(h.claim(client, required=['!HW_CPU_X86_AVX2'])) == [[mid]]
    assert h.placed_on(h.claim(client, in_tree=mid, weigher='spread')) == [[mid]]


def test_granular_groups_with_group_policy(client, hosts):
    resp = h.claim(client, resources=None, groups={'1': {'resources': {'VCPU': 1}},
                                                   '2': {'resources': {'VCPU': 1}}},
                   group_policy='none', weigher='pack')
    [[rp]] = h.placed_on(resp)
    assert resp.json()['claims'][0]['allocations'][rp]['resources'] == {'VCPU': 2}


def _multi(consumers, **extra):
    body = {'consumer_uuids': consumers, 'project_id': 'p1', 'user_id': 'u1',
            'resources': {'VCPU': 2}}
    body.update(extra)
    return body


def test_count_places_several_consumers_on_distinct_roots(client, hosts):
    consumers = [h.new_uuid() for _ in range(3)]
    resp = client.post('/claims', json=_multi(consumers, count=3, distinct_roots=True))
    placed = h.placed_on(resp)
    assert sorted(p[0] for p in placed) == sorted(hosts)
    assert [c['consumer_uuid'] for c in resp.json()['claims']] == consumers


def test_count_without_distinct_roots_may_share_a_host(client, hosts):
    resp = client.post('/claims', json=_multi([h.new_uuid() for _ in range(4)],
                                              weigher='pack'))
    placed = h.placed_on(resp)
    assert placed[0] == [hosts[2]] and len(placed) == 4


def test_distinct_roots_that_cannot_fit_is_no_valid_host(client, hosts):
    consumers = [h.new_uuid() for _ in range(4)]
    resp = client.post('/claims', json=_multi(consumers, distinct_roots=True))
    assert 'distinct root providers' in h.error(resp, 409, NO_VALID_HOST)
    for consumer in consumers:
        assert client.get('/allocations/%s' % consumer).json()['allocations'] == {}


@pytest.mark.parametrize('extra, reason', [
    ({'resources': {'VCPU': 9}}, 'free capacity'),
    ({'required': ['HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F']}, 'traits'),
    ({'member_of': ['5e08ea53-c4c6-448e-9334-ac4953de3cfa']}, 'member_of'),
    ({'root_required': ['HW_CPU_X86_AVX']}, 'root_required'),
    ({'resources': {'VCPU': 5}, 'required': ['!HW_CPU_X86_AVX2']}, 'free capacity'),
])
def test_no_valid_host_names_the_constraint(client, hosts, extra, reason):
    consumer = h.new_uuid()
    body = h.claim_body(consumer=consumer)
    body.update(extra)
    detail = h.error(client.post('/claims', json=body), 409, NO_VALID_HOST)
    assert reason in detail
    assert client.get('/allocations/%s' % consumer).json()['allocations'] == {}


def test_group_policy_isolate_named_as_the_reason(client, ctx):
    h.host(client, ctx, vcpu=8)
    resp = h.claim(client, resources=None, groups={'1': {'resources': {'VCPU': 1}},
                                                   '2': {'resources': {'VCPU': 1}}},
                   group_policy='isolate')
    assert 'group_policy' in h.error(resp, 409, NO_VALID_HOST)


def test_consumer_that_already_holds_allocations_is_409(client, hosts):
    consumer = h.new_uuid()
    assert h.claim(client, consumer=consumer).status_code == 201
    h.error(h.claim(client, consumer=consumer), 409, 'placement.concurrent_update')


BAD_INPUT = [
    ({'weigher': 'heaviest'}, "Unknown weigher 'heaviest'"),
    ({'weigher': 7}, "is not of type 'string'"),
    ({'resources': {'VCPU': -1}}, 'minimum'),
    ({'resources': {'VCPU': 1.5}}, "is not of type 'integer'"),
    ({'resources': {'VCPU': '2'}}, "is not of type 'integer'"),
    ({'count': 0}, 'minimum'),
    ({'count': 'two'}, "is not of type 'integer'"),
    ({'group_policy': 'sometimes'}, "is not one of"),
    ({'root_required': ['CUSTOM_NOPE']}, 'CUSTOM_NOPE'),
    ({'member_of': ['in:']}, 'valid UUID'),
    ({'resources': {'VCPU': 0}}, 'minimum'),
    ({'resources': {'NO_SUCH_CLASS': 1}}, 'NO_SUCH_CLASS'),
    ({'required': ['CUSTOM_NOPE']}, 'CUSTOM_NOPE'),
    ({'required': ['!']}, 'empty trait name'),
    ({'member_of': ['not-a-uuid']}, 'valid UUID'),
    ({'in_tree': 'nope'}, "'nope' is not a 'uuid'"),
    ({'resources': None, 'groups': {'1': {'resources': {'VCPU': 1}},
                                    '2': {'resources': {'VCPU': 1}}}},
     'group_policy'),
    ({'same_subtree': [['9']]}, 'Real suffixes should be specified in `same_subtree`'),
    ({'count': 2}, 'count 2 needs 2 distinct consumer uuids'),
    ({'surprise': 1}, 'Additional properties'),
    ({'consumer_uuid': 'nope'}, "'nope' is not a 'uuid'"),
]


def test_bad_input_is_400_and_writes_nothing(client, hosts):
    for extra, text in BAD_INPUT:
        consumer = h.new_uuid()
        body = h.claim_body(consumer=consumer)
        body.update(extra)
        body = {k: v for k, v in body.items() if v is not None}
        resp = client.post('/claims', json=body)
        assert resp.status_code == 400, (extra, resp.text)
        assert text in resp.json()['errors'][0]['detail'], (extra, resp.text)
        assert client.get('/allocations/%s' % consumer).json()['allocations'] == {}
    for rp in hosts:
        assert h.usage(client, rp) == {'VCPU': 0, 'MEMORY_MB': 0}


@pytest.mark.parametrize('uuids, said', [
    ((), 'neither'), (('consumer_uuid', 'consumer_uuids'), 'consumer_uuid and consumer_uuids')])
def test_neither_or_both_consumer_fields_is_one_clear_400(client, hosts, uuids, said):
    """Exactly one of consumer_uuid and consumer_uuids: a stable code, a message naming both."""
    body = h.claim_body()
    del body['consumer_uuid']
    if uuids:
        body.update(consumer_uuid=h.new_uuid(), consumer_uuids=[h.new_uuid()])
    resp = client.post('/claims', json=body, version='latest')
    assert resp.status_code == 400, resp.text
    [error] = resp.json()['errors']
    assert error['code'] == 'berth.claims.consumers'
    assert error['detail'] == (
        'Exactly one of consumer_uuid (one consumer) and consumer_uuids (a list) is '
        'required; the body has %s.' % said)
    for rp in hosts:
        assert h.usage(client, rp) == {'VCPU': 0, 'MEMORY_MB': 0}


def test_limits_are_not_enforced_by_default(client, hosts):
    assert client.put('/quotas/p1', json={'resources': {'VCPU': 0}}).status_code == 200
    assert h.claim(client, resources={'VCPU': 1}).status_code == 201


def test_needs_admin_or_service(client, hosts):
    resp = client.post('/claims', json=h.claim_body(), token='someone:proj')
    assert resp.status_code == 403, resp.text


def test_concurrent_claims_never_overcommit(berth, client, ctx):
    """24 schedulers at once on 2 hosts x 4 VCPUs: 8 succeed, the rest get no_valid_host."""
    hosts = [h.host(client, ctx, vcpu=4) for _ in range(2)]
    threads = 8
    start = threading.Barrier(threads)
    local = threading.local()

    def one(_):
        if not hasattr(local, 'client'):
            local.client = fixtures.PlacementClient(berth.placement_url,
                                                    version='latest')
            start.wait()
        resp = h.claim(local.client, resources={'VCPU': 1})
        return resp.status_code, resp.json().get('errors', [{}])[0].get('code')

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(one, range(24)))
    assert results.count((201, None)) == 8, results
    assert results.count((409, NO_VALID_HOST)) == 16, results
    assert [h.usage(client, rp)['VCPU'] for rp in hosts] == [4, 4]
