"""Project-scoped callers (keystone identity headers) and allocation ownership."""

import json

import pytest
import webob

from api.baremetal import app as baremetal_app
from tests.functional import baremetal_helpers as h


@pytest.fixture
def as_project(berth):
    """Call the /v1 app in process as ``roles`` of ``project`` (keystone headers)."""
    berth.conf.set_override('auth_strategy', 'keystone', group='api')
    app = baremetal_app.BaremetalApp(berth.conf, berth.db, berth.conductor_api)
    berth.conf.clear_override('auth_strategy', group='api')

    def call(method, path, project='p1', roles='member', body=None):
        req = webob.Request.blank(path, method=method, headers={
            'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u-' + project,
            'X-Project-Id': project, 'X-Roles': roles,
            'X-OpenStack-Ironic-API-Version': '1.60'})
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        resp = req.get_response(app)
        return resp.status_int, (resp.json if resp.body else None)
    return call


def test_member_allocations_are_owned_by_its_project(bm, as_project):
    mine = h.make_node(bm, 'mine', owner='p1')
    h.make_node(bm, 'theirs', owner='p2')
    status, body = as_project('POST', '/v1/allocations', body={'resource_class': 'gold'})
    assert status == 201 and body['owner'] == 'p1'
    done = h.wait_allocation(bm, body['uuid'])
    assert done['node_uuid'] == mine['uuid']
    status, _ = as_project('POST', '/v1/allocations',
                           body={'resource_class': 'gold', 'owner': 'p2'})
    assert status == 403
    other = h.allocate(bm, resource_class='gold', owner='p2')
    status, listed = as_project('GET', '/v1/allocations')
    assert [a['uuid'] for a in listed['allocations']] == [body['uuid']]
    assert as_project('GET', '/v1/allocations?owner=p2')[0] == 403
    assert as_project('GET', '/v1/allocations/%s' % other['uuid'])[0] == 404
    assert as_project('DELETE', '/v1/allocations/%s' % other['uuid'])[0] == 404
    assert as_project('GET', '/v1/allocations/%s' % body['uuid'])[0] == 200
    assert as_project('DELETE', '/v1/allocations/%s' % body['uuid'])[0] == 204


def test_readers_and_strangers(bm, as_project):
    assert as_project('GET', '/v1/allocations', roles='reader')[0] == 200
    assert as_project('POST', '/v1/allocations', roles='reader',
                      body={'resource_class': 'gold'})[0] == 403
    assert as_project('GET', '/v1/allocations', roles='')[0] == 403
    assert as_project('GET', '/v1/nodes', roles='member')[0] == 403
    assert as_project('GET', '/v1/nodes', roles='admin')[0] == 200
