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
