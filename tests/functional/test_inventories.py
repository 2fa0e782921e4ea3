"""/resource_providers/{uuid}/inventories[/{resource_class}]."""

import uuid as uuidlib

import pytest

from tests.functional import provider_helpers as helpers

MAX_INT = 2147483647
VCPU = {'total': 32, 'reserved': 0, 'min_unit': 1, 'max_unit': 32, 'step_size': 1,
        'allocation_ratio': 4.0}


@pytest.fixture
def rp(client, ctx):
    return helpers.create_provider(client, ctx)


def _inv(rp):
    return '/resource_providers/%s/inventories' % rp


def _error(resp, status, code='placement.undefined_code'):
    assert resp.status_code == status, resp.text
    err = resp.json()['errors'][0]
    assert err['code'] == code
    return err['detail']


def _put_all(client, rp, inventories, gen=None, **kw):
    if gen is None:
        gen = client.get(_inv(rp)).json()['resource_provider_generation']
    return client.put(_inv(rp), json={'resource_provider_generation': gen,
                                      'inventories': inventories}, **kw)


# --- GET ---------------------------------------------------------------------

def test_get_empty(client, rp):
    resp = client.get(_inv(rp))
    assert resp.status_code == 200
    assert resp.json() == {'resource_provider_generation': 0, 'inventories': {}}
    assert resp.headers['cache-control'] == 'no-cache'
    assert 'last-modified' in resp.headers


def test_get_no_cache_headers_before_1_15(client, rp):
    resp = client.get(_inv(rp), version='1.14')
    assert resp.status_code == 200
    assert 'cache-control' not in resp.headers
    assert 'last-modified' not in resp.headers


def test_get_unknown_provider(client):
    _error(client.get(_inv(uuidlib.uuid4())), 404)
    _error(client.get(_inv(uuidlib.uuid4()) + '/VCPU'), 404)


def test_get_one(client, rp):
    _put_all(client, rp, {'VCPU': VCPU})
    resp = client.get(_inv(rp) + '/VCPU')
    assert resp.status_code == 200
    assert resp.json() == dict(VCPU, resource_provider_generation=1)
    assert resp.headers['cache-control'] == 'no-cache'
    # no inventory of an existing class, and a class that does not exist
    _error(client.get(_inv(rp) + '/DISK_GB'), 404)
    _error(client.get(_inv(rp) + '/CUSTOM_NOPE'), 404)


def test_accept_refusing_json_is_406(client, rp):
    assert client.get(_inv(rp), headers={'Accept': 'text/plain'}).status_code == 406


def test_policy_forbids_non_admin(client, rp):
    for resp in (client.get(_inv(rp), token='user'),
                 client.get(_inv(rp) + '/VCPU', token='user'),
                 client.post(_inv(rp), token='user', json={}),
                 client.put(_inv(rp), token='user', json={}),
                 client.put(_inv(rp) + '/VCPU', token='user', json={}),
                 client.delete(_inv(rp), token='user'),
                 client.delete(_inv(rp) + '/VCPU', token='user')):
        _error(resp, 403)


# --- POST --------------------------------------------------------------------

def test_post_creates_with_defaults(client, rp):
    resp = client.post(_inv(rp), json={'resource_class': 'DISK_GB', 'total': 100})
    assert resp.status_code == 201
    assert resp.headers['location'].endswith(_inv(rp) + '/DISK_GB')
    assert resp.json() == {'total': 100, 'reserved': 0, 'min_unit': 1,
                           'max_unit': MAX_INT, 'step_size': 1,
                           'allocation_ratio': 1.0, 'resource_provider_generation': 1}
    assert resp.headers['cache-control'] == 'no-cache'
    assert 'last-modified' in resp.headers
    assert client.get(_inv(rp)).json()['inventories']['DISK_GB']['total'] == 100


def test_post_ignores_generation_and_no_cache_headers_before_1_15(client, rp):
    resp = client.post(_inv(rp), version='1.14',
                       json={'resource_class': 'VCPU', 'total': 8,
                             'resource_provider_generation': 99})
    assert resp.status_code == 201
    assert resp.json()['resource_provider_generation'] == 1
    assert 'cache-control' not in resp.headers


def test_post_existing_class_is_409(client, rp):
    client.post(_inv(rp), json={'resource_class': 'VCPU', 'total': 8})
    _error(client.post(_inv(rp), json={'resource_class': 'VCPU', 'total': 4}),
           409, 'placement.concurrent_update')
    assert client.get(_inv(rp) + '/VCPU').json()['total'] == 8


@pytest.mark.parametrize('body', [
    {'resource_class': 'vcpu', 'total': 1},
    {'resource_class': 'VCPU'},
    {'total': 1},
    {'resource_class': 'VCPU', 'total': 0},
    {'resource_class': 'VCPU', 'total': MAX_INT + 1},
    {'resource_class': 'VCPU', 'total': 1, 'reserved': -1},
    {'resource_class': 'VCPU', 'total': 1, 'step_size': 0},
    {'resource_class': 'VCPU', 'total': 1, 'allocation_ratio': 3.5e38},
    {'resource_class': 'VCPU', 'total': 1, 'extra': True},
    {'resource_class': 'VCPU', 'total': 'ten'},
])
def test_post_schema_errors(client, rp, body):
    assert 'JSON does not validate' in _error(client.post(_inv(rp), json=body), 400)
    assert client.get(_inv(rp)).json() == {'resource_provider_generation': 0,
                                           'inventories': {}}


def test_post_unknown_class_is_400(client, rp):
    _error(client.post(_inv(rp), json={'resource_class': 'CUSTOM_NOPE', 'total': 1}),
           400)


def test_post_unknown_provider_before_body(client):
    _error(client.post(_inv(uuidlib.uuid4()), json={'bogus': 1}), 404)


def test_post_wrong_content_type(client, rp):
    resp = client.post(_inv(rp), data=b'total=1', headers={'Content-Type': 'text/plain'})
    assert resp.status_code == 415


@pytest.mark.parametrize('version,reserved,status', [
    ('1.25', 10, 400),   # capacity 0 refused before 1.26
    ('1.26', 10, 201),   # and allowed from 1.26
    ('1.26', 11, 400),   # negative capacity is never allowed
    ('1.25', 9, 201),
])
def test_post_capacity_rule(client, rp, version, reserved, status):
    resp = client.post(_inv(rp), version=version,
                       json={'resource_class': 'VCPU', 'total': 10,
                             'reserved': reserved})
    assert resp.status_code == status, resp.text


def test_post_capacity_uses_allocation_ratio(client, rp):
    # int((10 - 9) * 0.5) == 0
    resp = client.post(_inv(rp), version='1.25',
                       json={'resource_class': 'VCPU', 'total': 10, 'reserved': 9,
                             'allocation_ratio': 0.5})
    assert resp.status_code == 400


# --- PUT all -----------------------------------------------------------------

def test_put_all_replaces_and_always_bumps(client, rp):
    resp = _put_all(client, rp, {'VCPU': {'total': 8}, 'DISK_GB': {'total': 10}})
    assert resp.status_code == 200
    body = resp.json()
    assert body['resource_provider_generation'] == 1
    assert body['inventories']['VCPU'] == {'total': 8, 'reserved': 0, 'min_unit': 1,
                                           'max_unit': MAX_INT, 'step_size': 1,
                                           'allocation_ratio': 1.0}
    assert resp.headers['cache-control'] == 'no-cache'
    resp = _put_all(client, rp, {'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 512}})
    assert resp.json()['resource_provider_generation'] == 2
    assert sorted(resp.json()['inventories']) == ['MEMORY_MB', 'VCPU']
    assert resp.json()['inventories']['VCPU']['total'] == 16
    # unchanged content still moves the generation
    resp = _put_all(client, rp, {'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 512}})
    assert resp.json()['resource_provider_generation'] == 3
    resp = _put_all(client, rp, {})
    assert resp.json() == {'resource_provider_generation': 4, 'inventories': {}}


def test_put_all_ignores_generation_inside_a_record(client, rp):
    resp = _put_all(client, rp, {'VCPU': {'total': 8, 'resource_provider_generation': 42}})
    assert resp.status_code == 200, resp.text
    assert resp.json()['resource_provider_generation'] == 1


def test_put_all_generation_mismatch(client, rp):
    detail = _error(_put_all(client, rp, {'VCPU': {'total': 8}}, gen=5), 409,
                    'placement.concurrent_update')
    assert 'generation' in detail
    assert client.get(_inv(rp)).json()['inventories'] == {}


def test_put_all_unknown_class_and_capacity(client, rp):
    _error(_put_all(client, rp, {'CUSTOM_NOPE': {'total': 1}}), 400)
    _error(_put_all(client, rp, {'VCPU': {'total': 1, 'reserved': 1}}, version='1.25'),
           400)
    assert _put_all(client, rp, {'VCPU': {'total': 1, 'reserved': 1}},
                    version='1.26').status_code == 200


@pytest.mark.parametrize('body', [
    {'inventories': {}},
    {'resource_provider_generation': 0},
    {'resource_provider_generation': 0, 'inventories': {'vcpu': {'total': 1}}},
    {'resource_provider_generation': 0, 'inventories': {'VCPU': {'reserved': 1}}},
    {'resource_provider_generation': 0, 'inventories': {'VCPU': {'total': 1, 'x': 1}}},
    {'resource_provider_generation': 0, 'inventories': {}, 'extra': 1},
    {'resource_provider_generation': 'zero', 'inventories': {}},
])
def test_put_all_schema_errors(client, rp, body):
    assert 'JSON does not validate' in _error(client.put(_inv(rp), json=body), 400)
    assert client.get(_inv(rp)).json()['resource_provider_generation'] == 0


def test_put_all_unknown_provider_before_body(client):
    _error(client.put(_inv(uuidlib.uuid4()), json={'bogus': 1}), 404)


def test_put_all_removing_class_in_use(client, ctx, rp):
    _put_all(client, rp, {'VCPU': {'total': 8}, 'DISK_GB': {'total': 10}})
    helpers.allocate(ctx, rp, 'VCPU', 2)
    detail = _error(_put_all(client, rp, {'DISK_GB': {'total': 10}}), 409,
                    'placement.inventory.inuse')
    assert 'VCPU' in detail
    assert sorted(client.get(_inv(rp)).json()['inventories']) == ['DISK_GB', 'VCPU']
    # shrinking below usage is allowed
    resp = _put_all(client, rp, {'VCPU': {'total': 1}, 'DISK_GB': {'total': 10}})
    assert resp.status_code == 200
    assert resp.json()['inventories']['VCPU']['total'] == 1


def test_error_code_absent_before_1_23(client, rp):
    resp = _put_all(client, rp, {}, gen=7, version='1.22')
    assert resp.status_code == 409
    assert 'code' not in resp.json()['errors'][0]


# --- PUT one -----------------------------------------------------------------

def test_put_one_updates_and_bumps(client, rp):
    _put_all(client, rp, {'VCPU': {'total': 8}})
    resp = client.put(_inv(rp) + '/VCPU',
                      json={'resource_provider_generation': 1, 'total': 16,
                            'allocation_ratio': 2})
    assert resp.status_code == 200
    assert resp.json() == {'total': 16, 'reserved': 0, 'min_unit': 1,
                           'max_unit': MAX_INT, 'step_size': 1,
                           'allocation_ratio': 2.0, 'resource_provider_generation': 2}
    assert resp.headers['cache-control'] == 'no-cache'


def test_put_one_errors(client, rp):
    _put_all(client, rp, {'VCPU': {'total': 8}})
    body = {'resource_provider_generation': 1, 'total': 4}
    _error(client.put(_inv(rp) + '/VCPU', json=dict(body, resource_provider_generation=0)),
           409, 'placement.concurrent_update')
    _error(client.put(_inv(rp) + '/VCPU', version='1.25',
                      json=dict(body, reserved=4)), 400)
    # the class exists but this provider has none of it: 400
    _error(client.put(_inv(rp) + '/DISK_GB', json=body), 400)
    # the class does not exist at all: 404
    _error(client.put(_inv(rp) + '/CUSTOM_NOPE', json=body), 404)
    _error(client.put(_inv(uuidlib.uuid4()) + '/VCPU', json={'bogus': 1}), 404)
    for bad in ({'total': 4}, {'resource_provider_generation': 1},
                dict(body, resource_class='VCPU'), dict(body, total=0)):
        assert 'JSON does not validate' in _error(
            client.put(_inv(rp) + '/VCPU', json=bad), 400)
    assert client.get(_inv(rp)).json() == {
        'resource_provider_generation': 1,
        'inventories': {'VCPU': {'total': 8, 'reserved': 0, 'min_unit': 1,
                                 'max_unit': MAX_INT, 'step_size': 1,
                                 'allocation_ratio': 1.0}}}


def test_put_one_shrink_below_usage(client, ctx, rp):
    _put_all(client, rp, {'VCPU': {'total': 8}})
    helpers.allocate(ctx, rp, 'VCPU', 6)
    resp = client.put(_inv(rp) + '/VCPU', json={'resource_provider_generation': 2,
                                                'total': 2})
    assert resp.status_code == 200, resp.text


# --- DELETE ------------------------------------------------------------------

def test_delete_one(client, rp):
    _put_all(client, rp, {'VCPU': {'total': 8}, 'DISK_GB': {'total': 8}})
    resp = client.delete(_inv(rp) + '/VCPU')
    assert resp.status_code == 204
    assert 'content-type' not in resp.headers
    assert 'cache-control' not in resp.headers
    body = client.get(_inv(rp)).json()
    assert body['resource_provider_generation'] == 2
    assert list(body['inventories']) == ['DISK_GB']
    _error(client.delete(_inv(rp) + '/VCPU'), 404)
    _error(client.delete(_inv(rp) + '/CUSTOM_NOPE'), 404)
    _error(client.delete(_inv(uuidlib.uuid4()) + '/VCPU'), 404)


def test_delete_one_in_use_is_concurrent_update(client, ctx, rp):
    _put_all(client, rp, {'VCPU': {'total': 8}})
    helpers.allocate(ctx, rp, 'VCPU', 1)
    _error(client.delete(_inv(rp) + '/VCPU'), 409, 'placement.concurrent_update')
    assert 'VCPU' in client.get(_inv(rp)).json()['inventories']


def test_delete_all_405_before_1_5(client, rp):
    resp = client.delete(_inv(rp), version='1.4')
    assert resp.status_code == 405
    assert set(resp.headers['allow'].split(', ')) == {'GET', 'POST', 'PUT'}


def test_delete_all_always_bumps(client, rp):
    resp = client.delete(_inv(rp), version='1.5')
    assert resp.status_code == 204
    assert 'content-type' not in resp.headers
    assert client.get(_inv(rp)).json()['resource_provider_generation'] == 1
    _put_all(client, rp, {'VCPU': {'total': 8}, 'DISK_GB': {'total': 8}})
    assert client.delete(_inv(rp)).status_code == 204
    assert client.get(_inv(rp)).json() == {'resource_provider_generation': 3,
                                           'inventories': {}}
    _error(client.delete(_inv(uuidlib.uuid4())), 404)


def test_delete_all_in_use(client, ctx, rp):
    _put_all(client, rp, {'VCPU': {'total': 8}, 'DISK_GB': {'total': 8}})
    helpers.allocate(ctx, rp, 'DISK_GB', 1)
    detail = _error(client.delete(_inv(rp)), 409, 'placement.inventory.inuse')
    assert 'DISK_GB' in detail
    body = client.get(_inv(rp)).json()
    assert body['resource_provider_generation'] == 2
    assert sorted(body['inventories']) == ['DISK_GB', 'VCPU']
