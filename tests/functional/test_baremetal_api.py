"""The /v1 API conventions: version documents, negotiation, error envelope, routing."""

import http.client
import json
import urllib.parse

import pytest


def test_root_and_v1_documents(bm):
    root = bm.get('/', version='')
    assert root.status_code == 200
    body = root.json()
    assert body['default_version']['min_version'] == '1.1'
    assert body['default_version']['version'] == '1.115'
    assert root.headers['X-OpenStack-Ironic-API-Minimum-Version'] == '1.1'
    assert root.headers['X-OpenStack-Ironic-API-Maximum-Version'] == '1.115'
    v1 = bm.get('/v1', version='1.52').json()
    assert 'allocations' in v1 and 'nodes' in v1
    assert 'allocations' not in bm.get('/v1', version='1.51').json()


def test_version_negotiation(bm):
    assert bm.get('/v1/nodes', version='').headers[
        'X-OpenStack-Ironic-API-Version'] == '1.1'
    assert bm.get('/v1/nodes', version='latest').headers[
        'X-OpenStack-Ironic-API-Version'] == '1.115'
    assert bm.get('/v1/nodes', version='1.58').headers[
        'X-OpenStack-Ironic-API-Version'] == '1.58'


@pytest.mark.parametrize('value', ['1.116', '1.0', '2.1'])
def test_version_out_of_range_is_406(bm, value):
    resp = bm.get('/v1/nodes', version=value)
    assert resp.status_code == 406
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == '1.115'


def test_garbage_version_is_400(bm):
    assert bm.get('/v1/nodes', version='one').status_code == 400


def test_error_envelope(bm):
    resp = bm.get('/v1/nodes/nope')
    assert resp.status_code == 404
    inner = json.loads(resp.json()['error_message'])
    assert inner['faultcode'] == 'Client'
    assert inner['debuginfo'] is None
    assert 'nope' in inner['faultstring']


def test_unknown_path_and_method(bm):
    assert bm.get('/v1/frobnicators').status_code == 404
    resp = bm.request('PUT', '/v1/nodes')
    assert resp.status_code == 405
    assert resp.headers['allow'] == 'GET, POST'


def test_body_over_limit_is_413_and_nothing_is_stored(bm, berth):
    limit = berth.conf.api.max_request_body_size
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware',
                                      'extra': {'pad': 'x' * (limit + 1)}})
    assert resp.status_code == 413
    inner = json.loads(resp.json()['error_message'])
    assert str(limit) in inner['faultstring']
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_non_integer_content_length_is_400(bm):
    host, port = urllib.parse.urlsplit(bm.base_url).netloc.split(':')
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.putrequest('POST', '/v1/nodes')
        conn.putheader('Content-Type', 'application/json')
        conn.putheader('Content-Length', 'two')
        conn.endheaders(b'{}')
        resp = conn.getresponse()
        assert resp.status == 400
    finally:
        conn.close()
