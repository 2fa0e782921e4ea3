"""/resource_providers/{uuid}/usages."""

import uuid as uuidlib

from tests.functional import provider_helpers as helpers


def test_usages(client, ctx):
    rp = helpers.create_provider(client, ctx)
    path = '/resource_providers/%s/usages' % rp
    resp = client.get(path)
    assert resp.status_code == 200
    assert resp.json() == {'resource_provider_generation': 0, 'usages': {}}
    assert resp.headers['cache-control'] == 'no-cache'
    assert 'last-modified' in resp.headers
    client.put('/resource_providers/%s/inventories' % rp, json={
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}}})
    assert client.get(path).json() == {'resource_provider_generation': 1,
                                       'usages': {'VCPU': 0, 'DISK_GB': 0}}
    helpers.allocate(ctx, rp, 'VCPU', 2)
    helpers.allocate(ctx, rp, 'VCPU', 3)
    assert client.get(path).json() == {'resource_provider_generation': 3,
                                       'usages': {'VCPU': 5, 'DISK_GB': 0}}
    # another provider's allocations do not count
    other = helpers.create_provider(client, ctx)
    client.post('/resource_providers/%s/inventories' % other,
                json={'resource_class': 'VCPU', 'total': 4})
    helpers.allocate(ctx, other, 'VCPU', 4)
    assert client.get(path).json()['usages']['VCPU'] == 5


def test_usages_errors(client, ctx):
    resp = client.get('/resource_providers/%s/usages' % uuidlib.uuid4())
    assert resp.status_code == 404
    rp = helpers.create_provider(client, ctx)
    path = '/resource_providers/%s/usages' % rp
    assert client.get(path, token='user').status_code == 403
    assert client.get(path, headers={'Accept': 'text/plain'}).status_code == 406
    assert 'cache-control' not in client.get(path, version='1.14').headers
    assert client.get(path, version='1.0').status_code == 200
