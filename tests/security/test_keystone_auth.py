"""Production auth: keystonemiddleware in front of both APIs, against a fake identity server.

Only the process edge is faked (an HTTP identity server on loopback);
keystonemiddleware, its token validation, berth's header-to-context path and
the policy defaults are the real ones.
"""

import json
import logging

import pytest
import webob

from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from common.conf import builder
from tests import services
from tests.security import fake_keystone

services.import_or_unavailable('keystonemiddleware.auth_token')

ADMIN_TOKEN = 'tok-admin-3f9c2b71e0a54d'
READER_TOKEN = 'tok-reader-8a1d44c2b9e07f'
PLACEMENT = {'OpenStack-API-Version': 'placement latest'}


@pytest.fixture
def identity():
    fake = fake_keystone.FakeKeystone().start()
    fake.tokens[ADMIN_TOKEN] = ('alice', 'p-admin', ['admin', 'member', 'reader'])
    fake.tokens[READER_TOKEN] = ('bob', 'p-bob', ['reader'])
    yield fake
    fake.stop()


@pytest.fixture
def apps(berth, identity, tmp_path):
    """Both apps built the way berth-api builds them, with [api] auth_strategy = keystone."""
    path = tmp_path / 'berth.conf'
    path.write_text(fake_keystone.authtoken_config(identity.url))
    conf = builder.build(config_files=[str(path)], overrides={
        'state_path': str(tmp_path / 'state'), 'api.auth_strategy': 'keystone'})
    return {'placement': placement_app.loadapp(conf, berth.db, berth.conductor_api),
            'baremetal': baremetal_app.loadapp(conf, berth.db, berth.conductor_api)}


def _call(app, method, path, token=None, headers=None, body=None):
    req = webob.Request.blank(path, method=method)
    req.headers.update(headers or {})
    if token:
        req.headers['X-Auth-Token'] = token
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    return req.get_response(app)


def test_a_valid_token_reaches_the_handlers(apps, identity):
    resp = _call(apps['placement'], 'GET', '/resource_providers', ADMIN_TOKEN, PLACEMENT)
    assert resp.status_int == 200, resp.body
    resp = _call(apps['baremetal'], 'GET', '/v1/nodes', ADMIN_TOKEN,
                 {'X-OpenStack-Ironic-API-Version': 'latest'})
    assert resp.status_int == 200, resp.body
    assert identity.service_logins >= 1 and identity.validations >= 1


@pytest.mark.parametrize('token', [None, 'no-such-token'])
def test_no_or_unknown_token_is_401(apps, token):
    resp = _call(apps['placement'], 'GET', '/resource_providers', token, PLACEMENT)
    assert resp.status_int == 401
    assert resp.json_body['errors'][0]['status'] == 401
    resp = _call(apps['baremetal'], 'GET', '/v1/nodes', token)
    assert resp.status_int == 401


def test_identity_headers_from_the_client_are_not_trusted(apps):
    spoof = dict(PLACEMENT, **{'X-Identity-Status': 'Confirmed', 'X-User-Id': 'eve',
                               'X-Project-Id': 'p-admin', 'X-Roles': 'admin'})
    resp = _call(apps['placement'], 'GET', '/resource_providers', None, spoof)
    assert resp.status_int == 401
    resp = _call(apps['placement'], 'POST', '/resource_providers', READER_TOKEN, spoof,
                 {'name': 'spoofed'})
    assert resp.status_int == 403  # the token's roles count, not the headers


def test_version_documents_need_no_token(apps):
    assert _call(apps['placement'], 'GET', '/').status_int == 200
    assert _call(apps['baremetal'], 'GET', '/v1').status_int == 200


def test_policy_defaults_writes_admin_reads_per_project(apps):
    placement = apps['placement']
    created = _call(placement, 'POST', '/resource_providers', READER_TOKEN, PLACEMENT,
                    {'name': 'by-reader'})
    assert created.status_int == 403
    assert _call(placement, 'GET', '/resource_providers', READER_TOKEN,
                 PLACEMENT).status_int == 403
    own = _call(placement, 'GET', '/usages?project_id=p-bob', READER_TOKEN, PLACEMENT)
    assert own.status_int == 200, own.body
    other = _call(placement, 'GET', '/usages?project_id=p-admin', READER_TOKEN, PLACEMENT)
    assert other.status_int == 403
    created = _call(placement, 'POST', '/resource_providers', ADMIN_TOKEN, PLACEMENT,
                    {'name': 'by-admin'})
    assert created.status_int == 200, created.body
    node = _call(apps['baremetal'], 'POST', '/v1/nodes', READER_TOKEN,
                 {'X-OpenStack-Ironic-API-Version': 'latest'}, {'driver': 'fake-hardware'})
    assert node.status_int == 403


def test_tokens_and_the_service_password_never_reach_the_logs(apps, caplog):
    caplog.set_level(logging.DEBUG)
    for app, path in ((apps['placement'], '/resource_providers'),
                      (apps['baremetal'], '/v1/nodes')):
        for token in (ADMIN_TOKEN, READER_TOKEN, 'bogus-token-7d1e9'):
            _call(app, 'GET', path, token, PLACEMENT)
    assert caplog.records  # something was logged, and it is clean
    for secret in (ADMIN_TOKEN, READER_TOKEN, 'bogus-token-7d1e9',
                   fake_keystone.SERVICE_PASSWORD, 'service-token'):
        assert secret not in caplog.text
