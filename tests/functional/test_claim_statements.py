"""The SQL statements a claim sends, counted: what the write path costs per claim.

Statements are counted with SQLAlchemy's ``before_cursor_execute`` on the
test's own thread (BEGIN/SAVEPOINT/RELEASE left out: SQLite alone sends
BEGIN as a statement).  A new consumer on one provider, or on two (a
sharing provider), costs five: the provider lock (which also counts the
consumers that exist), inventory with usage, the consumer INSERT, the
allocation INSERT and one compare-and-swap UPDATE for all providers.
Rewriting an existing consumer costs 8 (its current allocations are read
with the inventory, not by a statement of their own).
"""

import contextlib
import threading

import pytest
import sqlalchemy as sa

from common import exception
from common.claim_contract import ClaimConsumer
from objects.placement import allocation as alloc_obj
from objects.placement import generation as gen_obj
from tests.functional import alloc_helpers as h
from tests.functional import claim_helpers

INV = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}, 'DISK_GB': {'total': 100}}
_NOT_COUNTED = ('BEGIN', 'SAVEPOINT', 'RELEASE', 'ROLLBACK', 'COMMIT')


@contextlib.contextmanager
def _counted():
    seen = []
    me = threading.get_ident()

    def on_sql(conn, cursor, statement, parameters, context, executemany):
        text = statement.lstrip()
        if threading.get_ident() == me and not text.upper().startswith(_NOT_COUNTED):
            seen.append(' '.join(text.split()[:3]))

    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', on_sql)
    try:
        yield seen
    finally:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', on_sql)


def _request(allocations, uuid=None, generation=None, check=True):
    return ClaimConsumer(uuid or h.new_uuid(), allocations, 'p1', 'u1', 'INSTANCE',
                         check_generation=check, generation=generation)


def _claim(ctx, *requests):
    with ctx.db.writer(ctx):
        alloc_obj.apply_replace(ctx, alloc_obj.check_replace(ctx, list(requests)))


@pytest.fixture
def rps(client, ctx):
    first, second = h.provider(client, ctx, INV), h.provider(client, ctx, INV)
    # the first claim of a project creates its project, user and type rows
    _claim(ctx, _request({first: {'VCPU': 1}}))
    return first, second


def test_new_consumer_on_one_provider_costs_five_statements(client, ctx, rps):
    rp, _ = rps
    with _counted() as seen:
        _claim(ctx, _request({rp: {'VCPU': 1, 'MEMORY_MB': 256}}))
    assert [s.split()[0] for s in seen] == ['SELECT', 'SELECT', 'INSERT', 'INSERT',
                                            'UPDATE'], seen
    assert h.generation(client, rp) == 3       # inventory, first claim, this one


def test_new_consumer_on_two_providers_costs_five_statements(client, ctx, rps):
    first, second = rps
    with _counted() as seen:
        _claim(ctx, _request({first: {'VCPU': 1}, second: {'DISK_GB': 10}}))
    assert len(seen) == 5, seen
    assert (h.generation(client, first), h.generation(client, second)) == (3, 2)


def test_counted_lock_sees_a_consumer_written_earlier_in_the_transaction(ctx, rps):
    """Within one transaction (a batch) a later claim sees an earlier one's consumer."""
    rp, _ = rps
    consumer = h.new_uuid()
    with pytest.raises(exception.ConsumerGenerationConflict) as err:
        with ctx.db.writer(ctx):
            _claim(ctx, _request({rp: {'VCPU': 1}}, uuid=consumer))
            alloc_obj.check_replace(ctx, [_request({rp: {'VCPU': 2}}, uuid=consumer)])
    assert 'expected 1 but got null (consumer %s)' % consumer in str(err.value)


def test_generation_conflict_comes_before_an_unknown_provider(ctx, rps):
    rp, _ = rps
    consumer = h.new_uuid()
    _claim(ctx, _request({rp: {'VCPU': 1}}, uuid=consumer))
    with pytest.raises(exception.ConsumerGenerationConflict):
        _claim(ctx, _request({h.new_uuid(): {'VCPU': 1}}, uuid=consumer))
    with pytest.raises(exception.AllocationProviderNotFound):
        _claim(ctx, _request({h.new_uuid(): {'VCPU': 1}}, uuid=consumer, generation=1))


def test_rewriting_an_existing_consumer_still_checks_capacity(client, ctx, rps):
    rp, _ = rps
    consumer = h.new_uuid()
    _claim(ctx, _request({rp: {'VCPU': 4}}, uuid=consumer))
    # its own 4 VCPU are replaced, not added to: 1 + 7 of 8 fit
    with _counted() as seen:
        _claim(ctx, _request({rp: {'VCPU': 7}}, uuid=consumer, generation=1))
    # lock, consumer, inventory with usage and its own, owner ids, consumer
    # UPDATE, DELETE, INSERT, swap
    assert len(seen) == 8, seen
    with pytest.raises(exception.InvalidAllocation):
        _claim(ctx, _request({rp: {'VCPU': 8}}, uuid=consumer, generation=2))
    _claim(ctx, _request({rp: {'VCPU': 6}}, uuid=consumer, generation=2))
    assert claim_helpers.usage(client, rp)['VCPU'] == 7


def _generations(ctx, *rps):
    with ctx.db.reader(ctx):
        return tuple(gen_obj.provider_by_uuid(ctx, rp).generation for rp in rps)


@pytest.mark.parametrize('stale', [0, 1])
def test_swap_of_several_providers_names_the_one_that_moved(ctx, rps, stale):
    ids, expected = [], {}
    with ctx.db.reader(ctx):
        for rp in rps:
            row = gen_obj.provider_by_uuid(ctx, rp)
            ids.append(row.id)
            expected[row.id] = row.generation
    before = _generations(ctx, *rps)
    wrong = dict(expected)
    wrong[ids[stale]] += 5
    with pytest.raises(exception.ConcurrentUpdate) as err:
        with ctx.db.writer(ctx):
            gen_obj.bump_providers(ctx, wrong)
    assert 'expected %d' % wrong[ids[stale]] in str(err.value)
    assert _generations(ctx, *rps) == before        # nothing swapped
    with ctx.db.writer(ctx):
        gen_obj.bump_providers(ctx, expected)
    assert _generations(ctx, *rps) == tuple(g + 1 for g in before)
