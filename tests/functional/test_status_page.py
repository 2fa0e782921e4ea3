"""GET /status and /status.json: admin only, read-only, the ring, allocations, capacity."""

import time

import pytest

from api import server as http_server
from api.placement import app as placement_app
from common import version
from tests import fixtures
from tests.functional import status_helpers

pytestmark = pytest.mark.usefixtures('berth')


@pytest.fixture
def conf(tmp_path):
    return status_helpers.make_conf(tmp_path)


def test_status_json(berth, client, ctx):
    started = time.time()
    made = status_helpers.populate(client, ctx)
    resp = client.get('/status.json', version='')
    assert resp.status_code == 200, resp.text
    assert resp.headers['cache-control'] == 'no-store'
    body = resp.json()
    assert body['refresh_seconds'] > 0
    assert body['heartbeat_interval'] == berth.conf.coordination.ring_refresh_interval
    conductors = body['conductors']
    assert [c['host'] for c in conductors] == sorted(c.host for c in berth.conductors)
    assert body['unreachable'] == []        # broker, coordination: both answer
    for conductor in conductors:
        assert conductor['rpc_api_version']
        # bounded both ways: an age counted from the wrong clock or epoch is
        # years, a ping counted in seconds is thousands of "ms"
        assert conductor['ping_error'] is None and 0 <= conductor['ping_ms'] < 30000
        assert 0 <= conductor['joined_age'] < berth.conf.coordination.ring_refresh_interval \
            + 600    # joined when the fixture started, within the test's timeout
    allocations = body['node_allocations']
    assert allocations['counts'] == {'allocating': 2, 'active': 1, 'error': 1}
    assert allocations['oldest_allocating_uuid'] == made['oldest']
    assert allocations['oldest_allocating_conductor'] == 'departed-host'
    # created by populate() above: no older than this test (stamps are whole seconds)
    assert 0 <= allocations['oldest_allocating_age'] <= time.time() - started + 1
    by_class = {c['resource_class']: c for c in body['capacity']}
    assert sorted(by_class) == ['DISK_GB', 'MEMORY_MB', 'VCPU']
    assert (by_class['DISK_GB']['used'], by_class['DISK_GB']['top_consumers']) == (0, [])
    vcpu = by_class['VCPU']
    assert (vcpu['capacity'], vcpu['used'], vcpu['providers']) == (20, 7, 2)
    assert [(t['consumer_uuid'], t['project_id'], t['used'])
            for t in vcpu['top_consumers']] == [(made['big'], 'proj-a', 6),
                                                (made['small'], 'proj-b', 1)]
    memory = by_class['MEMORY_MB']
    assert (memory['capacity'], memory['used'], memory['providers']) == (1536, 1500, 1)


def test_status_page_is_self_contained(client):
    resp = client.get('/status', version='', headers={'accept': 'text/html'})
    assert resp.status_code == 200, resp.text
    assert resp.headers['content-type'].startswith('text/html')
    assert resp.headers['cache-control'] == 'no-store'
    csp = resp.headers['content-security-policy']
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    page = resp.text
    assert '<title>berth status</title>' in page
    assert '<span class="meta" id="version">berth %s</span>' % version.version_string() in page
    assert 'status.json' in page
    # no external assets: no URL, no src= or <link> pointing anywhere
    for marker in ('http://', 'https://', 'src=', '<link'):
        assert marker not in page


@pytest.mark.parametrize('path', ['/status', '/status.json'])
def test_non_admin_is_forbidden(client, path):
    resp = client.get(path, token='someone:proj', version='1.39')
    assert resp.status_code == 403, resp.text
    assert resp.json()['errors'][0]['code'] == 'placement.undefined_code'
    assert 'placement:status:show' in resp.json()['errors'][0]['detail']


@pytest.mark.parametrize('path', ['/status', '/status.json'])
def test_no_token_on_loopback_with_noauth2_is_the_browser_case(berth, client, path):
    """The embedded default: a browser on this host opens the page without a token."""
    assert berth.conf.api.auth_strategy == 'noauth2'
    assert berth.conf.api.host == '127.0.0.1'
    resp = client.get(path, token='', version='')
    assert resp.status_code == 200, resp.text
    # a token, when sent, is still the caller's identity
    assert client.get(path, token='someone:proj', version='').status_code == 403


@pytest.mark.parametrize('path', ['/status', '/status.json'])
@pytest.mark.parametrize('headers', [
    {'X-Forwarded-For': '203.0.113.9'},           # a local proxy in front
    {'Forwarded': 'for=203.0.113.9'},
    {'Host': 'rebound.example.com'},              # a DNS-rebound page in a browser
])
def test_no_token_through_a_proxy_or_foreign_host_is_unauthorized(client, path, headers):
    assert client.get(path, token='', version='', headers=headers).status_code == 401


@pytest.mark.parametrize('path', ['/status', '/status.json'])
def test_no_token_when_listening_beyond_loopback_is_unauthorized(berth, client, path):
    berth.conf.set_override('host', '0.0.0.0', group='api')
    assert client.get(path, token='', version='').status_code == 401


def test_no_token_elsewhere_is_unauthorized(client):
    assert client.get('/resource_providers', token='', version='').status_code == 401


@pytest.mark.parametrize('path', ['/status', '/status.json'])
def test_read_only(client, path):
    resp = client.post(path, json={}, version='')
    assert resp.status_code == 405
    assert resp.headers['allow'] == 'GET'


def test_json_only_for_json_accept(client):
    resp = client.get('/status.json', version='', headers={'accept': 'text/html'})
    assert resp.status_code == 406


def test_no_conductor_is_503(berth, client, tmp_path):
    """An API process without a conductor client answers 503, not 500."""
    app = placement_app.loadapp(berth.conf, berth.db, conductor=None)
    server = http_server.HttpServer(app, '127.0.0.1', 0, threads=2, name='bare')
    host, port = server.start()
    try:
        bare = fixtures.PlacementClient('http://%s:%d' % (host, port), version='')
        resp = bare.get('/status.json')
        bare.close()
    finally:
        server.stop()
    assert resp.status_code == 503, resp.text


def test_a_conductor_that_does_not_answer(berth, client):
    """A member that is in the group but does not answer the ping is shown as such."""
    berth.conductors[1]._server.stop()   # still a member; no longer serving RPC
    body = client.get('/status.json', version='').json()
    by_host = {c['host']: c for c in body['conductors']}
    assert by_host[berth.conductors[1].host]['ping_error']
    assert by_host[berth.conductors[1].host]['ping_ms'] is None
    assert by_host[berth.conductors[0].host]['ping_error'] is None
