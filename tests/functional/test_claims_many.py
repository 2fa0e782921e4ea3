"""A batch of new consumers' claims written with one statement per step (allocation_batch).

Statements counted as in test_claim_statements (the same on every engine
BERTH_TEST_DB names): five for the whole batch, whatever its size.  Each
claim is still judged alone, in order, against what the claims before it
in the batch were granted, and answered its own error.
"""

import dataclasses

import pytest
import sqlalchemy as sa

from common import exception
from conductor.manager import claims as conductor_claims
from db import models
from objects.placement import allocation_batch
from objects.placement import generation as gen_obj
from tests.functional import alloc_helpers as h
from tests.functional import claim_helpers
from tests.functional.test_claim_statements import _claim, _counted, _request

_RP = models.ResourceProvider.__table__


@pytest.fixture
def rps(client, ctx):
    inv = {'VCPU': {'total': 10, 'max_unit': 10}, 'MEMORY_MB': {'total': 4096}}
    first, second = h.provider(client, ctx, inv), h.provider(client, ctx, inv)
    # the first claim of a project creates its project, user and type rows
    _claim(ctx, _request({first: {'VCPU': 1}}))
    return first, second


def _batch(ctx, *claims):
    """check_many + apply_many of ``claims`` (each one request) in one transaction."""
    with ctx.db.writer(ctx):
        outcome = allocation_batch.check_many(ctx, [[c] for c in claims])
        if outcome is None:
            return None
        plan, errors = outcome
        allocation_batch.apply_many(ctx, plan)
    return [None if e is None else type(e).__name__ for e in errors]


@pytest.mark.parametrize('count', [1, 2, 5])
def test_a_batch_of_new_consumers_costs_five_statements(client, ctx, rps, count):
    first, second = rps
    gens = h.generation(client, first), h.generation(client, second)
    claims = [_request({first: {'VCPU': 1, 'MEMORY_MB': 256}} if i % 2 else
                       {first: {'VCPU': 1}, second: {'MEMORY_MB': 128}})
              for i in range(count)]
    with _counted() as seen:
        assert _batch(ctx, *claims) == [None] * count
    assert [s.split()[0] for s in seen] == ['SELECT', 'SELECT', 'INSERT', 'INSERT',
                                            'UPDATE'], seen
    # every claim written counts on its providers' generations, as one by one
    assert (h.generation(client, first), h.generation(client, second)) == (
        gens[0] + count, gens[1] + (count + 1) // 2)
    assert claim_helpers.usage(client, first)['VCPU'] == 1 + count
    for claim in claims:
        resp = client.get('/allocations/%s' % claim.uuid)
        assert resp.json()['consumer_generation'] == 1
        assert {rp: a['resources'] for rp, a in resp.json()['allocations'].items()} == {
            rp: res for rp, res in claim.allocations.items()}


def test_each_claim_is_judged_against_the_ones_granted_before_it(client, ctx, rps):
    first, second = rps
    gen = h.generation(client, first)
    answers = _batch(ctx, _request({first: {'VCPU': 4}}), _request({first: {'VCPU': 6}}),
                     _request({first: {'VCPU': 5}}), _request({second: {'VCPU': 9}}),
                     _request({first: {'VCPU': 2}}))
    # 1 (the fixture's) + 4, then 6 does not fit, 5 does (10 of 10), 2 no longer
    assert answers == [None, 'InvalidAllocation', None, None, 'InvalidAllocation']
    assert claim_helpers.usage(client, first)['VCPU'] == 10
    assert claim_helpers.usage(client, second)['VCPU'] == 9
    assert h.generation(client, first) == gen + 2


def test_every_claim_gets_its_own_error_and_the_others_are_written(client, ctx, rps):
    first, second = rps
    missing = h.new_uuid()
    claims = [_request({first: {'VCPU': 1}}),
              _request({missing: {'VCPU': 1}}),
              _request({first: {'NOT_A_CLASS': 1}}),
              _request({first: {'DISK_GB': 1}}),              # a class without inventory
              _request({second: {'VCPU': 11}}),               # above max_unit
              _request({second: {'VCPU': 1}}, generation=3),  # new, yet a generation
              _request({second: {'VCPU': 2}})]
    answers = _batch(ctx, *claims)
    assert answers == [None, 'AllocationProviderNotFound', 'AllocationClassNotFound',
                       'InvalidAllocation', 'InvalidAllocation',
                       'ConsumerGenerationConflict', None]
    assert claim_helpers.usage(client, first)['VCPU'] == 2
    assert claim_helpers.usage(client, second)['VCPU'] == 2
    for i in range(1, 6):
        assert client.get('/allocations/%s' % claims[i].uuid).json()[
            'allocations'] == {}


def test_the_errors_name_what_a_claim_alone_would(ctx, rps):
    first, _ = rps
    with ctx.db.writer(ctx):
        plan, errors = allocation_batch.check_many(ctx, [
            [_request({first: {'VCPU': 1}})],
            [_request({first: {'NOT_A_CLASS': 1}}, uuid='c0ffee00-0000-4000-8000-000000000000')]])
    assert errors[0] is None
    assert 'NOT_A_CLASS' in str(errors[1])
    assert 'c0ffee00-0000-4000-8000-000000000000' in str(errors[1])


def test_a_new_project_and_user_are_created_on_the_way(client, ctx, rps):
    first, second = rps
    claims = [_request({first: {'VCPU': 1}}), _request({second: {'VCPU': 1}})]
    claims[1] = dataclasses.replace(claims[1], project_id='new-project', user_id='new-user',
                                    consumer_type=None)
    assert _batch(ctx, *claims) == [None, None]
    resp = client.get('/allocations/%s' % claims[1].uuid)
    assert (resp.json()['project_id'], resp.json()['user_id']) == ('new-project',
                                                                   'new-user')
    assert resp.json()['consumer_generation'] == 1


@pytest.mark.parametrize('case', ['existing', 'twice', 'cleared'])
def test_batches_it_cannot_write_are_left_to_the_claim_by_claim_path(ctx, rps, case):
    first, _ = rps
    existing = h.new_uuid()
    _claim(ctx, _request({first: {'VCPU': 1}}, uuid=existing))
    claims = {'existing': [_request({first: {'VCPU': 1}}),
                           _request({first: {'VCPU': 1}}, uuid=existing, generation=1)],
              'twice': [_request({first: {'VCPU': 1}}, uuid=h.new_uuid().replace('a', 'b'))]
              * 2,
              'cleared': [_request({first: {'VCPU': 1}}), _request({}, uuid=existing)]}[case]
    with _counted() as seen:
        assert _batch(ctx, *claims) is None
    # nothing written; at most the lock was taken (and counted the consumers)
    assert len(seen) <= 1, seen


def test_a_swap_lost_after_the_checks_fails_the_batch_as_a_whole(client, ctx, rps):
    first, _ = rps
    gen = h.generation(client, first)
    claims = [_request({first: {'VCPU': 1}}), _request({first: {'VCPU': 1}})]
    with pytest.raises(exception.ConcurrentUpdate):
        with ctx.db.writer(ctx):
            plan, errors = allocation_batch.check_many(ctx, [[c] for c in claims])
            # another writer's swap (here, in the same transaction)
            ctx.session.execute(_RP.update().where(_RP.c.uuid == first)
                                .values(generation=_RP.c.generation + 1))
            allocation_batch.apply_many(ctx, plan)
    assert h.generation(client, first) == gen
    assert claim_helpers.usage(client, first)['VCPU'] == 1


def test_a_consumer_created_meanwhile_fails_the_batch_as_a_whole(client, ctx, rps):
    first, _ = rps
    claims = [_request({first: {'VCPU': 1}}), _request({first: {'VCPU': 1}})]
    with pytest.raises(exception.ConcurrentUpdate):
        with ctx.db.writer(ctx):
            plan, errors = allocation_batch.check_many(ctx, [[c] for c in claims])
            # another writer's consumer of the same uuid (here, in this transaction)
            _claim(ctx, _request({first: {'VCPU': 1}}, uuid=claims[1].uuid))
            allocation_batch.apply_many(ctx, plan)
    assert claim_helpers.usage(client, first)['VCPU'] == 1
    assert client.get('/allocations/%s' % claims[1].uuid).json()['allocations'] == {}


def test_claim_many_answers_each_claim_through_the_conductor(berth, client, ctx, rps):
    first, second = rps
    claims = conductor_claims.Claims(berth.conf)
    batch = [(first, [_request({first: {'VCPU': 3}})]),
             (second, [_request({second: {'VCPU': 4}})]),
             (first, [_request({first: {'VCPU': 7}})]),
             (first, [_request({first: {'VCPU': 6}})])]
    with _counted() as seen:
        answers = claims.claim_many(ctx, batch)
    assert [None if e is None else type(e).__name__ for e in answers] == [
        None, None, 'InvalidAllocation', None]
    assert len(seen) == 5, seen
    assert claim_helpers.usage(client, first)['VCPU'] == 10
    assert claim_helpers.usage(client, second)['VCPU'] == 4


@pytest.mark.parametrize('stale', [0, 1])
def test_a_swap_by_several_names_the_provider_that_moved(ctx, rps, stale):
    with ctx.db.reader(ctx):
        rows = [gen_obj.provider_by_uuid(ctx, rp) for rp in rps]
    expected = {r.id: r.generation for r in rows}
    by = {rows[0].id: 3, rows[1].id: 1}
    wrong = dict(expected)
    wrong[rows[stale].id] += 5
    with pytest.raises(exception.ConcurrentUpdate) as err:
        with ctx.db.writer(ctx):
            gen_obj.bump_providers(ctx, wrong, by=by)
    assert 'expected %d' % wrong[rows[stale].id] in str(err.value)
    with ctx.db.writer(ctx):
        gen_obj.bump_providers(ctx, expected, by=by)
        now = dict(ctx.session.execute(sa.select(_RP.c.id, _RP.c.generation).where(
            _RP.c.id.in_(list(expected)))).all())
    assert now == {rp_id: g + by[rp_id] for rp_id, g in expected.items()}


def test_a_call_s_claims_without_a_tree_are_routed_with_one_read(client, ctx, rps):
    """claim_routing = process leaves cold trees to the conductor: one read per call."""
    from conductor.manager import claim_many
    from conductor.rpcapi import routing
    first, second = rps
    child = h.new_uuid()
    resp = client.post('/resource_providers', version='1.14', json={
        'name': 'child-' + child, 'uuid': child, 'parent_provider_uuid': second})
    assert resp.status_code == 201, resp.text
    assert objects_roots(ctx, [first, child, 'no-such-rp']) == {
        first: first, child: second}
    cache = routing.RootCache()
    with _counted() as seen:
        cache.warm(ctx, [{first}, {child}, set()])
    assert len(seen) == 1, seen
    assert (cache.cached({first}), cache.cached({child})) == (first, second)

    written = []

    class Manager:
        _max_bytes = 1 << 20

        class authz:
            @staticmethod
            def claim_resources(ctx, consumers):
                return None

        class claims:
            @staticmethod
            def claim_many(ctx, todo):
                written.extend(tree for tree, _ in todo)
                return [None] * len(todo)
    claims = [{'tree': None, 'consumers': [_request({rp: {'VCPU': 1}}).to_primitive()]}
              for rp in (first, child)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(routing, 'ROOTS', routing.RootCache())
        with _counted() as seen:
            assert claim_many.run(Manager, ctx, claims) == [None, None]
    assert written == [first, second]
    assert len(seen) == 1, seen


def objects_roots(ctx, uuids):
    from objects.placement import allocation
    return allocation.routing_roots(ctx, uuids)


def _consumer_inserts(ctx, claims):
    """The consumer INSERTs (whole SQL text) a batch of ``claims`` sends."""
    texts = []

    def on_sql(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith('INSERT INTO CONSUMERS'):
            texts.append(statement)

    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', on_sql)
    try:
        assert _batch(ctx, *claims) == [None] * len(claims)
    finally:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', on_sql)
    return texts


def test_new_consumers_of_any_batch_size_share_one_insert_on_postgresql(client, ctx, rps):
    """PostgreSQL: one INSERT from arrays (unnest), the same SQL for 1, 2 or 20 consumers.

    Elsewhere: one INSERT per 16 consumers, with as many rows per form.
    """
    _, second = rps
    texts = {}
    for count in (1, 2, 20):
        claims = [_request({second: {'MEMORY_MB': 128}}) for _ in range(count)]
        # one of each kind when there are two
        claims[-1] = dataclasses.replace(claims[-1], consumer_type=None)
        texts[count] = _consumer_inserts(ctx, claims)
        for claim in claims:
            resp = client.get('/allocations/%s' % claim.uuid)
            assert resp.json()['consumer_generation'] == 1
            assert (resp.json()['project_id'], resp.json()['user_id']) == ('p1', 'u1')
    if ctx.db.engine.dialect.name == 'postgresql':
        assert [len(texts[n]) for n in (1, 2, 20)] == [1, 2, 2]
        assert 'unnest' in texts[1][0]
        assert texts[20][0] == texts[2][0] and texts[20][1] == texts[2][1], texts
        assert len({*texts[1], *texts[2]}) == 2      # with a type, and without
    else:
        assert [len(texts[n]) for n in (1, 2, 20)] == [1, 2, 3]
    assert claim_helpers.usage(client, second)['MEMORY_MB'] == 128 * 23


def test_new_owner_rows_in_a_large_batch_fall_back_one_by_one(client, ctx, rps):
    """A consumer whose project is new is left out by the set-wise INSERT, then created."""
    _, second = rps
    claims = [_request({second: {'MEMORY_MB': 128}}) for _ in range(18)]
    claims[7] = dataclasses.replace(claims[7], project_id='p-new-in-batch')
    assert _batch(ctx, *claims) == [None] * 18
    for claim in claims:
        resp = client.get('/allocations/%s' % claim.uuid)
        assert resp.json()['project_id'] == claim.project_id
        assert resp.json()['consumer_generation'] == 1
