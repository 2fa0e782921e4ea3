"""Absolute links behind a proxy: X-Forwarded-*, [api] public_endpoint, never a raw Host.

The apps are built as berth-api builds them (all middleware) and called in
process; the embedded berth supplies the database and the conductors.
"""

from oslo_utils import uuidutils
import pytest
import webob

from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from common.conf import builder

BM = {'X-OpenStack-Ironic-API-Version': 'latest'}


@pytest.fixture
def make_apps(berth, tmp_path):
    """``make_apps(proxy=False, public_endpoint=None)`` -> {'placement': app, 'baremetal': app}."""
    def make(proxy=False, public_endpoint=None):
        path = tmp_path / 'berth.conf'
        path.write_text('[oslo_middleware]\nenable_proxy_headers_parsing = %s\n'
                        % ('true' if proxy else 'false'))
        overrides = {'state_path': str(tmp_path / 'state'),
                     'api.auth_strategy': 'noauth2'}
        if public_endpoint:
            overrides['api.public_endpoint'] = public_endpoint
        conf = builder.build(config_files=[str(path)], overrides=overrides)
        return {'placement': placement_app.loadapp(conf, berth.db, berth.conductor_api),
                'baremetal': baremetal_app.loadapp(conf, berth.db, berth.conductor_api)}
    return make


def _get(app, path, headers=None, host='api.example.com:6385', **kwargs):
    req = webob.Request.blank(path, headers=dict(headers or {}, **BM), **kwargs)
    req.headers['X-Auth-Token'] = 'admin'
    if host is not None:
        req.environ['HTTP_HOST'] = host
    return req.get_response(app)


def _hrefs(body):
    return [link['href'] for link in body['links']]


def test_forwarded_proto_makes_v1_links_https_when_proxy_parsing_is_on(make_apps):
    app = make_apps(proxy=True)['baremetal']
    body = _get(app, '/v1', {'X-Forwarded-Proto': 'https'}).json_body
    assert _hrefs(body) == ['https://api.example.com:6385/v1/']
    assert body['nodes'][0]['href'] == 'https://api.example.com:6385/v1/nodes/'
    root = _get(app, '/', {'X-Forwarded-Proto': 'https'}).json_body
    assert _hrefs(root['default_version']) == ['https://api.example.com:6385/v1/']


def test_forwarded_headers_are_ignored_by_default(make_apps):
    app = make_apps()['baremetal']
    body = _get(app, '/v1', {'X-Forwarded-Proto': 'https',
                             'X-Forwarded-Host': 'evil.example.com'}).json_body
    # neither the proxy's headers nor the Host header: the server's address
    # (webob's blank request: localhost:80)
    assert _hrefs(body) == ['http://localhost/v1/']


def test_forwarded_host_is_used_when_proxy_parsing_is_on(make_apps):
    app = make_apps(proxy=True)['baremetal']
    body = _get(app, '/v1', {'X-Forwarded-Host': 'cloud.example.com'}).json_body
    assert _hrefs(body) == ['http://cloud.example.com/v1/']


def test_a_host_header_alone_never_reaches_a_link(make_apps):
    for app in make_apps().values():
        resp = _get(app, '/', host='evil.example.com')
        assert b'evil.example.com' not in resp.body
    body = _get(make_apps()['baremetal'], '/v1', host='evil.example.com').json_body
    assert _hrefs(body) == ['http://localhost/v1/']


def test_public_endpoint_wins(make_apps):
    apps = make_apps(proxy=True, public_endpoint='https://cloud.example.com/baremetal/')
    body = _get(apps['baremetal'], '/v1', {'X-Forwarded-Proto': 'http',
                                           'X-Forwarded-Host': 'other.example.com'}).json_body
    assert _hrefs(body) == ['https://cloud.example.com/baremetal/v1/']
    resp = _get(apps['baremetal'], '/v1/nodes', method='POST',
                POST=None, content_type='application/json',
                body=b'{"driver": "fake-hardware"}')
    assert resp.status_int == 201, resp.body
    uuid = resp.json_body['uuid']
    assert resp.headers['location'] == 'https://cloud.example.com/baremetal/v1/nodes/%s' % uuid
    assert resp.json_body['links'][0]['href'] == (
        'https://cloud.example.com/baremetal/v1/nodes/%s' % uuid)


def test_placement_location_uses_public_endpoint(make_apps):
    app = make_apps(public_endpoint='https://cloud.example.com/placement')['placement']
    req = webob.Request.blank('/resource_providers', method='POST', headers={
        'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement 1.19'},
        content_type='application/json',
        body=b'{"name": "%s"}' % uuidutils.generate_uuid().encode())
    resp = req.get_response(app)
    assert resp.status_int == 201, resp.body
    assert resp.headers['location'].startswith(
        'https://cloud.example.com/placement/resource_providers/')


@pytest.mark.parametrize('host', ['evil.example.com/x?"', 'a b', 'x:port', '<script>'])
def test_a_malformed_host_header_never_reaches_a_link(make_apps, host):
    app = make_apps()['baremetal']
    body = _get(app, '/v1', host=host).json_body
    # webob's blank request: the server answered as localhost:80
    assert _hrefs(body) == ['http://localhost/v1/']
