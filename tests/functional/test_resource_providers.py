"""/resource_providers and /resource_providers/{uuid}: every version boundary and error."""

import threading
import uuid as uuidlib

import pytest

from tests import fixtures
from tests.functional import rp_db

AGG1 = '11111111-1111-1111-1111-111111111111'
AGG2 = '22222222-2222-2222-2222-222222222222'
AGG3 = '33333333-3333-3333-3333-333333333333'


def _new(client, name=None, parent=None, uuid=None, version='1.20'):
    body = {'name': name or 'rp-%s' % uuidlib.uuid4().hex[:8]}
    if parent is not None:
        body['parent_provider_uuid'] = parent
    if uuid is not None:
        body['uuid'] = uuid
    resp = client.post('/resource_providers', json=body, version=version)
    assert resp.status_code == 200, resp.text
    return resp.json()['uuid']


def _list(client, qs, version='latest'):
    resp = client.get('/resource_providers' + qs, version=version)
    assert resp.status_code == 200, resp.text
    return {rp['uuid'] for rp in resp.json()['resource_providers']}


def _error(resp, status, code=None, fragment=None):
    assert resp.status_code == status, resp.text
    err = resp.json()['errors'][0]
    if code is not None:
        assert err['code'] == code
    if fragment is not None:
        assert fragment in err['detail'], err['detail']
    return err


# --- create ---------------------------------------------------------------------

def test_create_before_1_20_is_201_without_body(client):
    uuid = str(uuidlib.uuid4())
    resp = client.post('/resource_providers', json={'name': 'n1', 'uuid': uuid},
                       version='1.19')
    assert resp.status_code == 201
    assert resp.content == b''
    assert 'content-type' not in resp.headers
    assert resp.headers['location'].endswith('/resource_providers/%s' % uuid)
    assert 'last-modified' not in resp.headers


def test_create_from_1_20_returns_provider(client):
    resp = client.post('/resource_providers', json={'name': 'n1'}, version='1.20')
    assert resp.status_code == 200
    body = resp.json()
    assert body['name'] == 'n1' and body['generation'] == 0
    assert body['root_provider_uuid'] == body['uuid']
    assert body['parent_provider_uuid'] is None
    assert resp.headers['location'].endswith('/resource_providers/%s' % body['uuid'])
    assert resp.headers['cache-control'] == 'no-cache'
    assert resp.headers['last-modified'].endswith('GMT')


def test_create_dashless_uuid_is_stored_canonical(client):
    uuid = uuidlib.uuid4()
    assert _new(client, uuid=uuid.hex.upper()) == str(uuid)
    assert client.get('/resource_providers/%s' % uuid).status_code == 200
    # the same uuid written another way is a duplicate
    resp = client.post('/resource_providers', json={'name': 'other', 'uuid': uuid.hex})
    _error(resp, 409, 'placement.duplicate_name')


def test_create_duplicate_name(client):
    _new(client, name='dup')
    resp = client.post('/resource_providers', json={'name': 'dup'})
    _error(resp, 409, 'placement.duplicate_name', 'dup')
    # no code before 1.23
    resp = client.post('/resource_providers', json={'name': 'dup'}, version='1.22')
    assert resp.status_code == 409 and 'code' not in resp.json()['errors'][0]


@pytest.mark.parametrize('body,version', [
    ({}, '1.20'), ({'name': ''}, '1.20'), ({'name': 'x' * 201}, '1.20'),
    ({'name': 5}, '1.20'), ({'name': 'a', 'uuid': 'nope'}, '1.20'),
    ({'name': 'a', 'generation': 0}, '1.20'),
    ({'name': 'a', 'parent_provider_uuid': str(uuidlib.uuid4())}, '1.13'),
    ({'name': 'a', 'parent_provider_uuid': 'nope'}, '1.14'),
])
def test_create_schema_errors(client, body, version):
    resp = client.post('/resource_providers', json=body, version=version)
    _error(resp, 400, fragment='JSON does not validate')
    assert _list(client, '') == set()


def test_create_name_of_200_chars(client):
    assert client.post('/resource_providers', json={'name': 'x' * 200}).status_code == 200


def test_create_with_parent(client):
    root = _new(client)
    child = _new(client, parent=root)
    grandchild = _new(client, parent=child.replace('-', ''))
    body = client.get('/resource_providers/%s' % grandchild).json()
    assert body['parent_provider_uuid'] == child
    assert body['root_provider_uuid'] == root


def test_create_parent_missing_or_self(client):
    resp = client.post('/resource_providers', json={
        'name': 'a', 'parent_provider_uuid': str(uuidlib.uuid4())})
    _error(resp, 400, 'placement.undefined_code', 'does not exist')
    uuid = str(uuidlib.uuid4())
    resp = client.post('/resource_providers', json={
        'name': 'a', 'uuid': uuid, 'parent_provider_uuid': uuid})
    _error(resp, 400)
    assert _list(client, '') == set()


def test_create_parent_null_is_a_root(client):
    resp = client.post('/resource_providers', json={'name': 'a',
                                                    'parent_provider_uuid': None})
    assert resp.json()['root_provider_uuid'] == resp.json()['uuid']


def test_create_wrong_media_type(client):
    resp = client.post('/resource_providers', data=b'name=a',
                       headers={'Content-Type': 'text/plain'})
    assert resp.status_code == 415


def test_create_malformed_json(client):
    resp = client.post('/resource_providers', data=b'{',
                       headers={'Content-Type': 'application/json'})
    _error(resp, 400, fragment='Malformed JSON')


# --- representation -------------------------------------------------------------

@pytest.mark.parametrize('version,rels', [
    ('1.0', ['self', 'inventories', 'usages']),
    ('1.1', ['self', 'inventories', 'usages', 'aggregates']),
    ('1.5', ['self', 'inventories', 'usages', 'aggregates']),
    ('1.6', ['self', 'inventories', 'usages', 'aggregates', 'traits']),
    ('1.10', ['self', 'inventories', 'usages', 'aggregates', 'traits']),
    ('1.11', ['self', 'inventories', 'usages', 'aggregates', 'traits', 'allocations']),
])
def test_links_by_version(client, version, rels):
    uuid = _new(client)
    body = client.get('/resource_providers/%s' % uuid, version=version).json()
    assert [link['rel'] for link in body['links']] == rels
    base = '/resource_providers/%s' % uuid
    assert body['links'][0]['href'] == base
    assert body['links'][1]['href'] == base + '/inventories'
    assert set(body) == {'uuid', 'name', 'generation', 'links'}


def test_parent_and_root_from_1_14(client):
    uuid = _new(client)
    body = client.get('/resource_providers/%s' % uuid, version='1.14').json()
    assert body['parent_provider_uuid'] is None
    assert body['root_provider_uuid'] == uuid
    listed = client.get('/resource_providers', version='1.13').json()
    assert set(listed['resource_providers'][0]) == {'uuid', 'name', 'generation', 'links'}


def test_cache_headers_from_1_15(client):
    uuid = _new(client)
    for path in ('/resource_providers', '/resource_providers/%s' % uuid):
        assert 'last-modified' not in client.get(path, version='1.14').headers
        resp = client.get(path, version='1.15')
        assert resp.headers['cache-control'] == 'no-cache'
        assert resp.headers['last-modified'].endswith('GMT')


def test_get_unknown_and_malformed_uuid_is_404(client):
    _error(client.get('/resource_providers/%s' % uuidlib.uuid4()), 404,
           fragment='No resource provider with uuid')
    _error(client.get('/resource_providers/not-a-uuid'), 404)
    _error(client.put('/resource_providers/not-a-uuid', json={'name': 'x'}), 404)
    _error(client.delete('/resource_providers/not-a-uuid'), 404)


def test_methods(client):
    resp = client.request('PATCH', '/resource_providers')
    assert resp.status_code == 405
    assert set(resp.headers['allow'].split(', ')) == {'GET', 'POST'}


@pytest.mark.parametrize('method,path', [
    ('GET', '/resource_providers'), ('POST', '/resource_providers'),
    ('GET', '/resource_providers/%s' % AGG1), ('PUT', '/resource_providers/%s' % AGG1),
    ('DELETE', '/resource_providers/%s' % AGG1),
])
def test_policy(client, method, path):
    resp = client.request(method, path, token='alice:p1', json={'name': 'x'})
    assert resp.status_code == 403


def test_service_role_allowed(client):
    resp = client.get('/resource_providers', token='svc', headers={'X-Roles': 'service'})
    assert resp.status_code == 200


# --- list filters ---------------------------------------------------------------

def test_list_name_and_uuid(client):
    a, b = _new(client, name='alpha'), _new(client, name='beta')
    assert _list(client, '') == {a, b}
    assert _list(client, '?name=alpha') == {a}
    assert _list(client, '?uuid=%s' % b) == {b}
    assert _list(client, '?uuid=%s' % b.replace('-', '').upper()) == {b}
    assert _list(client, '?name=alpha&uuid=%s' % b) == set()
    _error(client.get('/resource_providers?uuid=nope'), 400,
           fragment='Invalid query string parameters')


@pytest.mark.parametrize('key,version', [
    ('member_of=%s' % AGG1, '1.2'), ('resources=VCPU:1', '1.3'),
    ('in_tree=%s' % AGG1, '1.13'), ('required=HW_CPU_X86_AVX', '1.17'),
    ('pony=1', 'latest'), ('name=a&name=b', 'latest'), ('limit=1', 'latest'),
])
def test_list_unknown_keys_per_version(client, key, version):
    resp = client.get('/resource_providers?' + key, version=version)
    _error(resp, 400, fragment='Invalid query string parameters')


def test_in_tree(client):
    root = _new(client)
    child = _new(client, parent=root)
    grandchild = _new(client, parent=child)
    other = _new(client)
    assert _list(client, '?in_tree=%s' % grandchild) == {root, child, grandchild}
    assert _list(client, '?in_tree=%s' % other) == {other}
    assert _list(client, '?in_tree=%s' % uuidlib.uuid4()) == set()
    _error(client.get('/resource_providers?in_tree=nope'), 400)


def _aggs(client, uuid, aggs):
    resp = client.put('/resource_providers/%s/aggregates' % uuid, json=aggs,
                      version='1.18')
    assert resp.status_code == 200, resp.text


def test_member_of(client):
    a, b, c = _new(client), _new(client), _new(client)
    _aggs(client, a, [AGG1])
    _aggs(client, b, [AGG2])
    _aggs(client, c, [AGG1, AGG2])
    assert _list(client, '?member_of=%s' % AGG1, '1.3') == {a, c}
    assert _list(client, '?member_of=in:%s,%s' % (AGG1, AGG2), '1.3') == {a, b, c}
    assert _list(client, '?member_of=%s' % AGG1.replace('-', '')) == {a, c}
    assert _list(client, '?member_of=%s' % AGG3) == set()
    assert _list(client, '?member_of=%s&member_of=%s' % (AGG1, AGG2), '1.24') == {c}
    resp = client.get('/resource_providers?member_of=%s&member_of=%s' % (AGG1, AGG2),
                      version='1.23')
    _error(resp, 400, fragment='Multiple member_of')


@pytest.mark.parametrize('value', [
    'nope', 'in:', '%s,%s' % (AGG1, AGG2), 'in:%s,!%s' % (AGG1, AGG2), ''])
def test_member_of_bad_values(client, value):
    _error(client.get('/resource_providers?member_of=' + value), 400)


def test_forbidden_aggregates_from_1_32(client):
    a, b, c = _new(client), _new(client), _new(client)
    _aggs(client, a, [AGG1])
    _aggs(client, b, [AGG2])
    _error(client.get('/resource_providers?member_of=!%s' % AGG1, version='1.31'), 400)
    _error(client.get('/resource_providers?member_of=!in:%s' % AGG1, version='1.31'), 400)
    assert _list(client, '?member_of=!%s' % AGG1, '1.32') == {b, c}
    assert _list(client, '?member_of=!in:%s,%s' % (AGG1, AGG2)) == {c}
    assert _list(client, '?member_of=%s&member_of=!%s' % (AGG1, AGG1)) == set()
    assert _list(client, '?member_of=in:%s,%s&member_of=!%s' % (AGG1, AGG2, AGG1)) == {b}


def test_member_of_is_the_provider_itself_not_its_root(client):
    # Decision (see objects/candidates/provider_search.py): on GET /resource_providers the
    # provider's own aggregates count, for required and forbidden alike; a
    # root's aggregate does not spread to its tree (that rule belongs to
    # allocation candidates).  Upstream Placement behaves the same way.
    root = _new(client)
    child = _new(client, parent=root)
    _aggs(client, root, [AGG1])
    assert _list(client, '?member_of=%s' % AGG1) == {root}
    assert _list(client, '?member_of=!%s' % AGG1) == {child}


def test_resources_filter_capacity(client, ctx):
    small, big, used, ratio, reserved = (_new(client) for _ in range(5))
    rp_db.add_inventory(ctx, small, 'VCPU', 2)
    rp_db.add_inventory(ctx, big, 'VCPU', 16)
    rp_db.add_inventory(ctx, big, 'MEMORY_MB', 4096)
    rp_db.add_inventory(ctx, used, 'VCPU', 8)
    rp_db.allocate(ctx, used, 'VCPU', 6)
    rp_db.add_inventory(ctx, ratio, 'VCPU', 2, allocation_ratio=4.0)
    rp_db.add_inventory(ctx, reserved, 'VCPU', 8, reserved=6)
    assert _list(client, '?resources=VCPU:2', '1.4') == {small, big, used, ratio, reserved}
    assert _list(client, '?resources=VCPU:3') == {big, ratio}
    assert _list(client, '?resources=VCPU:8') == {big, ratio}
    assert _list(client, '?resources=VCPU:9') == {big}
    assert _list(client, '?resources=VCPU:1,MEMORY_MB:4096') == {big}
    assert _list(client, '?resources=VCPU:1,MEMORY_MB:4097') == set()
    assert _list(client, '?resources=VCPU:99999999999999999999') == set()


def test_resources_filter_unit_rules(client, ctx):
    rp = _new(client)
    rp_db.add_inventory(ctx, rp, 'DISK_GB', 100, min_unit=10, max_unit=50, step_size=5)
    assert _list(client, '?resources=DISK_GB:10') == {rp}
    assert _list(client, '?resources=DISK_GB:50') == {rp}
    assert _list(client, '?resources=DISK_GB:5') == set()
    assert _list(client, '?resources=DISK_GB:55') == set()
    assert _list(client, '?resources=DISK_GB:12') == set()


def test_resources_not_combined_across_providers(client, ctx):
    root = _new(client)
    child = _new(client, parent=root)
    rp_db.add_inventory(ctx, root, 'VCPU', 4)
    rp_db.add_inventory(ctx, child, 'MEMORY_MB', 1024)
    assert _list(client, '?resources=VCPU:1,MEMORY_MB:1') == set()


@pytest.mark.parametrize('value', ['', 'VCPU', 'VCPU:0', 'VCPU:x', 'VCPU:1,',
                                   'VCPU:1:1', 'CUSTOM_NOPE:1', 'vcpu:1'])
def test_resources_bad_values(client, value):
    _error(client.get('/resource_providers?resources=' + value), 400)


def test_unknown_class_message(client):
    _error(client.get('/resource_providers?resources=CUSTOM_NOPE:1'), 400,
           fragment='CUSTOM_NOPE')


def test_required_traits(client, ctx):
    a, b, c = _new(client), _new(client), _new(client)
    rp_db.add_traits(ctx, a, 'HW_CPU_X86_AVX')
    rp_db.add_traits(ctx, b, 'HW_CPU_X86_AVX', 'CUSTOM_FAST')
    assert _list(client, '?required=HW_CPU_X86_AVX', '1.18') == {a, b}
    assert _list(client, '?required=HW_CPU_X86_AVX,CUSTOM_FAST', '1.18') == {b}
    assert _list(client, '?required=HW_CPU_X86_AVX,!CUSTOM_FAST', '1.22') == {a}
    assert _list(client, '?required=!HW_CPU_X86_AVX', '1.22') == {c}
    assert _list(client, '?required=!!HW_CPU_X86_AVX', '1.22') == {c}
    assert _list(client, '?required=CUSTOM_FAST,!CUSTOM_FAST') == set()
    _error(client.get('/resource_providers?required=!CUSTOM_FAST', version='1.21'), 400)


def test_required_any_of_and_repetition(client, ctx):
    a, b, c = _new(client), _new(client), _new(client)
    rp_db.add_traits(ctx, a, 'CUSTOM_A', 'CUSTOM_C')
    rp_db.add_traits(ctx, b, 'CUSTOM_B', 'CUSTOM_C', 'CUSTOM_D')
    rp_db.add_traits(ctx, c, 'CUSTOM_D')
    qs = '?required=in:CUSTOM_A,CUSTOM_B&required=CUSTOM_C,!CUSTOM_D'
    assert _list(client, qs, '1.39') == {a}
    _error(client.get('/resource_providers?required=in:CUSTOM_A,CUSTOM_B',
                      version='1.38'), 400)
    # below 1.39 only the last occurrence counts
    assert _list(client, '?required=CUSTOM_A&required=CUSTOM_D', '1.38') == {b, c}
    _error(client.get('/resource_providers?required=in:CUSTOM_A,!CUSTOM_B'), 400)


@pytest.mark.parametrize('value', ['', 'CUSTOM_A,,CUSTOM_B', '!', 'CUSTOM_NOPE',
                                   '!CUSTOM_NOPE', 'in:CUSTOM_NOPE'])
def test_required_bad_values(client, ctx, value):
    rp_db.add_traits(ctx, _new(client), 'CUSTOM_A', 'CUSTOM_B')
    _error(client.get('/resource_providers?required=' + value), 400)


def test_filters_are_anded(client, ctx):
    root = _new(client)
    a, b = _new(client, parent=root), _new(client)
    for rp in (a, b):
        rp_db.add_inventory(ctx, rp, 'VCPU', 4)
        rp_db.add_traits(ctx, rp, 'CUSTOM_X')
        _aggs(client, rp, [AGG1])
    qs = '?resources=VCPU:2&required=CUSTOM_X&member_of=%s&in_tree=%s' % (AGG1, root)
    assert _list(client, qs) == {a}


# --- update ---------------------------------------------------------------------

def test_rename_keeps_generation(client):
    uuid = _new(client, name='old')
    resp = client.put('/resource_providers/%s' % uuid, json={'name': 'new'}, version='1.0')
    assert resp.status_code == 200
    assert resp.json()['name'] == 'new' and resp.json()['generation'] == 0
    assert 'last-modified' not in resp.headers
    resp = client.put('/resource_providers/%s' % uuid, json={'name': 'newer'})
    assert resp.headers['last-modified'].endswith('GMT')
    assert client.get('/resource_providers/%s' % uuid).json()['name'] == 'newer'


def test_rename_duplicate(client):
    _new(client, name='taken')
    uuid = _new(client, name='mine')
    _error(client.put('/resource_providers/%s' % uuid, json={'name': 'taken'}),
           409, 'placement.duplicate_name')
    assert client.get('/resource_providers/%s' % uuid).json()['name'] == 'mine'


@pytest.mark.parametrize('body,version', [
    ({}, '1.14'), ({'name': ''}, '1.14'), ({'name': 'a', 'uuid': AGG1}, '1.14'),
    ({'name': 'a', 'generation': 0}, '1.14'),
    ({'name': 'a', 'root_provider_uuid': AGG1}, '1.14'),
    ({'name': 'a', 'parent_provider_uuid': AGG1}, '1.13'),
    ({'name': 'a', 'parent_provider_uuid': 'nope'}, '1.14'),
])
def test_update_schema_errors(client, body, version):
    uuid = _new(client)
    resp = client.put('/resource_providers/%s' % uuid, json=body, version=version)
    _error(resp, 400, fragment='JSON does not validate')


def test_update_lookup_before_body(client):
    _error(client.put('/resource_providers/%s' % uuidlib.uuid4(), json={}), 404)


def test_set_parent_on_root_moves_its_subtree(client):
    new_root = _new(client)
    top = _new(client)
    below = _new(client, parent=top)
    resp = client.put('/resource_providers/%s' % top, version='1.14',
                      json={'name': 'top', 'parent_provider_uuid': new_root})
    assert resp.status_code == 200, resp.text
    assert resp.json()['parent_provider_uuid'] == new_root
    assert resp.json()['root_provider_uuid'] == new_root
    assert resp.json()['generation'] == 0
    body = client.get('/resource_providers/%s' % below).json()
    assert body['root_provider_uuid'] == new_root
    assert _list(client, '?in_tree=%s' % new_root) == {new_root, top, below}


def test_resend_current_parent_is_a_no_op(client):
    root = _new(client)
    child = _new(client, name='c', parent=root)
    resp = client.put('/resource_providers/%s' % child, version='1.14',
                      json={'name': 'c', 'parent_provider_uuid': root})
    assert resp.status_code == 200
    resp = client.put('/resource_providers/%s' % child, version='1.14', json={'name': 'c2'})
    assert resp.json()['parent_provider_uuid'] == root


def test_change_parent_needs_1_37(client):
    a, b = _new(client), _new(client)
    child = _new(client, name='c', parent=a)
    grandchild = _new(client, parent=child)
    for target, text in ((b, 're-parenting a provider is not currently allowed'),
                         (None, 'un-parenting a provider is not currently allowed')):
        resp = client.put('/resource_providers/%s' % child, version='1.36',
                          json={'name': 'c', 'parent_provider_uuid': target})
        _error(resp, 400, fragment=text)
    resp = client.put('/resource_providers/%s' % child, version='1.37',
                      json={'name': 'c', 'parent_provider_uuid': b})
    assert resp.status_code == 200, resp.text
    assert client.get('/resource_providers/%s' % grandchild).json()[
        'root_provider_uuid'] == b
    assert _list(client, '?in_tree=%s' % a) == {a}
    resp = client.put('/resource_providers/%s' % child, version='1.37',
                      json={'name': 'c', 'parent_provider_uuid': None})
    assert resp.status_code == 200
    assert resp.json()['root_provider_uuid'] == child
    assert resp.json()['parent_provider_uuid'] is None
    assert client.get('/resource_providers/%s' % grandchild).json()[
        'root_provider_uuid'] == child


def test_parent_loops_and_missing(client, ctx):
    root = _new(client)
    child = _new(client, name='c', parent=root)
    grandchild = _new(client, parent=child)
    for target in (root, child, grandchild):
        resp = client.put('/resource_providers/%s' % root, version='1.37',
                          json={'name': 'r', 'parent_provider_uuid': target})
        _error(resp, 400)
    resp = client.put('/resource_providers/%s' % child, version='1.37',
                      json={'name': 'c', 'parent_provider_uuid': str(uuidlib.uuid4())})
    _error(resp, 400, fragment='does not exist')
    rp_db.assert_trees_consistent(ctx)
    assert _list(client, '?in_tree=%s' % root) == {root, child, grandchild}


# --- delete ---------------------------------------------------------------------

def test_delete_removes_links(client, ctx):
    uuid = _new(client)
    rp_db.add_inventory(ctx, uuid, 'VCPU', 4)
    rp_db.add_traits(ctx, uuid, 'CUSTOM_T')
    _aggs(client, uuid, [AGG1])
    rp_id = rp_db.provider_id(ctx, uuid)
    resp = client.delete('/resource_providers/%s' % uuid)
    assert resp.status_code == 204
    assert 'content-type' not in resp.headers
    assert rp_db.counts_for(ctx, rp_id) == {'inventories': 0, 'traits': 0, 'aggregates': 0}
    _error(client.get('/resource_providers/%s' % uuid), 404)
    _error(client.delete('/resource_providers/%s' % uuid), 404)


def test_delete_parent_refused_children_first(client, ctx):
    root = _new(client)
    child = _new(client, parent=root)
    rp_db.add_inventory(ctx, root, 'VCPU', 4)
    rp_db.allocate(ctx, root, 'VCPU', 1)
    _error(client.delete('/resource_providers/%s' % root), 409,
           'placement.resource_provider.cannot_delete_parent')
    assert client.delete('/resource_providers/%s' % child).status_code == 204
    _error(client.delete('/resource_providers/%s' % root), 409,
           'placement.resource_provider.inuse')
    assert client.get('/resource_providers/%s' % root).status_code == 200
    assert rp_db.counts_for(ctx, rp_db.provider_id(ctx, root))['inventories'] == 1


def test_delete_codes_absent_before_1_23(client, ctx):
    root = _new(client)
    _new(client, parent=root)
    resp = client.delete('/resource_providers/%s' % root, version='1.22')
    assert resp.status_code == 409 and 'code' not in resp.json()['errors'][0]


def test_racing_reparents_over_http(client, berth, ctx):
    """Crossing moves sent at once: one wins, the other is a clean 4xx, no loop."""
    for _ in range(5):
        a, b = _new(client), _new(client)
        barrier = threading.Barrier(2)
        codes = []

        def move(me, parent):
            c = fixtures.PlacementClient(berth.placement_url, version='1.37')
            barrier.wait()
            codes.append(c.put('/resource_providers/%s' % me,
                               json={'name': me, 'parent_provider_uuid': parent}).status_code)
            c.close()

        threads = [threading.Thread(target=move, args=(a, b)),
                   threading.Thread(target=move, args=(b, a))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(codes) in ([200, 400], [200, 409]), codes
    rp_db.assert_trees_consistent(ctx)
