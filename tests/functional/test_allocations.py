"""PUT/GET/DELETE /allocations/{consumer_uuid} in every microversion shape."""

import pytest

from tests.functional import alloc_helpers as h

INV = {'VCPU': {'total': 8, 'max_unit': 4},
       'MEMORY_MB': {'total': 2048, 'min_unit': 128, 'step_size': 128},
       'DISK_GB': {'total': 100}}
NIL = '00000000-0000-0000-0000-000000000000'


@pytest.fixture
def rp(client, ctx):
    return h.provider(client, ctx, INV)


@pytest.fixture
def rp2(client, ctx):
    return h.provider(client, ctx, INV)


def _get(client, consumer, version='latest'):
    resp = client.get('/allocations/%s' % consumer, version=version)
    assert resp.status_code == 200, resp.text
    return resp.json()


# --- GET ---------------------------------------------------------------------

@pytest.mark.parametrize('version', ['1.0', '1.12', '1.28', '1.38'])
def test_get_unknown_consumer_is_empty(client, version):
    assert _get(client, h.new_uuid(), version) == {'allocations': {}}
    assert _get(client, 'not-a-uuid', version) == {'allocations': {}}


def test_get_shapes_by_version(client, rp):
    c = h.new_uuid()
    assert h.put(client, c, {rp: {'VCPU': 2}}, version='1.38',
                 consumer_type='INSTANCE').status_code == 204
    gen = h.generation(client, rp)
    alloc = {rp: {'generation': gen, 'resources': {'VCPU': 2}}}
    assert _get(client, c, '1.11') == {'allocations': alloc}
    assert _get(client, c, '1.12') == {'allocations': alloc, 'project_id': 'p1',
                                       'user_id': 'u1'}
    assert _get(client, c, '1.28') == {'allocations': alloc, 'project_id': 'p1',
                                       'user_id': 'u1', 'consumer_generation': 1}
    assert _get(client, c, '1.38') == {'allocations': alloc, 'project_id': 'p1',
                                       'user_id': 'u1', 'consumer_generation': 1,
                                       'consumer_type': 'INSTANCE'}
    resp = client.get('/allocations/%s' % c)
    assert resp.headers['cache-control'] == 'no-cache'
    assert 'last-modified' in resp.headers


# --- PUT shapes ----------------------------------------------------------------

def test_put_1_0_list_gets_incomplete_consumer(client, rp):
    c = h.new_uuid()
    resp = client.put('/allocations/%s' % c, version='1.0', json={'allocations': [
        {'resource_provider': {'uuid': rp}, 'resources': {'VCPU': 1, 'DISK_GB': 10}}]})
    assert resp.status_code == 204, resp.text
    assert 'content-type' not in resp.headers
    got = _get(client, c, '1.38')
    assert got['allocations'][rp]['resources'] == {'VCPU': 1, 'DISK_GB': 10}
    assert (got['project_id'], got['user_id']) == (NIL, NIL)
    assert got['consumer_type'] == 'unknown'


def test_put_before_1_8_refuses_project(client, rp):
    resp = client.put('/allocations/%s' % h.new_uuid(), version='1.7', json={
        'allocations': [{'resource_provider': {'uuid': rp}, 'resources': {'VCPU': 1}}],
        'project_id': 'p', 'user_id': 'u'})
    h.error(resp, 400, version_has_code=False)


def test_put_1_8_list_requires_project_and_user(client, rp):
    c = h.new_uuid()
    items = [{'resource_provider': {'uuid': rp}, 'resources': {'VCPU': 1}}]
    resp = client.put('/allocations/%s' % c, version='1.8', json={'allocations': items})
    assert "'project_id' is a required property" in h.error(
        resp, 400, version_has_code=False)
    resp = client.put('/allocations/%s' % c, version='1.8', json={
        'allocations': items, 'project_id': 'p8', 'user_id': 'u8'})
    assert resp.status_code == 204, resp.text
    got = _get(client, c, '1.12')
    assert (got['project_id'], got['user_id']) == ('p8', 'u8')


def test_put_1_12_dict_shape(client, rp, rp2):
    c = h.new_uuid()
    body = {'allocations': {rp: {'resources': {'VCPU': 1}, 'generation': 999},
                            rp2: {'resources': {'MEMORY_MB': 256}}},
            'project_id': 'p', 'user_id': 'u'}
    # the list shape is not accepted any more, the dict shape not before
    h.error(client.put('/allocations/%s' % c, version='1.11', json=body), 400,
            version_has_code=False)
    assert client.put('/allocations/%s' % c, version='1.12',
                      json=body).status_code == 204
    got = _get(client, c, '1.12')
    assert got['allocations'][rp]['resources'] == {'VCPU': 1}
    assert got['allocations'][rp2]['resources'] == {'MEMORY_MB': 256}
    # at 1.12 an empty allocations object is not allowed
    h.error(client.put('/allocations/%s' % c, version='1.12', json=dict(
        body, allocations={})), 400, version_has_code=False)


def test_put_dashless_consumer_is_normalised(client, rp):
    c = h.new_uuid()
    assert h.put(client, c.replace('-', ''), {rp: {'VCPU': 1}}).status_code == 204
    assert _get(client, c)['allocations'][rp]['resources'] == {'VCPU': 1}


def test_put_malformed_consumer_uuid(client, rp):
    detail = h.error(h.put(client, 'not-a-uuid', {rp: {'VCPU': 1}}), 400)
    assert 'Malformed consumer_uuid' in detail


# --- consumer generations (1.28) ------------------------------------------------

def test_consumer_generation_rules(client, rp):
    c = h.new_uuid()
    body = h.body({rp: {'VCPU': 1}})
    del body['consumer_generation']
    h.error(client.put('/allocations/%s' % c, version='1.28', json=body), 400)
    # a number for a consumer that does not exist
    detail = h.error(h.put(client, c, {rp: {'VCPU': 1}}, generation=0), 409, h.CONCURRENT)
    assert 'consumer generation conflict' in detail
    assert h.put(client, c, {rp: {'VCPU': 1}}).status_code == 204
    assert _get(client, c)['consumer_generation'] == 1
    # null for a consumer that exists, then a wrong number
    h.error(h.put(client, c, {rp: {'VCPU': 2}}), 409, h.CONCURRENT)
    h.error(h.put(client, c, {rp: {'VCPU': 2}}, generation=7), 409, h.CONCURRENT)
    assert _get(client, c)['allocations'][rp]['resources'] == {'VCPU': 1}
    assert h.put(client, c, {rp: {'VCPU': 2}}, generation=1).status_code == 204
    assert _get(client, c)['consumer_generation'] == 2
    # a write below 1.28 bumps it without checking
    assert client.put('/allocations/%s' % c, version='1.27', json={
        'allocations': {rp: {'resources': {'VCPU': 3}}}, 'project_id': 'p1',
        'user_id': 'u1'}).status_code == 204
    assert _get(client, c)['consumer_generation'] == 3
    # clearing with {} removes the consumer: the next write expects null again
    assert h.put(client, c, {}, generation=3).status_code == 204
    assert _get(client, c) == {'allocations': {}}
    h.error(h.put(client, c, {rp: {'VCPU': 1}}, generation=4), 409, h.CONCURRENT)
    assert h.put(client, c, {rp: {'VCPU': 1}}).status_code == 204


def test_project_and_user_follow_the_latest_write(client, rp):
    c = h.new_uuid()
    assert h.put(client, c, {rp: {'VCPU': 1}}).status_code == 204
    assert h.put(client, c, {rp: {'VCPU': 1}}, generation=1, project='p2',
                 user='u2').status_code == 204
    got = _get(client, c)
    assert (got['project_id'], got['user_id']) == ('p2', 'u2')


# --- mappings (1.34) and consumer types (1.38) -----------------------------------

def test_mappings_accepted_from_1_34_and_ignored(client, rp):
    c = h.new_uuid()
    mappings = {'': [rp], '_CPU': [rp]}
    h.error(h.put(client, c, {rp: {'VCPU': 1}}, version='1.33', mappings=mappings), 400)
    for bad in ({}, {'': []}, {'': ['not-a-uuid']}, {'': rp}):
        h.error(h.put(client, c, {rp: {'VCPU': 1}}, version='1.34', mappings=bad), 400)
    assert h.put(client, c, {rp: {'VCPU': 1}}, version='1.34',
                 mappings=mappings).status_code == 204
    assert 'mappings' not in _get(client, c)


def test_consumer_type(client, rp):
    c = h.new_uuid()
    h.error(h.put(client, c, {rp: {'VCPU': 1}}, version='1.38'), 400)
    h.error(h.put(client, c, {rp: {'VCPU': 1}}, version='1.38',
                  consumer_type='instance'), 400)
    h.error(h.put(client, c, {rp: {'VCPU': 1}}, version='1.37',
                  consumer_type='INSTANCE'), 400)
    assert h.put(client, c, {rp: {'VCPU': 1}}, version='1.38',
                 consumer_type='INSTANCE').status_code == 204
    assert _get(client, c)['consumer_type'] == 'INSTANCE'
    # a write below 1.38 keeps the type, a 1.38 write changes it
    assert h.put(client, c, {rp: {'VCPU': 2}}, version='1.37',
                 generation=1).status_code == 204
    assert _get(client, c)['consumer_type'] == 'INSTANCE'
    assert h.put(client, c, {rp: {'VCPU': 2}}, version='1.38', generation=2,
                 consumer_type='MIGRATION').status_code == 204
    assert _get(client, c)['consumer_type'] == 'MIGRATION'


# --- provider generations --------------------------------------------------------

def test_provider_generations(client, rp, rp2):
    c = h.new_uuid()
    g1, g2 = h.generation(client, rp), h.generation(client, rp2)
    assert h.put(client, c, {rp: {'VCPU': 1}, rp2: {'VCPU': 1}}).status_code == 204
    assert (h.generation(client, rp), h.generation(client, rp2)) == (g1 + 1, g2 + 1)
    # a provider dropped by a non-empty replacement is not bumped
    assert h.put(client, c, {rp: {'VCPU': 2}}, generation=1).status_code == 204
    assert (h.generation(client, rp), h.generation(client, rp2)) == (g1 + 2, g2 + 1)
    # a provider cleared through {} is
    assert h.put(client, c, {}, generation=2).status_code == 204
    assert h.generation(client, rp) == g1 + 3
    # DELETE bumps nothing
    assert h.put(client, c, {rp: {'VCPU': 1}}).status_code == 204
    assert client.delete('/allocations/%s' % c).status_code == 204
    assert h.generation(client, rp) == g1 + 4


# --- errors ----------------------------------------------------------------------

@pytest.mark.parametrize('resources', [{'VCPU': 0}, {'vcpu': 1}, {}, {'VCPU': 'x'},
                                       {'VCPU': 2147483648}])
def test_put_schema_errors(client, rp, resources):
    h.error(h.put(client, h.new_uuid(), {rp: resources}), 400)


def test_put_media_type_and_json_errors(client, rp):
    c = h.new_uuid()
    resp = client.put('/allocations/%s' % c, data='{', headers={
        'content-type': 'application/json'})
    assert 'Malformed JSON' in h.error(resp, 400)
    resp = client.put('/allocations/%s' % c, data='x', headers={
        'content-type': 'text/plain'})
    h.error(resp, 415)


def test_put_unknown_provider_and_class(client, rp):
    c = h.new_uuid()
    detail = h.error(h.put(client, c, {h.new_uuid(): {'VCPU': 1}}), 400)
    assert 'does not exist' in detail
    h.error(h.put(client, c, {rp: {'CUSTOM_NOPE': 1}}), 400)
    assert _get(client, c) == {'allocations': {}}


@pytest.mark.parametrize('resources', [
    {'VCPU': 5},            # above max_unit
    {'MEMORY_MB': 64},      # below min_unit
    {'MEMORY_MB': 200},     # not a multiple of step_size
    {'VGPU': 1},            # no inventory of the class
    {'DISK_GB': 101},       # over capacity
])
def test_put_inventory_constraints_are_409(client, rp, resources):
    h.error(h.put(client, h.new_uuid(), {rp: resources}), 409)


def test_capacity_counts_everyone_else_and_failure_changes_nothing(client, rp):
    c1, c2 = h.new_uuid(), h.new_uuid()
    assert h.put(client, c1, {rp: {'DISK_GB': 60}}).status_code == 204
    gen = h.generation(client, rp)
    detail = h.error(h.put(client, c2, {rp: {'DISK_GB': 41}}), 409)
    assert 'exceed the capacity' in detail
    assert h.generation(client, rp) == gen
    assert _get(client, c2) == {'allocations': {}}
    # c1 may rewrite its own: its current usage does not count against it
    assert h.put(client, c1, {rp: {'DISK_GB': 100}}, generation=1).status_code == 204
    h.error(h.put(client, c1, {rp: {'DISK_GB': 100, 'VCPU': 5}}, generation=2), 409)
    assert _get(client, c1)['allocations'][rp]['resources'] == {'DISK_GB': 100}


def test_over_capacity_provider_accepts_writes_that_do_not_add(client, rp):
    c = h.new_uuid()
    assert h.put(client, c, {rp: {'DISK_GB': 80}}).status_code == 204
    inv = client.get('/resource_providers/%s/inventories' % rp)
    assert inv.status_code == 200, inv.text
    resp = client.put('/resource_providers/%s/inventories/DISK_GB' % rp, json={
        'resource_provider_generation': inv.json()['resource_provider_generation'],
        'total': 50})
    assert resp.status_code == 200, resp.text
    assert h.put(client, c, {rp: {'DISK_GB': 80}}, generation=1).status_code == 204
    assert h.put(client, c, {rp: {'DISK_GB': 70}}, generation=2).status_code == 204
    h.error(h.put(client, c, {rp: {'DISK_GB': 75}}, generation=3), 409)


def test_policy(client, rp):
    c = h.new_uuid()
    for method in ('GET', 'DELETE'):
        h.error(client.request(method, '/allocations/%s' % c, token='user'), 403)
    h.error(client.put('/allocations/%s' % c, token='user',
                       json=h.body({rp: {'VCPU': 1}})), 403)
    h.error(client.post('/allocations', token='user', json={}), 403)
    resp = client.get('/allocations/%s' % c, token='svc',
                      headers={'X-Roles': 'service'})
    assert resp.status_code == 200


# --- DELETE ----------------------------------------------------------------------

def test_delete(client, rp):
    c = h.new_uuid()
    assert h.put(client, c, {rp: {'VCPU': 1, 'DISK_GB': 1}}).status_code == 204
    resp = client.delete('/allocations/%s' % c)
    assert resp.status_code == 204
    assert 'content-type' not in resp.headers
    assert _get(client, c) == {'allocations': {}}
    detail = h.error(client.delete('/allocations/%s' % c), 404)
    assert 'No allocations for consumer' in detail
    # the consumer record went with them
    assert h.put(client, c, {rp: {'VCPU': 1}}).status_code == 204


def test_method_not_allowed(client):
    resp = client.post('/allocations/%s' % h.new_uuid(), json={})
    assert resp.status_code == 405
    assert set(resp.headers['allow'].split(', ')) == {'GET', 'PUT', 'DELETE'}
