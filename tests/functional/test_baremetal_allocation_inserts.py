"""allocation_inserts: concurrent new rows in one INSERT, each caller its own answer."""

import collections
import itertools
import threading
import time

import pytest
import sqlalchemy as sa

from common import context as berth_context
from common import exception
from common.node_allocation_contract import NewAllocation
from objects.baremetal import allocation as node_alloc
from objects.baremetal import allocation_inserts


@pytest.fixture
def inserts(berth):
    """The transactions (a number each) of the INSERTs into node_allocations on ``berth``.

    Transactions, not statements: an engine may send the rows of one
    multi-row INSERT as several statements (SQLite, to keep their order).
    """
    begun, seen = itertools.count(), []

    def begin(conn):
        conn.info['txn'] = next(begun)

    def count(conn, cursor, statement, params, context, executemany):
        if statement.lstrip().upper().startswith('INSERT INTO NODE_ALLOCATIONS'):
            if conn.info['txn'] not in seen:
                seen.append(conn.info['txn'])
    sa.event.listen(berth.db.engine, 'begin', begin)
    sa.event.listen(berth.db.engine, 'before_cursor_execute', count)
    yield seen
    sa.event.remove(berth.db.engine, 'before_cursor_execute', count)
    sa.event.remove(berth.db.engine, 'begin', begin)


def _queued_behind_an_insert(db, values_list):
    """Call create for each of ``values_list`` while an insert is out; (results, errors).

    The queue is marked led (as by a caller whose insert is in flight), so
    every call queues; once all are queued that insert "ends" and the
    queue is written as the next batch, as a real follower would write it.
    """
    group = allocation_inserts._group(db)
    with group._lock:
        group._queues[None] = collections.deque()    # led: an insert is out
    results, errors = [None] * len(values_list), [None] * len(values_list)

    def call(i, values):
        try:
            results[i] = allocation_inserts.create(berth_context.admin_context(db), values,
                                                    'nobody')
        except Exception as exc:
            errors[i] = exc
    threads = [threading.Thread(target=call, args=(i, v)) for i, v in enumerate(values_list)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while group.waiting(None) < len(values_list):
        assert time.monotonic() < deadline, 'the calls never queued'
        time.sleep(0.01)
    group._lead(None)
    for thread in threads:
        thread.join(30)
    assert None not in group._queues and not group.waiting(None)
    return results, errors


def _values(name):
    return NewAllocation(name=name, resource_class='baremetal', traits=['CUSTOM_A'],
                         extra={'k': name})


def test_queued_rows_are_stored_by_one_insert_each_as_asked(berth, inserts):
    names = ['grouped-%d' % i for i in range(5)]
    results, errors = _queued_behind_an_insert(berth.db, [_values(n) for n in names])
    assert errors == [None] * 5
    assert len(inserts) == 1            # five rows, one transaction
    ctx = berth_context.admin_context(berth.db)
    assert len({r.id for r in results}) == 5
    for name, result in zip(names, results):
        stored = node_alloc.get(ctx, name)
        # each caller got its own row, as stored
        assert (stored.id, stored.uuid) == (result.id, result.uuid)
        assert stored.extra == result.extra == {'k': name}
        assert stored.traits == ['CUSTOM_A'] and stored.state == 'allocating'


def test_a_refused_row_fails_only_its_own_caller(berth, inserts):
    ctx = berth_context.admin_context(berth.db)
    taken = allocation_inserts.create(ctx, _values('taken'), 'nobody')    # alone: written at once
    assert len(inserts) == 1
    names = ['first', 'taken', 'third']
    results, errors = _queued_behind_an_insert(berth.db, [_values(n) for n in names])
    assert isinstance(errors[1], exception.AllocationDuplicateName)
    assert errors[0] is None and errors[2] is None
    assert node_alloc.get(ctx, 'first').id == results[0].id
    assert node_alloc.get(ctx, 'third').id == results[2].id
    assert node_alloc.get(ctx, 'taken').id == taken.id          # untouched
    # the batch was refused whole, then each row went alone
    assert len(inserts) == 1 + 1 + 3
