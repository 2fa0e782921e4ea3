"""POST /reshaper: inventory and allocations moved between providers in one transaction."""

from oslo_policy import opts as policy_opts
import pytest

from tests import fixtures
from tests.functional import alloc_helpers as h

SERVICE = {'token': 'nova', 'headers': {'X-Roles': 'service'}}


@pytest.fixture
def tree(client, ctx):
    """A root with VCPU+DISK_GB inventory, a consumer using both, and an empty child."""
    root = h.provider(client, ctx, {'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}})
    child = h.provider(client, ctx, {})
    consumer = h.new_uuid()
    assert h.put(client, consumer, {root: {'VCPU': 2, 'DISK_GB': 10}}).status_code == 204
    return root, child, consumer


def _inv(client, rp):
    return client.get('/resource_providers/%s/inventories' % rp).json()


def _move_vcpu(client, root, child, consumer, **overrides):
    body = {
        'inventories': {
            root: {'resource_provider_generation': h.generation(client, root),
                   'inventories': {'DISK_GB': {'total': 100}}},
            child: {'resource_provider_generation': h.generation(client, child),
                    'inventories': {'VCPU': {'total': 8}}}},
        'allocations': {consumer: h.body({root: {'DISK_GB': 10}, child: {'VCPU': 2}},
                                         generation=1, consumer_type='INSTANCE')},
    }
    body.update(overrides)
    return body


def test_not_before_1_30(client, tree):
    resp = client.post('/reshaper', version='1.29', json={}, **SERVICE)
    h.error(resp, 404, version_has_code=False)


def test_reshape_moves_a_class_to_a_child(client, tree):
    root, child, consumer = tree
    g_root, g_child = h.generation(client, root), h.generation(client, child)
    resp = client.post('/reshaper', json=_move_vcpu(client, root, child, consumer),
                       **SERVICE)
    assert resp.status_code == 204, resp.text
    assert 'content-type' not in resp.headers
    got = client.get('/allocations/%s' % consumer).json()
    assert {rp: a['resources'] for rp, a in got['allocations'].items()} == {
        root: {'DISK_GB': 10}, child: {'VCPU': 2}}
    assert got['consumer_generation'] == 2
    assert got['consumer_type'] == 'INSTANCE'
    assert set(_inv(client, root)['inventories']) == {'DISK_GB'}
    assert set(_inv(client, child)['inventories']) == {'VCPU'}
    # interim + allocations + final on both
    assert h.generation(client, root) == g_root + 3
    assert h.generation(client, child) == g_child + 3


def test_reshape_1_30_shape_and_mappings(client, tree):
    root, child, consumer = tree
    body = _move_vcpu(client, root, child, consumer)
    entry = body['allocations'][consumer]
    del entry['consumer_type']
    entry['mappings'] = {'': [root]}
    h.error(client.post('/reshaper', version='1.30', json=body, **SERVICE), 400)
    h.error(client.post('/reshaper', version='1.38', json=body, **SERVICE), 400)
    assert client.post('/reshaper', version='1.34', json=body,
                       **SERVICE).status_code == 204


def _assert_unchanged(client, root, child, consumer, g_root, g_child):
    assert h.generation(client, root) == g_root
    assert h.generation(client, child) == g_child
    assert set(_inv(client, root)['inventories']) == {'VCPU', 'DISK_GB'}
    assert _inv(client, child)['inventories'] == {}
    got = client.get('/allocations/%s' % consumer).json()
    assert got['allocations'][root]['resources'] == {'VCPU': 2, 'DISK_GB': 10}


@pytest.mark.parametrize('breakage,status,code', [
    ('unknown_provider', 400, 'placement.resource_provider.not_found'),
    ('stale_provider', 409, h.CONCURRENT),
    ('stale_consumer', 409, h.CONCURRENT),
    ('class_in_use', 409, 'placement.inventory.inuse'),
    ('over_capacity', 409, h.UNDEFINED),
    ('unknown_allocation_provider', 400, h.UNDEFINED),
    ('bad_inventory', 400, h.UNDEFINED),
    ('unknown_class', 400, h.UNDEFINED),
])
def test_reshape_errors_change_nothing(client, tree, breakage, status, code):
    root, child, consumer = tree
    g_root, g_child = h.generation(client, root), h.generation(client, child)
    body = _move_vcpu(client, root, child, consumer)
    entry = body['allocations'][consumer]
    if breakage == 'unknown_provider':
        body['inventories'][h.new_uuid()] = {'resource_provider_generation': 0,
                                             'inventories': {}}
    elif breakage == 'stale_provider':
        body['inventories'][root]['resource_provider_generation'] -= 1
    elif breakage == 'stale_consumer':
        entry['consumer_generation'] = 7
    elif breakage == 'class_in_use':
        # VCPU leaves the root but the allocation stays there
        entry['allocations'] = {root: {'resources': {'VCPU': 2, 'DISK_GB': 10}}}
    elif breakage == 'over_capacity':
        entry['allocations'][child]['resources']['VCPU'] = 9
    elif breakage == 'unknown_allocation_provider':
        entry['allocations'][h.new_uuid()] = {'resources': {'VCPU': 1}}
    elif breakage == 'bad_inventory':
        body['inventories'][child]['inventories']['VCPU']['reserved'] = 9
    elif breakage == 'unknown_class':
        body['inventories'][child]['inventories']['CUSTOM_NOPE'] = {'total': 1}
    resp = client.post('/reshaper', json=body, **SERVICE)
    h.error(resp, status, code)
    _assert_unchanged(client, root, child, consumer, g_root, g_child)


@pytest.mark.parametrize('body', [
    {},
    {'inventories': {}, 'allocations': {}},
    {'inventories': {'x': {}}, 'allocations': {}},
])
def test_reshape_schema_errors(client, body):
    h.error(client.post('/reshaper', json=body, **SERVICE), 400)


def test_reshape_empty_provider(client, tree):
    """A provider emptied by the reshape, its consumer cleared, gets +2."""
    root, child, consumer = tree
    g_root = h.generation(client, root)
    body = {'inventories': {root: {'resource_provider_generation': g_root,
                                   'inventories': {}}},
            'allocations': {consumer: h.body({}, generation=1, consumer_type='X')}}
    assert client.post('/reshaper', json=body, **SERVICE).status_code == 204
    assert h.generation(client, root) == g_root + 2
    assert _inv(client, root)['inventories'] == {}
    assert client.get('/allocations/%s' % consumer).json() == {'allocations': {}}


def test_policy_new_defaults_service_only(client, tree):
    root, child, consumer = tree
    body = _move_vcpu(client, root, child, consumer)
    h.error(client.post('/reshaper', json=body), 403)
    h.error(client.post('/reshaper', json=body, token='user'), 403)


@pytest.mark.filterwarnings('ignore:Policy .* was deprecated:UserWarning')
def test_policy_legacy_admin_may_reshape(tmp_path, tmp_path_factory):
    conf = fixtures.make_conf(tmp_path / 'legacy')
    # an override on this conf only (set_defaults would change every test's)
    for group, opts in policy_opts.list_opts():
        conf.register_opts(opts, group=group)
    conf.set_override('enforce_new_defaults', False, group='oslo_policy')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    client = fixtures.PlacementClient(stack.placement_url, version='latest')
    try:
        h.error(client.post('/reshaper', json={}, token='user'), 403)
        h.error(client.post('/reshaper', json={}), 400)   # admin passes the policy
    finally:
        client.close()
        stack.stop()
