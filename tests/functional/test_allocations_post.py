"""POST /allocations (several consumers at once) and GET /resource_providers/{uuid}/allocations."""

import pytest

from tests.functional import alloc_helpers as h

INV = {'VCPU': {'total': 4}, 'DISK_GB': {'total': 100}}


@pytest.fixture
def rp(client, ctx):
    return h.provider(client, ctx, INV)


def _entry(allocations, generation=None, **extra):
    return h.body(allocations, generation=generation, **extra)


def _alloc(client, consumer):
    return client.get('/allocations/%s' % consumer).json()


def test_post_not_before_1_13(client):
    h.error(client.post('/allocations', version='1.12', json={}), 404,
            version_has_code=False)


def test_post_1_13_shape(client, rp):
    c1, c2 = h.new_uuid(), h.new_uuid()
    body = {c1: {'allocations': {rp: {'resources': {'VCPU': 1}}},
                 'project_id': 'p', 'user_id': 'u'},
            c2: {'allocations': {rp: {'resources': {'DISK_GB': 5}, 'generation': 3}},
                 'project_id': 'p', 'user_id': 'u'}}
    resp = client.post('/allocations', version='1.13', json=body)
    assert resp.status_code == 204, resp.text
    assert 'content-type' not in resp.headers
    assert _alloc(client, c1)['allocations'][rp]['resources'] == {'VCPU': 1}
    assert _alloc(client, c2)['allocations'][rp]['resources'] == {'DISK_GB': 5}
    # 1.28 needs consumer_generation in every entry
    h.error(client.post('/allocations', version='1.28', json=body), 400)


def test_post_moves_allocations_between_consumers(client, rp):
    """The migration pattern: capacity only fits because the old holder is cleared."""
    instance, migration = h.new_uuid(), h.new_uuid()
    assert h.put(client, instance, {rp: {'VCPU': 4}}).status_code == 204
    gen = h.generation(client, rp)
    resp = client.post('/allocations', json={
        instance: _entry({}, generation=1, consumer_type='INSTANCE'),
        migration: _entry({rp: {'VCPU': 4}}, consumer_type='MIGRATION')})
    assert resp.status_code == 204, resp.text
    assert _alloc(client, instance) == {'allocations': {}}
    got = _alloc(client, migration)
    assert got['allocations'][rp]['resources'] == {'VCPU': 4}
    assert got['consumer_type'] == 'MIGRATION'
    assert h.generation(client, rp) == gen + 1


def test_post_is_atomic(client, rp):
    keep, c1, c2 = h.new_uuid(), h.new_uuid(), h.new_uuid()
    assert h.put(client, keep, {rp: {'VCPU': 1}}).status_code == 204
    gen = h.generation(client, rp)
    # c2 does not fit: neither consumer is written, nothing else moves
    resp = client.post('/allocations', json={
        c1: _entry({rp: {'VCPU': 2}}, consumer_type='A'),
        c2: _entry({rp: {'VCPU': 2}}, consumer_type='A')})
    h.error(resp, 409)
    # a stale generation on one consumer fails the whole request
    resp = client.post('/allocations', json={
        c1: _entry({rp: {'VCPU': 1}}, consumer_type='A'),
        keep: _entry({rp: {'VCPU': 1}}, generation=5, consumer_type='A')})
    assert 'consumer generation conflict' in h.error(resp, 409, h.CONCURRENT)
    # an unknown provider for one consumer
    resp = client.post('/allocations', json={
        c1: _entry({rp: {'VCPU': 1}}, consumer_type='A'),
        c2: _entry({h.new_uuid(): {'VCPU': 1}}, consumer_type='A')})
    h.error(resp, 400)
    for c in (c1, c2):
        assert _alloc(client, c) == {'allocations': {}}
    assert _alloc(client, keep)['consumer_generation'] == 1
    assert h.generation(client, rp) == gen


@pytest.mark.parametrize('body', [
    {},                                   # at least one consumer
    {'not-a-uuid-at-all-but-36-chars-long': {}},
    [],
])
def test_post_schema_errors(client, body):
    h.error(client.post('/allocations', json=body), 400)


def test_post_mappings_and_types_by_version(client, rp):
    c = h.new_uuid()
    entry = _entry({rp: {'VCPU': 1}}, mappings={'': [rp]})
    h.error(client.post('/allocations', version='1.33', json={c: entry}), 400)
    h.error(client.post('/allocations', version='1.38', json={c: entry}), 400)
    assert client.post('/allocations', version='1.34',
                       json={c: entry}).status_code == 204


# --- GET /resource_providers/{uuid}/allocations ---------------------------------------

def test_provider_allocations(client, rp):
    path = '/resource_providers/%s/allocations' % rp
    gen = h.generation(client, rp)
    assert client.get(path).json() == {'resource_provider_generation': gen,
                                       'allocations': {}}
    c1, c2 = h.new_uuid(), h.new_uuid()
    assert h.put(client, c1, {rp: {'VCPU': 1, 'DISK_GB': 10}}).status_code == 204
    assert h.put(client, c2, {rp: {'VCPU': 2}}).status_code == 204
    got = client.get(path).json()
    assert got == {'resource_provider_generation': gen + 2, 'allocations': {
        c1: {'resources': {'VCPU': 1, 'DISK_GB': 10}, 'consumer_generation': 1},
        c2: {'resources': {'VCPU': 2}, 'consumer_generation': 1}}}
    old = client.get(path, version='1.27').json()
    assert old['allocations'][c1] == {'resources': {'VCPU': 1, 'DISK_GB': 10}}
    resp = client.get(path)
    assert resp.headers['cache-control'] == 'no-cache'


def test_provider_allocations_errors(client, rp):
    h.error(client.get('/resource_providers/%s/allocations' % h.new_uuid()), 404)
    h.error(client.get('/resource_providers/%s/allocations' % rp, token='user'), 403)
    resp = client.get('/resource_providers/%s/allocations' % rp,
                      headers={'accept': 'text/plain'})
    # the client accepts neither JSON nor HTML: WebOb's plain-text error
    assert resp.status_code == 406, resp.text
    assert resp.headers['content-type'].startswith('text/plain')
    assert resp.text.startswith('406 Not Acceptable\n\nOnly application/json is provided')
