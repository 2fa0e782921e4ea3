"""CORS: answered for the configured origins only, on both APIs."""

from oslo_middleware import cors
import pytest
import requests

from tests import fixtures

ORIGIN = 'https://dashboard.example'


def _preflight(url):
    return requests.options(url, headers={
        'Origin': ORIGIN, 'Access-Control-Request-Method': 'GET'}, timeout=10)


@pytest.fixture
def cors_berth(conf, tmp_path_factory):
    conf.register_opts(cors.CORS_OPTS, 'cors')
    conf.set_override('allowed_origin', [ORIGIN], group='cors')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def test_allowed_origin_gets_preflight_and_headers(cors_berth):
    for base in (cors_berth.placement_url, cors_berth.baremetal_url):
        resp = _preflight(base + '/')
        assert resp.status_code == 200
        assert resp.headers['Access-Control-Allow-Origin'] == ORIGIN
        resp = requests.get(base + '/', headers={'Origin': ORIGIN}, timeout=10)
        assert resp.headers['Access-Control-Allow-Origin'] == ORIGIN
        resp = requests.get(base + '/', headers={'Origin': 'https://evil.example'},
                            timeout=10)
        assert 'Access-Control-Allow-Origin' not in resp.headers


def test_no_origin_configured_adds_no_cors_headers(berth):
    for base in (berth.placement_url, berth.baremetal_url):
        resp = requests.get(base + '/', headers={'Origin': ORIGIN}, timeout=10)
        assert resp.status_code == 200
        assert 'Access-Control-Allow-Origin' not in resp.headers
        assert 'Access-Control-Allow-Origin' not in _preflight(base + '/').headers
