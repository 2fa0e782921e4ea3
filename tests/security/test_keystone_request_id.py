"""Under keystone, nova's global request id reaches the API's and the conductor's log lines.

Both apps are built as berth-api builds them with ``auth_strategy = keystone``
(keystonemiddleware against the fake identity server) and talk to the
running embedded berth's conductors, so the RPC hop is the real one.
"""

import json

from oslo_utils import uuidutils
import pytest
import webob

from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from common.conf import builder
from tests import services
from tests.functional import alloc_helpers, baremetal_helpers
from tests.security import fake_keystone

services.import_or_unavailable('keystonemiddleware.auth_token')

TOKEN = 'tok-admin-61c0e9d2a4b7f3'


@pytest.fixture
def apps(berth, tmp_path):
    identity = fake_keystone.FakeKeystone().start()
    identity.tokens[TOKEN] = ('alice', 'p-admin', ['admin', 'member', 'reader'])
    path = tmp_path / 'berth.conf'
    path.write_text(fake_keystone.authtoken_config(identity.url))
    conf = builder.build(config_files=[str(path)], overrides={
        'state_path': str(tmp_path / 'state'), 'api.auth_strategy': 'keystone'})
    yield {'placement': placement_app.loadapp(conf, berth.db, berth.conductor_api),
           'baremetal': baremetal_app.loadapp(conf, berth.db, berth.conductor_api)}
    identity.stop()


def _call(app, method, path, headers, body=None):
    req = webob.Request.blank(path, method=method)
    req.headers.update(headers)
    req.headers['X-Auth-Token'] = TOKEN
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    return req.get_response(app)


def _lines_with(capture, suffix, text):
    return [line for _, name, line in capture.lines
            if name.endswith(suffix) and text in line]


def test_a_claim_carries_novas_request_id_to_the_conductor(apps, client, ctx, capture):
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 4}})
    consumer = alloc_helpers.new_uuid()
    global_id = 'req-' + uuidutils.generate_uuid()
    del capture.lines[:]
    resp = _call(apps['placement'], 'PUT', '/allocations/%s' % consumer,
                 {'OpenStack-API-Version': 'placement 1.28',
                  'X-OpenStack-Request-ID': global_id},
                 alloc_helpers.body({rp: {'VCPU': 1}}))
    assert resp.status_int == 204, resp.body
    request_id = resp.headers['x-openstack-request-id']
    api = _lines_with(capture, 'api.placement.app', '/allocations/%s' % consumer)
    conductor = _lines_with(capture, 'conductor.workers', 'admitted')
    assert len(api) == 1 and conductor, capture.lines
    for line in api + conductor:
        assert global_id in line and request_id in line, line


def test_a_node_allocation_carries_novas_request_id_to_the_conductor(apps, bm, capture):
    global_id = 'req-' + uuidutils.generate_uuid()
    resp = _call(apps['baremetal'], 'POST', '/v1/allocations',
                 {'X-OpenStack-Ironic-API-Version': 'latest',
                  'X-OpenStack-Request-ID': global_id},
                 {'resource_class': 'keystone-logs-nothing'})
    assert resp.status_int == 201, resp.body
    uuid = resp.json_body['uuid']
    request_id = resp.headers['x-openstack-request-id']
    assert baremetal_helpers.wait_allocation(bm, uuid)['state'] == 'error'
    api = _lines_with(capture, 'api.baremetal.app', '"POST /v1/allocations"')
    failed = [line for thread, name, line in capture.lines
              if name.endswith('conductor.manager.node_allocations') and 'failed' in line
              and not thread.startswith('periodic')]
    assert len(api) == 1 and len(failed) == 1, capture.lines
    for line in api + failed:
        assert global_id in line and request_id in line, line
