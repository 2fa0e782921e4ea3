"""[api] max_request_body_size is configurable and answered 413 by both APIs,
with or without a Content-Length (chunked), and a refused body stores nothing."""

import json

import pytest

from tests import fixtures

LIMIT = 2048


@pytest.fixture
def small_limit_berth(tmp_path_factory, tmp_path):
    conf = fixtures.make_conf(tmp_path / 'state', **{'api.max_request_body_size': LIMIT})
    fixtures.migrated_sqlite(tmp_path_factory.getbasetemp(), conf.state_path)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def _chunked(data):
    yield data[:100]
    yield data[100:]


def _sized(make, size):
    """``make(padding)`` with the padding that makes it exactly ``size`` bytes."""
    return make('x' * (size - len(make(''))))


def _provider(size):
    return _sized(lambda pad: json.dumps({'name': 'p' + pad}).encode(), size)


def _node(size):
    return _sized(lambda pad: json.dumps({'driver': 'fake-hardware',
                                          'description': pad}).encode(), size)


@pytest.mark.parametrize('chunked', [False, True])
def test_placement_honours_the_configured_limit(small_limit_berth, chunked):
    client = fixtures.PlacementClient(small_limit_berth.placement_url, version='latest')
    hdrs = {'Content-Type': 'application/json'}
    big = _provider(LIMIT + 1)
    assert len(big) == LIMIT + 1
    resp = client.post('/resource_providers', data=_chunked(big) if chunked else big,
                       headers=hdrs)
    assert resp.status_code == 413, resp.text
    assert resp.json()['errors'][0]['code'] == 'berth.request_too_large'
    assert client.get('/resource_providers').json()['resource_providers'] == []
    small = json.dumps({'name': 'fits'}).encode()
    resp = client.post('/resource_providers', data=_chunked(small) if chunked else small,
                       headers=hdrs)
    assert resp.status_code == 200, resp.text
    client.close()


@pytest.mark.parametrize('chunked', [False, True])
def test_baremetal_honours_the_configured_limit(small_limit_berth, chunked):
    bm = fixtures.BaremetalClient(small_limit_berth.baremetal_url)
    hdrs = {'Content-Type': 'application/json'}
    big = _node(LIMIT + 1)
    assert len(big) == LIMIT + 1
    resp = bm.post('/v1/nodes', data=_chunked(big) if chunked else big, headers=hdrs)
    assert resp.status_code == 413, resp.text
    assert bm.get('/v1/nodes').json()['nodes'] == []
    fits = _node(LIMIT)
    resp = bm.post('/v1/nodes', data=_chunked(fits) if chunked else fits, headers=hdrs)
    assert resp.status_code == 201, resp.text
    bm.close()


@pytest.mark.parametrize('api, method, path', [
    ('placement', 'POST', '/resource_providers'),
    ('baremetal', 'PATCH', '/v1/allocations/e0000000-0000-4000-8000-000000000001'),
    ('baremetal', 'POST', '/v1/nodes'),
])
def test_a_body_shorter_than_its_content_length_is_a_400(berth, api, method, path):
    """Found by the fuzz tier: the client goes away mid-body (500 before)."""
    import io

    import webob

    from api.baremetal import app as baremetal_app
    from api.placement import app as placement_app
    factory = placement_app.loadapp if api == 'placement' else baremetal_app.loadapp
    app = factory(berth.conf, berth.db, conductor=berth.conductor_api)
    req = webob.Request.blank(path, method=method, headers={
        'Content-Type': 'application/json', 'X-Auth-Token': 'admin',
        'OpenStack-API-Version': 'placement latest',
        'X-OpenStack-Ironic-API-Version': 'latest', 'Content-Length': '30'})
    req.body_file_raw = io.BytesIO(b'{"name": "x')
    req.content_length = 30
    resp = req.get_response(app)
    assert resp.status_int == 400, resp.body
    assert b'shorter than its Content-Length' in resp.body
