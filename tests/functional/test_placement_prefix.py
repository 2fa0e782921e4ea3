"""Placement under /placement (devstack-style catalogs), on the built-in server and WSGI."""

from oslo_utils import uuidutils
import pytest
import webob

from api.placement import app as placement_app
from common.conf import builder
from tests import fixtures


@pytest.fixture
def prefixed(berth):
    c = fixtures.PlacementClient(berth.placement_url + '/placement', version='latest')
    yield c
    c.close()


def test_the_root_document_needs_no_token_under_the_prefix(berth, prefixed):
    for path in ('/', ''):
        resp = prefixed.get(path, token='')
        assert resp.status_code == 200, resp.text
        assert resp.json()['versions'][0]['id'] == 'v1.0'


def test_prefixed_paths_behave_like_the_unprefixed_ones(client, prefixed):
    created = prefixed.post('/resource_providers', json={'name': 'under-prefix'})
    assert created.status_code == 200, created.text
    uuid = created.json()['uuid']
    assert created.headers['location'].endswith('/placement/resource_providers/%s' % uuid)
    # links keep the prefix the client used
    assert {link['href'] for link in created.json()['links']} >= {
        '/placement/resource_providers/%s' % uuid}
    assert prefixed.get('/resource_providers').json() == {
        'resource_providers': [created.json()]}
    plain = client.get('/resource_providers/%s' % uuid).json()
    assert {k: v for k, v in plain.items() if k != 'links'} == {
        k: v for k, v in created.json().items() if k != 'links'}
    # errors and authentication are the same too
    assert prefixed.get('/resource_providers', token='').status_code == 401
    missing = prefixed.get('/resource_providers/%s' % uuidutils.generate_uuid())
    assert missing.status_code == 404
    assert missing.json()['errors'][0]['code'] == 'placement.undefined_code'


def test_a_path_that_only_starts_like_the_prefix_is_not_stripped(prefixed, berth):
    c = fixtures.PlacementClient(berth.placement_url, version='latest')
    try:
        assert c.get('/placementx/resource_providers').status_code == 404
    finally:
        c.close()


def test_the_wsgi_app_serves_the_prefix_and_an_empty_prefix_turns_it_off(berth, tmp_path):
    def app(prefix):
        conf = builder.build(config_files=[], overrides={
            'state_path': str(tmp_path / 'state'), 'api.auth_strategy': 'noauth2',
            'api.placement_prefix': prefix})
        return placement_app.loadapp(conf, berth.db, berth.conductor_api)

    def get(wsgi_app, path):
        return webob.Request.blank(path, headers={'X-Auth-Token': 'admin'}).get_response(
            wsgi_app)

    assert get(app('/placement'), '/placement/resource_providers').status_int == 200
    assert get(app('/placement'), '/resource_providers').status_int == 200
    assert get(app(''), '/placement/resource_providers').status_int == 404
    assert get(app('/nova-placement/'), '/nova-placement/resource_providers').status_int == 200
