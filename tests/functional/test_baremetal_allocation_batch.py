"""create_allocations (RPC 1.5): several allocations in one call, each decided on its own."""

import concurrent.futures
import threading
import time

from oslo_db import exception as db_exc

from common import exception
from conductor import workers as workers_mod
from conductor.manager import allocation_queue, node_allocations
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import node as node_obj
from objects.baremetal import reservation as node_reservation
from tests.functional import baremetal_helpers as h


def _nodes(ctx, count, prefix='m'):
    return [node_obj.create(ctx, {'driver': 'fake-hardware', 'name': '%s%d' % (prefix, i),
                                  'resource_class': 'gold',
                                  'provision_state': node_obj.AVAILABLE,
                                  'power_state': node_obj.POWER_OFF})
            for i in range(count)]


def _queue(host, size=4):
    workers = workers_mod.Workers(host, size)
    return workers, allocation_queue.AllocationQueue(
        workers, node_allocations.NodeAllocator(host), bound=16)


def test_a_refusal_after_writes_sends_every_row_alone_with_the_same_outcomes(
        ctx, monkeypatch):
    """No savepoints: a row refused once it wrote (a unique constraint) rolls
    the shared pass back, and every row is then decided alone."""
    _nodes(ctx, 3)
    workers, queue = _queue('batch-a')
    try:
        rows = [node_alloc_obj.create_row(ctx, {'resource_class': rc,
                                                'conductor_affinity': 'batch-a'})
                for rc in ('gold', 'none', 'gold')]
        # named: it goes alone (reservation._reserve_row) on every database,
        # where two like the others would share a pick on PostgreSQL
        rows.append(node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'name': 'm2',
                                           'conductor_affinity': 'batch-a'}))
        broken = rows[3].id
        original = node_reservation._reserve_row

        def reserve(ctx, alloc, host):
            result = original(ctx, alloc, host)
            if alloc.id == broken:   # written, then refused: the whole pass rolls back
                raise exception.NodeAssociated(node='n', instance='another allocation')
            return result
        monkeypatch.setattr(node_reservation, '_reserve_row', reserve)
        alone = []
        one = node_reservation.reserve
        monkeypatch.setattr(node_reservation, 'reserve',
                            lambda ctx, alloc_id, *a: alone.append(alloc_id) or one(
                                ctx, alloc_id, *a))
        results = queue.run_many(ctx, [r.id for r in rows], 30)
        assert alone == [r.id for r in rows]
        # alone, the broken row's first pass fails again and it goes node by node
        assert [r['state'] for r in results] == ['active', 'error', 'active', 'active']
        stored = [node_alloc_obj.get_by_id(ctx, r.id) for r in rows]
        assert [s.state for s in stored] == [r['state'] for r in results]
        assert results[1]['last_error'] == stored[1].last_error
        assert len({stored[i].node_id for i in (0, 2, 3)}) == 3
        nodes = node_obj.list_nodes(ctx)
        assert all(n.reservation is None for n in nodes)
    finally:
        workers.shutdown()


def test_a_row_gone_before_the_shared_pass_spoils_nothing(ctx, monkeypatch):
    _nodes(ctx, 3)
    workers, queue = _queue('batch-c')
    try:
        rows = [node_alloc_obj.create_row(ctx, {'resource_class': 'gold',
                                       'conductor_affinity': 'batch-c'}) for _ in range(3)]
        assert node_alloc_obj.delete_unstarted(ctx, rows[1].id)
        alone = []
        monkeypatch.setattr(node_reservation, 'reserve', lambda *a: alone.append(a))
        results = queue.run_many(ctx, [r.id for r in rows], 30)
        assert alone == []          # nothing goes alone: the gone row is answered
        assert results[1] is None
        assert [results[i]['state'] for i in (0, 2)] == ['active', 'active']
    finally:
        workers.shutdown()


def test_a_shared_first_pass_that_fails_goes_row_by_row(ctx, monkeypatch):
    _nodes(ctx, 2)
    workers, queue = _queue('batch-b')
    try:
        rows = [node_alloc_obj.create_row(ctx, {'resource_class': 'gold',
                                       'conductor_affinity': 'batch-b'}) for _ in range(3)]

        def fail(*args):
            raise db_exc.DBError('connection lost')
        monkeypatch.setattr(node_reservation, 'reserve_many', fail)
        results = queue.run_many(ctx, [r.id for r in rows], 30)
        assert sorted(r['state'] for r in results) == ['active', 'active', 'error']
        stored = [node_alloc_obj.get_by_id(ctx, r.id) for r in rows]
        assert [s.state for s in stored] == [r['state'] for r in results]
    finally:
        workers.shutdown()


def test_two_batches_racing_for_the_last_nodes(ctx):
    """Two conductors' batches want 8 allocations between them; 5 nodes exist."""
    _nodes(ctx, 5)
    pools = [_queue('race-a'), _queue('race-b')]
    try:
        batches = [[node_alloc_obj.create_row(ctx, {'resource_class': 'gold',
                                           'conductor_affinity': host}).id
                    for _ in range(4)] for host in ('race-a', 'race-b')]
        start = threading.Barrier(2)

        def run(i):
            start.wait(30)
            return pools[i][1].run_many(ctx, batches[i], 30)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            results = list(pool.map(run, range(2)))
        flat = results[0] + results[1]
        assert sorted(r['state'] for r in flat) == ['active'] * 5 + ['error'] * 3
        stored = [node_alloc_obj.get_by_id(ctx, i) for b in batches for i in b]
        assert [s.state for s in stored] == [r['state'] for r in flat]
        held = [s.node_id for s in stored if s.state == 'active']
        assert len(set(held)) == 5
        nodes = node_obj.list_nodes(ctx)
        assert all(n.reservation is None for n in nodes)
        assert sorted(n.instance_uuid is not None for n in nodes) == [True] * 5
    finally:
        for workers, _ in pools:
            workers.shutdown()


def test_a_batch_waits_no_longer_than_its_wait(ctx):
    workers, queue = _queue('slow', size=1)
    gate = threading.Event()
    try:
        workers.spawn(gate.wait)       # the only slot is busy: everything queues
        rows = [node_alloc_obj.create_row(ctx, {'resource_class': 'none',
                                       'conductor_affinity': 'slow'}) for _ in range(3)]
        assert queue.run_many(ctx, [r.id for r in rows], 0.01) == [None] * 3
        gate.set()
        workers.wait_idle(30)
        queue.kick()
        workers.wait_idle(30)
        assert {node_alloc_obj.get_by_id(ctx, r.id).state for r in rows} == {'error'}
    finally:
        gate.set()
        workers.shutdown()


def test_concurrent_posts_over_http_each_get_their_outcome(bm):
    nodes = {h.make_node(bm, 'p%d' % i)['uuid'] for i in range(6)}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(
            lambda _: bm.post('/v1/allocations', json={'resource_class': 'gold'},
                              headers={'Berth-Allocation-Wait': '60'}),
            range(8)))
    assert all(a.status_code == 201 for a in answers), [a.text for a in answers]
    done = [h.wait_allocation(bm, a.json()['uuid']) for a in answers]
    assert sorted(d['state'] for d in done) == ['active'] * 6 + ['error'] * 2
    assert {d['node_uuid'] for d in done if d['state'] == 'active'} == nodes
    for answer, final in zip(answers, done):
        if answer.json()['state'] != 'allocating':
            assert answer.json()['state'] == final['state']


def test_calls_arriving_during_a_first_pass_share_the_next_one(ctx, monkeypatch):
    """conductor/manager/first_passes.py: the first call goes at once; two that
    arrive while its first pass runs go together in one transaction next."""
    _nodes(ctx, 6)
    workers, queue = _queue('merge', size=4)
    passes, running, release = [], threading.Event(), threading.Event()
    original = node_reservation.reserve_many

    def reserve_many(ctx, alloc_ids, host):
        passes.append(list(alloc_ids))
        if len(passes) == 1:
            running.set()
            assert release.wait(60)
        return original(ctx, alloc_ids, host)
    monkeypatch.setattr(node_reservation, 'reserve_many', reserve_many)
    try:
        calls = [[node_alloc_obj.create_row(ctx, {'resource_class': 'gold',
                                         'conductor_affinity': 'merge'}).id
                  for _ in range(n)] for n in (2, 1, 2)]
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            first = pool.submit(queue.run_many, ctx, calls[0], 60)
            assert running.wait(60)
            later = [pool.submit(queue.run_many, ctx, ids, 60) for ids in calls[1:]]
            group = queue.allocator._first_passes._queue
            deadline = time.monotonic() + 60
            while group.waiting(None) < 2:      # both queued behind the first pass
                assert time.monotonic() < deadline
                time.sleep(0.01)
            release.set()
            results = [first.result(60)] + [f.result(60) for f in later]
        assert passes[0] == calls[0]
        assert sorted(map(sorted, passes[1:])) == [sorted(calls[1] + calls[2])]
        assert [[r['state'] for r in rs] for rs in results] == [
            ['active'] * 2, ['active'], ['active'] * 2]
        stored = [node_alloc_obj.get_by_id(ctx, i) for ids in calls for i in ids]
        assert len({s.node_id for s in stored}) == 5
        assert all(s.state == 'active' for s in stored)
    finally:
        release.set()
        workers.shutdown()
