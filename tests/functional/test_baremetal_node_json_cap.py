"""A node's free-form JSON fields are capped at ``[node] max_json_bytes``, over REST and RPC.

``extra``, ``properties``, ``instance_info`` and ``driver_info`` each: a
refused write is a 400 (REST) or Invalid (RPC ``update_node``) with the same
text, and stores nothing: no new node, the old value kept.
"""

import pytest

from common import context as berth_context
from common import exception
from conductor.rpcapi import payloads
from tests import fixtures
from tests.functional import baremetal_helpers as h

CAP = 1024
BIG = {'blob': 'x' * CAP}            # over CAP bytes once in JSON
SMALL = {'blob': 'x' * (CAP - 20)}   # just under
FIELDS = ('extra', 'properties', 'instance_info', 'driver_info')


def too_large(field):
    return '%s is larger than %d bytes' % (field, CAP)


@pytest.fixture
def conf(tmp_path):
    conf = fixtures.make_conf(tmp_path / 'state')
    conf.set_override('max_json_bytes', CAP, group='node')
    return conf


@pytest.mark.parametrize('field', FIELDS)
def test_create_over_the_cap_is_400_and_stores_nothing(berth, bm, field):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'n1',
                                      field: BIG})
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == too_large(field)
    assert bm.get('/v1/nodes').json()['nodes'] == []
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'n1',
                                      field: SMALL})
    assert resp.status_code == 201, resp.text[:300]
    assert bm.get('/v1/nodes/n1').json()[field] == SMALL


@pytest.mark.parametrize('field', FIELDS)
def test_patch_over_the_cap_is_400_and_keeps_the_field(berth, bm, field):
    node = h.make_node(bm, 'n1', **{field: {'a': 1}})
    resp = bm.patch('/v1/nodes/%s' % node['uuid'],
                    json=[{'op': 'add', 'path': '/%s/blob' % field, 'value': BIG['blob']}])
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == too_large(field)
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()[field] == {'a': 1}
    resp = bm.patch('/v1/nodes/%s' % node['uuid'],
                    json=[{'op': 'add', 'path': '/%s/blob' % field, 'value': 'small'}])
    assert resp.status_code == 200, resp.text[:300]


def test_rpc_update_node_over_the_cap_is_invalid_and_writes_nothing(berth, bm):
    node = h.make_node(bm, 'n1', extra={'a': 1})
    alloc = h.allocate(bm, resource_class='gold')
    assert alloc['state'] == 'active' and alloc['node_uuid'] == node['uuid']
    api = berth.conductor_api
    ctx = berth_context.admin_context(berth.db)
    with pytest.raises(exception.Invalid, match=too_large('extra')):
        api.update_node(ctx, (alloc['uuid'], api.allocation_owner(alloc['uuid'])),
                        node['uuid'], payloads.NodeUpdate.from_primitive(
                            {'instance_uuid': None, 'extra': BIG}))
    shown = bm.get('/v1/nodes/%s' % node['uuid']).json()
    assert shown['extra'] == {'a': 1} and shown['instance_uuid'] == alloc['uuid']
    assert bm.get('/v1/allocations/%s' % alloc['uuid']).status_code == 200
