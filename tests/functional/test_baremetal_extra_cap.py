"""An allocation's ``extra`` is capped at ``[allocation] max_extra_bytes``, over REST and RPC.

A refused write is a 400 (REST) or Invalid (RPC) with the same text, and
stores nothing: no new allocation, the old ``extra`` kept.
"""

import pytest

from common import context as berth_context
from common import exception
from conductor.rpcapi import payloads
from tests import fixtures
from tests.functional import baremetal_helpers as h

CAP = 1024
BIG = {'blob': 'x' * CAP}           # over CAP bytes once in JSON
SMALL = {'blob': 'x' * (CAP - 20)}  # just under
TOO_LARGE = 'extra is larger than %d bytes' % CAP


@pytest.fixture
def conf(tmp_path):
    conf = fixtures.make_conf(tmp_path / 'state')
    conf.set_override('max_extra_bytes', CAP, group='allocation')
    return conf


def test_create_over_the_cap_is_400_and_stores_nothing(berth, bm):
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'extra': BIG})
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == TOO_LARGE
    assert bm.get('/v1/allocations').json()['allocations'] == []
    node = h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'extra': BIG,
                                            'node': node['uuid']})
    assert resp.status_code == 400 and h.fault(resp) == TOO_LARGE
    assert bm.get('/v1/allocations').json()['allocations'] == []
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'extra': SMALL})
    assert resp.status_code == 201, resp.text[:300]
    assert resp.json()['extra'] == SMALL


def test_patch_over_the_cap_is_400_and_keeps_extra(berth, bm):
    a = h.allocate(bm, resource_class='gold', extra={'a': 1})
    resp = bm.patch('/v1/allocations/%s' % a['uuid'],
                    json=[{'op': 'add', 'path': '/extra/blob', 'value': BIG['blob']}])
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == TOO_LARGE
    assert bm.get('/v1/allocations/%s' % a['uuid']).json()['extra'] == {'a': 1}


def test_rpc_update_and_backfill_over_the_cap_are_invalid(berth, bm):
    a = h.allocate(bm, resource_class='gold', extra={'a': 1})
    node = h.make_node(bm, 'n1')
    api = berth.conductor_api
    ctx = berth_context.admin_context(berth.db)
    with pytest.raises(exception.Invalid, match=TOO_LARGE):
        api.update_allocation(ctx, (a['uuid'], api.allocation_owner(a['uuid'])),
                              payloads.AllocationUpdate(None, BIG))
    assert bm.get('/v1/allocations/%s' % a['uuid']).json()['extra'] == {'a': 1}
    with pytest.raises(exception.Invalid, match=TOO_LARGE):
        api.backfill_allocation(ctx, payloads.NewAllocation(
            uuid='5f0c2b8e-3d4a-4c1e-9b7a-2e6f8d1c0a93', resource_class='gold', extra=BIG),
            node['uuid'])
    assert [x['uuid'] for x in bm.get('/v1/allocations').json()['allocations']] == [a['uuid']]
