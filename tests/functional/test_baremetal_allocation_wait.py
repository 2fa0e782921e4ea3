"""POST /v1/allocations: Ironic's answer (allocating) unless a bounded wait is asked for.

The operator asks with ``[api] allocation_wait``, the caller with the
``Berth-Allocation-Wait`` header (cut to ``[api] allocation_wait_max``).
"""

import threading

import pytest

from conductor import workers as workers_mod
from conductor.manager import allocation_queue, node_allocations
from objects.baremetal import allocation as node_alloc_obj
from tests.functional import baremetal_helpers as h

# the outcome tests wait long: on a loaded CI machine the 3 s default can pass
# before the conductor's transaction does, and then the answer is "allocating"
OUTCOME_WAIT = 60
WAIT = 'Berth-Allocation-Wait'


def test_by_default_the_answer_is_allocating_as_ironic(bm):
    node = h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert (body['state'], body['node_uuid'], body['last_error']) == (
        'allocating', None, None)
    done = h.wait_allocation(bm, body['uuid'])
    assert done['state'] == 'active' and done['node_uuid'] == node['uuid']


def test_the_caller_opts_in_to_the_outcome_with_a_header(bm):
    node = h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'},
                   headers={WAIT: str(OUTCOME_WAIT)})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body['state'] == 'active' and body['node_uuid'] == node['uuid']
    assert body == bm.get('/v1/allocations/%s' % body['uuid']).json()


def test_the_callers_wait_is_cut_to_the_configured_maximum(bm, conf):
    # with a maximum of 0 the header can ask for anything: no wait at all
    conf.set_override('allocation_wait_max', 0, group='api')
    node = h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'},
                   headers={WAIT: str(OUTCOME_WAIT)})
    assert resp.status_code == 201, resp.text
    assert resp.json()['state'] == 'allocating'
    done = h.wait_allocation(bm, resp.json()['uuid'])
    assert done['state'] == 'active' and done['node_uuid'] == node['uuid']


def test_a_header_of_zero_overrides_the_operators_wait(bm, conf):
    conf.set_override('allocation_wait', OUTCOME_WAIT, group='api')
    h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'},
                   headers={WAIT: '0'})
    assert resp.status_code == 201, resp.text
    assert resp.json()['state'] == 'allocating'
    assert h.wait_allocation(bm, resp.json()['uuid'])['state'] == 'active'


@pytest.mark.parametrize('value', ['soon', '-1', 'nan', 'inf', '', '1e999'])
def test_a_bad_wait_header_is_400_and_stores_nothing(bm, value):
    h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'},
                   headers={WAIT: value})
    assert resp.status_code == 400, resp.text
    assert h.fault(resp).startswith('Invalid value for Berth-Allocation-Wait header')
    assert bm.get('/v1/allocations').json()['allocations'] == []
    assert bm.get('/v1/nodes/n1').json()['instance_uuid'] is None


def test_the_answer_is_the_outcome_as_stored(bm, conf):
    conf.set_override('allocation_wait', OUTCOME_WAIT, group='api')
    node = h.make_node(bm, 'n1', traits=['CUSTOM_GPU'])
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold',
                                            'traits': ['CUSTOM_GPU']})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body['state'] == 'active' and body['node_uuid'] == node['uuid']
    assert body == bm.get('/v1/allocations/%s' % body['uuid']).json()


def test_a_failure_is_answered_with_its_last_error(bm, conf):
    conf.set_override('allocation_wait', OUTCOME_WAIT, group='api')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body['state'] == 'error' and body['node_uuid'] is None
    assert body['last_error'] == ('Failed to process allocation %s: no available '
                                  'nodes match the resource class gold.' % body['uuid'])
    assert body == bm.get('/v1/allocations/%s' % body['uuid']).json()


def test_no_wait_is_a_cast_answered_allocating(bm, conf):
    conf.set_override('allocation_wait', 0, group='api')
    node = h.make_node(bm, 'n1')
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'})
    assert resp.status_code == 201, resp.text
    assert resp.json()['state'] in ('allocating', 'active')   # a fast conductor
    done = h.wait_allocation(bm, resp.json()['uuid'])
    assert done['state'] == 'active' and done['node_uuid'] == node['uuid']


def test_a_slow_conductor_is_answered_allocating_and_finishes(bm, berth, conf,
                                                              monkeypatch):
    conf.set_override('allocation_wait', 0.05, group='api')
    node = h.make_node(bm, 'n1')
    gate = threading.Event()
    for conductor in berth.conductors:
        allocator = conductor.manager.node_allocator
        # a call's rows get their shared first pass in allocate_many, a
        # cast's in allocate: both wait for the gate
        for name in ('allocate', 'allocate_many'):
            def slow(*args, original=getattr(allocator, name), **kwargs):
                gate.wait(30)
                return original(*args, **kwargs)
            monkeypatch.setattr(allocator, name, slow)
    try:
        resp = bm.post('/v1/allocations', json={'resource_class': 'gold'})
    finally:
        gate.set()
    assert resp.status_code == 201, resp.text
    assert resp.json()['state'] == 'allocating'
    done = h.wait_allocation(bm, resp.json()['uuid'])
    assert done['state'] == 'active' and done['node_uuid'] == node['uuid']


def test_a_row_finished_by_another_drive_is_answered_as_stored(bm, berth, conf,
                                                                monkeypatch):
    # the resume at start (or the re-drive) finished the row first, so the
    # API's call wrote nothing and has no outcome of its own to answer
    conf.set_override('allocation_wait', OUTCOME_WAIT, group='api')
    node = h.make_node(bm, 'n1')
    for conductor in berth.conductors:
        allocator = conductor.manager.node_allocator

        def drive_elsewhere(ctx, alloc_id, first=None, *, original=allocator.allocate):
            original(ctx, alloc_id, first)
            return None
        monkeypatch.setattr(allocator, 'allocate', drive_elsewhere)
    resp = bm.post('/v1/allocations', json={'resource_class': 'gold'})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body['state'] == 'active' and body['node_uuid'] == node['uuid']
    assert body == bm.get('/v1/allocations/%s' % body['uuid']).json()


def test_queue_run_answers_what_the_worker_wrote_or_none(ctx):
    workers = workers_mod.Workers('w', 1)
    queue = allocation_queue.AllocationQueue(
        workers, node_allocations.NodeAllocator('w'), bound=1)
    try:
        row = node_alloc_obj.create_row(ctx, {'resource_class': 'none', 'conductor_affinity': 'w'})
        written = queue.run(ctx, row.id, 30)
        stored = node_alloc_obj.get_by_id(ctx, row.id)
        assert written == {'state': 'error', 'node_uuid': None,
                           'last_error': stored.last_error,
                           'updated_at': stored.updated_at.isoformat()}
        gate = threading.Event()
        workers.spawn(gate.wait)        # the only slot is busy: the row is queued
        other = node_alloc_obj.create_row(ctx, {'resource_class': 'none',
                                       'conductor_affinity': 'w'})
        assert queue.run(ctx, other.id, 0.01) is None
        gate.set()
        workers.wait_idle(30)
        queue.kick()                    # the re-drive's job: the work goes on
        workers.wait_idle(30)
        assert node_alloc_obj.get_by_id(ctx, other.id).state == 'error'
        not_ours = node_alloc_obj.create_row(ctx, {'resource_class': 'none',
                                          'conductor_affinity': 'x'})
        assert queue.run(ctx, not_ours.id, 30) is None
    finally:
        workers.shutdown()
