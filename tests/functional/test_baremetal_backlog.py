"""A busy conductor queues its allocations boundedly and re-drives what overflowed."""

import concurrent.futures
import threading

import pytest

from conductor import workers as workers_mod
from conductor.manager import allocation_queue, node_allocations
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import node as node_obj
from tests.functional import baremetal_helpers as h

HOST = 'busy-host'


@pytest.fixture
def conf(conf):
    # the embedded conductor must not take the rows of HOST over meanwhile,
    # and nothing but the queue may finish a refused cast
    conf.set_override('orphan_check_interval', 0, group='allocation')
    conf.set_override('sweep_interval', 0, group='allocation')
    conf.set_override('workers', 1, group='conductor')
    return conf


def _nodes(ctx, count):
    for i in range(count):
        node_obj.create(ctx, {'driver': 'fake-hardware', 'name': 'b%d' % i,
                              'resource_class': 'gold',
                              'provision_state': node_obj.AVAILABLE,
                              'power_state': node_obj.POWER_OFF})


def _rows(ctx, count, host=HOST):
    return [node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': host})
            for _ in range(count)]


def _state(ctx, row):
    return node_alloc_obj.get_by_id(ctx, row.id).state


@pytest.fixture
def busy(ctx):
    """A queue over one worker slot, held until the test lets it go."""
    workers = workers_mod.Workers(HOST, 1)
    queue = allocation_queue.AllocationQueue(
        workers, node_allocations.NodeAllocator(HOST), bound=2)
    gate = threading.Event()
    workers.spawn(gate.wait)
    yield queue, workers, gate
    gate.set()
    workers.wait_idle(30)
    workers.shutdown()


def test_refused_work_is_queued_then_drained_by_the_worker(ctx, busy):
    queue, workers, gate = busy
    _nodes(ctx, 3)
    rows = _rows(ctx, 3)
    outcomes = [queue.submit(ctx, r.id) for r in rows]
    assert outcomes == ['queued', 'queued', 'left']
    assert queue.submit(ctx, rows[0].id) == 'held'   # never twice
    assert queue.waiting == 2
    gate.set()
    assert workers.wait_idle(30)
    assert queue.kick() == 1   # the slot was freed by other work: one drainer
    assert workers.wait_idle(30)
    assert [_state(ctx, r) for r in rows] == ['active', 'active', 'allocating']
    assert queue.waiting == 0
    # the overflow is ours and waits in the database: the re-drive takes it
    assert queue.redrive(ctx, min_age=0) == 1
    assert workers.wait_idle(30)
    assert _state(ctx, rows[2]) == 'active'
    assert queue.redrive(ctx, min_age=0) == 0


def test_redrive_leaves_fresh_rows_and_other_hosts_alone(ctx, busy):
    queue, workers, gate = busy
    _nodes(ctx, 2)
    mine = _rows(ctx, 1)[0]
    theirs = _rows(ctx, 1, host='other-host')[0]
    assert queue.redrive(ctx, min_age=3600) == 0      # fresh: its cast may be running
    assert queue.waiting == 0
    assert queue.redrive(ctx, min_age=0) == 1
    assert queue.redrive(ctx, min_age=0) == 0          # already queued here
    gate.set()
    assert workers.wait_idle(30)
    queue.kick()
    assert workers.wait_idle(30)
    assert _state(ctx, mine) == 'active'
    assert _state(ctx, theirs) == 'allocating'


def test_a_row_it_never_saw_is_left_to_its_api_until_the_send_window_passed(ctx, busy):
    """Only a row whose message came (and found the backlog full) is re-driven early.

    A row this conductor never heard of may still be on its way from an API
    process that cannot reach the broker; that process deletes it and
    answers 503 when it gives up, so driving it first would make an
    allocation its client was told does not exist (mutation: redrive
    ignoring ``unseen_age`` makes the first assertion fail).
    """
    queue, workers, gate = busy
    queue.unseen_age = 3600
    _nodes(ctx, 4)
    rows = _rows(ctx, 3)
    assert [queue.submit(ctx, r.id) for r in rows[:2]] == ['queued', 'queued']
    unseen = _rows(ctx, 1)[0]
    assert queue.redrive(ctx, min_age=0) == 0          # never seen: not yet
    assert queue.submit(ctx, rows[2].id) == 'left'     # its message came: full
    gate.set()
    assert workers.wait_idle(30)
    queue.kick()
    assert workers.wait_idle(30)
    assert queue.redrive(ctx, min_age=0) == 1          # the refused one only
    assert workers.wait_idle(30)
    assert _state(ctx, rows[2]) == 'active'
    assert _state(ctx, unseen) == 'allocating'
    assert queue.redrive(ctx, min_age=0, unseen_age=0) == 1   # window passed
    assert workers.wait_idle(30)
    assert _state(ctx, unseen) == 'active'


def test_a_burst_on_a_small_conductor_all_settles(ctx):
    """More allocations than slots plus backlog: all end active once re-driven."""
    workers = workers_mod.Workers(HOST, 2)
    queue = allocation_queue.AllocationQueue(
        workers, node_allocations.NodeAllocator(HOST), bound=3)
    try:
        _nodes(ctx, 12)
        rows = _rows(ctx, 12)
        outcomes = [queue.submit(ctx, r.id) for r in rows]
        assert set(outcomes) <= {'started', 'queued', 'left'}
        while any(_state(ctx, r) == 'allocating' for r in rows):
            assert workers.wait_idle(30)
            queue.redrive(ctx, min_age=0)
        assert workers.wait_idle(30)
        assert {_state(ctx, r) for r in rows} == {'active'}
        held = [n.instance_uuid for n in node_obj.list_nodes(ctx)]
        assert sorted(held) == sorted(r.uuid for r in rows)
    finally:
        workers.shutdown()


def test_a_burst_over_http_on_one_worker_settles_without_the_sweep(bm, ctx):
    """One worker slot, no stale sweep: every cast still ends active or error."""
    _nodes(ctx, 8)
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        allocs = list(pool.map(lambda _: h.allocate(bm, resource_class='gold'),
                               range(10)))
    states = sorted(a['state'] for a in allocs)
    assert states == ['active'] * 8 + ['error'] * 2
    assert len({a['node_uuid'] for a in allocs if a['node_uuid']}) == 8
