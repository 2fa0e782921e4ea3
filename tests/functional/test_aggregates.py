"""/resource_providers/{uuid}/aggregates: shapes by version, generations, errors."""

import concurrent.futures
import uuid as uuidlib

import pytest

AGG1 = '11111111-1111-1111-1111-111111111111'
AGG2 = '22222222-2222-2222-2222-222222222222'
AGG3 = '33333333-3333-3333-3333-333333333333'
# letters too, so that its upper-case spelling differs
AGGX = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'


@pytest.fixture
def rp(client):
    resp = client.post('/resource_providers', json={'name': 'agg-rp'})
    assert resp.status_code == 200
    return resp.json()['uuid']


def _path(uuid):
    return '/resource_providers/%s/aggregates' % uuid


def _generation(client, uuid):
    return client.get('/resource_providers/%s' % uuid).json()['generation']


def test_gated_below_1_1(client, rp):
    assert client.get(_path(rp), version='1.0').status_code == 404
    assert client.put(_path(rp), json=[], version='1.0').status_code == 404


def test_get_shapes(client, rp):
    resp = client.get(_path(rp), version='1.1')
    assert resp.status_code == 200
    assert resp.json() == {'aggregates': []}
    assert 'last-modified' not in resp.headers
    resp = client.get(_path(rp), version='1.19')
    assert resp.json() == {'aggregates': [], 'resource_provider_generation': 0}
    assert resp.headers['cache-control'] == 'no-cache'
    assert resp.headers['last-modified'].endswith('GMT')


def test_put_before_1_19_leaves_generation(client, rp):
    resp = client.put(_path(rp), json=[AGG2, AGG1], version='1.1')
    assert resp.status_code == 200
    assert resp.json() == {'aggregates': [AGG2, AGG1]}
    assert 'last-modified' not in resp.headers
    assert _generation(client, rp) == 0
    assert sorted(client.get(_path(rp), version='1.1').json()['aggregates']) == [AGG1, AGG2]
    resp = client.put(_path(rp), json=[AGG3], version='1.18')
    assert resp.headers['last-modified'].endswith('GMT')
    assert client.get(_path(rp), version='1.18').json() == {'aggregates': [AGG3]}
    assert _generation(client, rp) == 0


def test_put_from_1_19_checks_and_always_bumps(client, rp):
    body = {'aggregates': [AGG1], 'resource_provider_generation': 0}
    resp = client.put(_path(rp), json=body, version='1.19')
    assert resp.status_code == 200
    assert resp.json() == {'aggregates': [AGG1], 'resource_provider_generation': 1}
    # unchanged set: still bumps
    body = {'aggregates': [AGG1], 'resource_provider_generation': 1}
    assert client.put(_path(rp), json=body).json()['resource_provider_generation'] == 2
    # stale generation
    resp = client.put(_path(rp), json={'aggregates': [], 'resource_provider_generation': 1})
    assert resp.status_code == 409
    assert resp.json()['errors'][0]['code'] == 'placement.concurrent_update'
    assert client.get(_path(rp)).json() == {'aggregates': [AGG1],
                                            'resource_provider_generation': 2}
    # [] clears
    resp = client.put(_path(rp), json={'aggregates': [], 'resource_provider_generation': 2})
    assert resp.json() == {'aggregates': [], 'resource_provider_generation': 3}


@pytest.mark.parametrize('spelling', [AGGX.replace('-', ''), AGGX.replace('-', '').upper(),
                                      AGGX.upper()])
def test_put_dashless_or_upper_is_kept_as_sent(client, rp, spelling):
    """As Placement: the PUT's answer and every later GET say it as it was sent."""
    resp = client.put(_path(rp), json=[spelling], version='1.18')
    assert resp.json() == {'aggregates': [spelling]}
    assert client.get(_path(rp), version='1.18').json() == {'aggregates': [spelling]}
    resp = client.put(_path(rp), json={'aggregates': [spelling, AGG2],
                                       'resource_provider_generation': 0}, version='1.19')
    assert resp.status_code == 200, resp.text
    assert sorted(client.get(_path(rp)).json()['aggregates']) == sorted([spelling, AGG2])
    # member_of (canonical, dashless or upper) still finds the provider
    for member_of in (AGGX, AGGX.replace('-', ''), AGGX.upper()):
        listed = client.get('/resource_providers?member_of=%s' % member_of).json()
        assert [p['uuid'] for p in listed['resource_providers']] == [rp]


def test_aggregates_shared_between_providers(client, rp):
    other = client.post('/resource_providers', json={'name': 'other'}).json()['uuid']
    client.put(_path(rp), json=[AGGX, AGG2], version='1.18')
    client.put(_path(other), json=[AGG2], version='1.18')
    client.put(_path(rp), json=[AGGX], version='1.18')
    assert client.get(_path(other), version='1.18').json() == {'aggregates': [AGG2]}
    listed = client.get('/resource_providers?member_of=%s' % AGG2).json()
    assert [p['uuid'] for p in listed['resource_providers']] == [other]


@pytest.mark.parametrize('body,version', [
    ({'aggregates': [AGGX], 'resource_provider_generation': 0}, '1.18'),
    ([AGGX], '1.19'),
    (['nope'], '1.18'),
    ([AGGX, AGGX], '1.18'),
    ({'aggregates': [AGGX]}, '1.19'),
    ({'resource_provider_generation': 0}, '1.19'),
    ({'aggregates': ['nope'], 'resource_provider_generation': 0}, '1.19'),
    ({'aggregates': [], 'resource_provider_generation': 0, 'x': 1}, '1.19'),
    ({'aggregates': [], 'resource_provider_generation': 'zero'}, '1.19'),
])
def test_put_schema_errors(client, rp, body, version):
    resp = client.put(_path(rp), json=body, version=version)
    assert resp.status_code == 400
    assert 'JSON does not validate' in resp.json()['errors'][0]['detail']
    assert client.get(_path(rp)).json() == {'aggregates': [],
                                            'resource_provider_generation': 0}


def test_unknown_provider_is_404_before_body(client):
    missing = str(uuidlib.uuid4())
    assert client.get(_path(missing)).status_code == 404
    assert client.put(_path(missing), json=['nope'], version='1.18').status_code == 404
    assert client.put(_path('not-a-uuid'), json=[], version='1.18').status_code == 404


def test_wrong_media_type(client, rp):
    resp = client.put(_path(rp), data=b'[]', headers={'Content-Type': 'text/plain'})
    assert resp.status_code == 415


def test_policy(client, rp):
    assert client.get(_path(rp), token='alice:p1').status_code == 403
    assert client.put(_path(rp), json=[], version='1.18', token='alice:p1').status_code == 403


def test_concurrent_puts_one_wins(client, rp):
    """Writers holding the same generation: exactly one succeeds, the rest 409."""
    aggs = [str(uuidlib.uuid4()) for _ in range(8)]

    def put(agg):
        return client.put(_path(rp), json={'aggregates': [agg],
                                           'resource_provider_generation': 0}).status_code

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(put, aggs))
    assert sorted(codes) == [200] + [409] * 7
    body = client.get(_path(rp)).json()
    assert body['resource_provider_generation'] == 1
    assert len(body['aggregates']) == 1 and body['aggregates'][0] in aggs


def test_candidates_member_of_finds_a_dashless_aggregate(client, rp):
    resp = client.post('/resource_providers/%s/inventories' % rp, json={
        'resource_class': 'VCPU', 'total': 4, 'resource_provider_generation': 0})
    assert resp.status_code == 201, resp.text
    client.put(_path(rp), json=[AGGX.replace('-', '')], version='1.18')
    for member_of, found in ((AGGX, [rp]), ('in:%s,%s' % (AGG2, AGGX.upper()), [rp]),
                             (AGG2, []), ('!' + AGGX, [])):
        resp = client.get('/allocation_candidates?resources=VCPU:1&member_of=' + member_of)
        assert resp.status_code == 200, resp.text
        assert [list(a['allocations']) for a in resp.json()['allocation_requests']] == [
            [p] for p in found], member_of
