"""The ``extra`` all allocations of one project store is capped, over REST and RPC.

``[allocation] max_extra_bytes_per_project``: a create, backfill or PATCH that
would take the owner's stored ``extra`` over the cap is a 400 (REST) or
Invalid (RPC) with one text and writes nothing; another project is not
affected; deleting an allocation gives its bytes back; two creates racing
for the last bytes cannot both pass (the database serialises them on the
owner's row, on every engine of the functional tier).
"""

import threading

import pytest

from common import context as berth_context
from common import exception
from conductor.rpcapi import payloads
from db import api as db_api
from db import models
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import extra_usage
from tests import fixtures
from tests.functional import baremetal_helpers as h

CAP = 3000
PART = {'blob': 'x' * 1200}          # two fit under CAP, a third does not
PART_BYTES = extra_usage.size(PART)


def over(owner, usage):
    return ('extra of the allocations of project %s would take %d bytes, more than '
            "the project's %d" % (owner, usage, CAP))


@pytest.fixture
def conf(tmp_path):
    conf = fixtures.make_conf(tmp_path / 'state')
    conf.set_override('max_extra_bytes_per_project', CAP, group='allocation')
    return conf


def _post(bm, owner, extra, **body):
    return bm.post('/v1/allocations', json=dict(body, resource_class='gold', owner=owner,
                                                extra=extra))


def _uuids(bm, owner):
    return sorted(a['uuid'] for a in
                  bm.get('/v1/allocations?owner=%s' % owner).json()['allocations'])


def test_create_over_the_project_cap_is_400_and_stores_nothing(berth, bm):
    first = _post(bm, 'p1', PART)
    second = _post(bm, 'p1', PART)
    assert first.status_code == 201 and second.status_code == 201, second.text[:300]
    before = _uuids(bm, 'p1')
    resp = _post(bm, 'p1', PART)
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == over('p1', 3 * PART_BYTES)
    assert _uuids(bm, 'p1') == before
    # another project has a cap of its own; an empty extra is never refused
    assert _post(bm, 'p2', PART).status_code == 201
    assert _post(bm, 'p1', {}).status_code == 201


def test_allocations_without_an_owner_share_one_cap(berth, bm):
    for _ in range(2):
        resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'extra': PART})
        assert resp.status_code == 201 and resp.json()['owner'] is None, resp.text[:300]
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold', 'extra': PART})
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == over('(none)', 3 * PART_BYTES)
    assert len(bm.get('/v1/allocations').json()['allocations']) == 2


def test_a_row_an_older_release_wrote_counts_too(berth, bm):
    """A row without ``extra_bytes`` (written before migration 0007) is measured."""
    h.allocate(bm, resource_class='gold', owner='p1', extra=PART)

    @db_api.writer
    def old_insert(ctx):
        ctx.session.execute(models.NodeAllocation.__table__.insert().values(
            uuid='7d0e6b7c-2222-4c1e-9b7a-2e6f8d1c0a93', state=node_alloc_obj.ERROR,
            owner='p1', resource_class='gold', extra=PART, created_at=models._now()))

    old_insert(berth_context.admin_context(berth.db))
    resp = _post(bm, 'p1', PART)
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == over('p1', 3 * PART_BYTES)


def test_deleting_an_allocation_gives_its_bytes_back(berth, bm):
    a = h.allocate(bm, resource_class='gold', owner='p1', extra=PART)
    h.allocate(bm, resource_class='gold', owner='p1', extra=PART)
    assert _post(bm, 'p1', PART).status_code == 400
    resp = bm.delete('/v1/allocations/%s' % a['uuid'])
    assert resp.status_code == 204, resp.text[:300]
    assert _post(bm, 'p1', PART).status_code == 201


def test_patch_growing_over_the_cap_is_400_and_keeps_extra(berth, bm):
    h.allocate(bm, resource_class='gold', owner='p1', extra=PART)
    b = h.allocate(bm, resource_class='gold', owner='p1', extra={'a': 1})
    resp = bm.patch('/v1/allocations/%s' % b['uuid'],
                    json=[{'op': 'add', 'path': '/extra/blob', 'value': 'y' * 2000}])
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp).startswith('extra of the allocations of project p1 ')
    assert bm.get('/v1/allocations/%s' % b['uuid']).json()['extra'] == {'a': 1}
    resp = bm.patch('/v1/allocations/%s' % b['uuid'],
                    json=[{'op': 'add', 'path': '/extra/blob', 'value': 'y' * 1000}])
    assert resp.status_code == 200, resp.text[:300]


def test_backfill_over_the_cap_is_400_and_stores_nothing(berth, bm):
    h.allocate(bm, resource_class='gold', owner='p1', extra=PART)
    h.allocate(bm, resource_class='gold', owner='p1', extra=PART)
    node = h.make_node(bm, 'n1', state='active')
    before = _uuids(bm, 'p1')
    resp = _post(bm, 'p1', PART, node=node['uuid'])
    assert resp.status_code == 400, resp.text[:300]
    assert h.fault(resp) == over('p1', 3 * PART_BYTES)
    assert _uuids(bm, 'p1') == before
    assert bm.get('/v1/nodes/%s' % node['uuid']).json()['instance_uuid'] is None


OWN = 'p1'


def test_rpc_update_and_backfill_over_the_cap_are_invalid(berth, bm):
    h.allocate(bm, resource_class='gold', owner=OWN, extra=PART)
    b = h.allocate(bm, resource_class='gold', owner=OWN, extra=PART)
    node = h.make_node(bm, 'n1', state='active', owner=OWN)
    api = berth.conductor_api
    # a member of the project, as berth-api would send its call
    ctx = berth_context.RequestContext(user_id='u1', project_id=OWN, db=berth.db,
                                       roles=['member', 'reader'], overwrite=False)
    grown = {'blob': 'z' * 2000}
    with pytest.raises(exception.Invalid, match='extra of the allocations of project p1 '):
        api.update_allocation(ctx, (b['uuid'], api.allocation_owner(b['uuid'])),
                              payloads.AllocationUpdate(None, grown))
    assert bm.get('/v1/allocations/%s' % b['uuid']).json()['extra'] == PART
    before = _uuids(bm, OWN)
    with pytest.raises(exception.AllocationExtraOverProjectCap):
        api.backfill_allocation(ctx, payloads.NewAllocation(
            uuid='5f0c2b8e-3d4a-4c1e-9b7a-2e6f8d1c0a93', resource_class='gold', owner=OWN,
            extra=PART), node['uuid'])
    assert _uuids(bm, OWN) == before


def test_two_creates_racing_for_the_last_bytes_cannot_both_pass(berth, bm):
    """A holds the owner's check open while B creates: B must see A's row."""
    h.allocate(bm, resource_class='gold', owner='p1', extra=PART)
    checked, b_started = threading.Event(), threading.Event()
    outcome = {}

    @db_api.writer
    def a_create(ctx):
        extra_usage.check(ctx, 'p1', PART, CAP)
        checked.set()
        assert b_started.wait(30)
        # B is now in its own create; give it time to reach its check (a
        # scheduling pause, not an assertion: the outcome below holds either way)
        threading.Event().wait(0.5)
        node_alloc_obj.insert_in_txn(ctx, {'uuid': '0f6a7a1e-1111-4c1e-9b7a-2e6f8d1c0a93',
                                      'state': node_alloc_obj.ERROR, 'owner': 'p1',
                                      'resource_class': 'gold', 'extra': PART})

    def run_a():
        try:
            a_create(berth_context.admin_context(berth.db))
            outcome['a'] = 'ok'
        except exception.AllocationExtraOverProjectCap:
            outcome['a'] = 'refused'

    def run_b():
        assert checked.wait(30)
        b_started.set()
        try:
            node_alloc_obj.create(berth_context.admin_context(berth.db),
                                  payloads.NewAllocation(resource_class='gold', owner='p1',
                                                         extra=PART), extra_cap=CAP)
            outcome['b'] = 'ok'
        except exception.AllocationExtraOverProjectCap:
            outcome['b'] = 'refused'

    threads = [threading.Thread(target=run_a), threading.Thread(target=run_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert outcome == {'a': 'ok', 'b': 'refused'}
    stored = [a['extra'] for a in bm.get('/v1/allocations?owner=p1').json()['allocations']]
    assert len(stored) == 2
    assert sum(extra_usage.size(e) for e in stored) <= CAP
