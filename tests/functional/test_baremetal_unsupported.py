"""Ironic endpoints berth does not serve say so (404), unlike a missing node."""

import json

import pytest

from api.baremetal import unsupported
from tests.functional import baremetal_helpers


def _fault(resp):
    return json.loads(resp.json()['error_message'])['faultstring']


@pytest.mark.parametrize('method, path', [
    ('GET', '/v1/ports'), ('GET', '/v1/drivers/fake-hardware/properties'),
    ('POST', '/v1/portgroups'),
    ('GET', '/v1/runbooks/r1'), ('GET', '/v1/deploy_templates'),
    ('GET', '/v1/volume/connectors'),
    ('GET', '/v1/nodes/{node}/validate'), ('PUT', '/v1/nodes/{node}/management/boot_device'),
    ('GET', '/v1/nodes/{node}/ports'), ('PUT', '/v1/nodes/{node}/states/raid'),
    ('GET', '/v1/nodes/{node}/vifs'),
])
def test_an_unsupported_endpoint_says_so(bm, method, path):
    node = baremetal_helpers.make_node(bm, state='enroll')
    path = path.format(node=node['uuid'])
    resp = bm.request(method, path)
    assert resp.status_code == 404
    assert _fault(resp) == 'not supported by berth: %s (see doc/source/api/baremetal.md)' % path


def test_a_missing_node_and_an_unknown_path_are_still_plain_404s(bm):
    resp = bm.get('/v1/nodes/no-such-node')
    assert resp.status_code == 404
    assert 'not supported' not in _fault(resp)
    resp = bm.get('/v1/nodes/no-such-node/no-such-thing')
    assert resp.status_code == 404
    assert 'not supported' not in _fault(resp)
    resp = bm.get('/v1/frobnicators')
    assert resp.status_code == 404
    assert 'not supported' not in _fault(resp)


def test_served_paths_are_never_called_unsupported():
    for path in ('/v1/nodes/n1/states/provision', '/v1/nodes/n1/traits',
                 '/v1/allocations', '/v1/nodes/n1/allocation', '/v1/nodes',
                 '/v1/chassis', '/v1/chassis/c1/nodes', '/v1/drivers',
                 '/v1/drivers/fake-hardware'):
        assert not unsupported.is_unsupported(path)
