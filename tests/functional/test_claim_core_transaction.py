"""A conductor's claims run in a Core transaction (no ORM Session) and keep every rule.

Without a ``[quota]`` check the group commit opens its transactions on a
SQLAlchemy Core connection (db.api.Database.core_writer).  These tests
guard what that lighter transaction must still do: commit what a claim
wrote, roll everything back when the provider generation swap fails after
the rows were written, retry a deadlock victim as a whole with its first
attempt undone, and let the functions a claim calls join it (reading its
own uncommitted rows) instead of opening a transaction of their own.
"""

import contextlib
import threading

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from common import exception
from common.claim_contract import ClaimConsumer
from conductor.manager import claims as conductor_claims
from db import api as db_api
from objects.placement import allocation as alloc_obj
from objects.placement import consumer as consumer_obj
from tests.functional import alloc_helpers as h


def _request(rp, vcpu, uuid=None):
    return ClaimConsumer(uuid or h.new_uuid(), {rp: {'VCPU': vcpu}}, 'p1', 'u1',
                         check_generation=True)


@pytest.fixture
def rp(client, ctx):
    return h.provider(client, ctx, {'VCPU': {'total': 10, 'max_unit': 10}})


@contextlib.contextmanager
def _sessions_begun():
    """The ORM Sessions that begin (even one never used) on this thread meanwhile."""
    begun = []
    me = threading.get_ident()

    def on_begin(session, transaction):
        if threading.get_ident() == me:
            begun.append(session)

    sa.event.listen(orm.Session, 'after_transaction_create', on_begin)
    try:
        yield begun
    finally:
        sa.event.remove(orm.Session, 'after_transaction_create', on_begin)


def test_a_conductors_claim_commits_without_an_orm_session(berth, ctx, rp, client):
    claims = conductor_claims.Claims(berth.conf)
    gen = h.generation(client, rp)
    with _sessions_begun() as begun:
        claims.claim_resources(ctx, rp, [_request(rp, 3)])
        claims.claim_many(ctx, [(rp, [_request(rp, 2)]), (rp, [_request(rp, 1)])])
    assert begun == []
    assert h.vcpu_used(ctx, rp) == 6
    assert h.generation(client, rp) == gen + 3


def test_a_lost_swap_after_the_writes_rolls_the_core_transaction_back(
        berth, ctx, rp, client):
    gen = h.generation(client, rp)
    request = _request(rp, 4)
    with pytest.raises(exception.ConcurrentUpdate):
        with ctx.db.core_writer(ctx):
            plan = alloc_obj.check_replace(ctx, [request])
            row = plan.providers[rp]
            # as if another writer had bumped the provider since it was read
            plan.providers[rp] = _Stale(row.id, row.uuid, row.generation - 1)
            alloc_obj.apply_replace(ctx, plan)
    assert consumer_obj.get_by_uuids(ctx, [request.uuid]) == {}
    assert h.vcpu_used(ctx, rp) == 0
    assert h.generation(client, rp) == gen


class _Stale:
    """A provider row as read before another writer's swap."""

    def __init__(self, id, uuid, generation):
        self.id, self.uuid, self.generation = id, uuid, generation


def test_a_deadlock_victim_is_retried_whole_with_its_first_attempt_undone(
        berth, ctx, rp, client):
    gen = h.generation(client, rp)
    request = _request(rp, 5)
    attempts = []

    @db_api.core_writer
    def write(ctx):
        alloc_obj.apply_replace(ctx, alloc_obj.check_replace(ctx, [request]))
        attempts.append(1)
        if len(attempts) == 1:
            raise db_exc.DBDeadlock()

    write(ctx)
    assert len(attempts) == 2
    # the second attempt saw a new consumer: the first one's rows were rolled back
    assert h.vcpu_used(ctx, rp) == 5
    assert consumer_obj.get_by_uuids(ctx, [request.uuid])[request.uuid].generation == 1
    assert h.generation(client, rp) == gen + 1


def test_functions_called_in_a_core_transaction_join_it(berth, ctx, rp):
    request = _request(rp, 2)

    class Undo(Exception):
        pass

    with _sessions_begun() as begun, pytest.raises(Undo):
        with ctx.db.core_writer(ctx) as conn:
            alloc_obj.replace(ctx, [request])       # a writer function: joins
            seen = consumer_obj.get_by_uuids(ctx, [request.uuid])   # a reader: joins
            assert db_api.connection(ctx) is conn
            assert list(seen) == [request.uuid]
            raise Undo()
    assert begun == []
    # joined, not committed on their own: the rollback took their writes too
    assert consumer_obj.get_by_uuids(ctx, [request.uuid]) == {}
    assert h.vcpu_used(ctx, rp) == 0


def test_a_conductors_routing_read_answers_roots_without_an_orm_session(ctx, client, rp):
    child = h.new_uuid()
    resp = client.post('/resource_providers', version='1.14',
                       json={'name': 'child-' + child, 'uuid': child, 'parent_provider_uuid': rp})
    assert resp.status_code == 201, resp.text
    unknown = h.new_uuid()
    with _sessions_begun() as begun:
        roots = alloc_obj.routing_roots(ctx, [child, rp, unknown])
    assert begun == []
    assert roots == {child: rp, rp: rp}
