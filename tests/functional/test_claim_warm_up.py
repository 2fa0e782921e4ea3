"""A conductor's start-up warm-up (conductor/warm_up.py): its first claims compile less.

Compilation is observed through SQLAlchemy's own cache statistics
(``context.cache_hit``) on a Database of its own (a fresh engine, so a
fresh compiled cache): after the warm-up the claim path's reads and its
consumer INSERT and generation swaps come from the cache, for a claim
alone and for batches of 1, 3 and 20 new consumers on PostgreSQL (one form
each whatever the size) and of one claim elsewhere.  Only the allocation
INSERT, which the warm-up cannot run without writing a row, may compile.
"""

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import interfaces

from common import context as berth_context
from conductor import warm_up
from conductor.rpcapi import routing
from db import api as db_api
from objects.placement import allocation as alloc_obj
from objects.placement import allocation_batch
from tests.functional import alloc_helpers as h
from tests.functional.test_claim_statements import _request

INV = {'VCPU': {'total': 64}, 'MEMORY_MB': {'total': 65536}}
NOT_WARMED = ('INSERT INTO allocations',)


@pytest.fixture
def fresh_db(berth):
    db = db_api.Database(berth.db.url)
    yield db
    db.dispose()


def _compiled(db, work):
    """The statements ``work()`` compiled on ``db`` (first three words each)."""
    missed = []

    def on_sql(conn, cursor, statement, parameters, context, executemany):
        if (conn.engine is db.engine
                and context.cache_hit is interfaces.CacheStats.CACHE_MISS):
            missed.append(' '.join(statement.split()[:3]))

    sa.event.listen(sa.engine.Engine, 'after_cursor_execute', on_sql)
    try:
        work()
    finally:
        sa.event.remove(sa.engine.Engine, 'after_cursor_execute', on_sql)
    return missed


def _claims(ctx, rp, sizes):
    def work():
        with ctx.db.core_writer(ctx):
            alloc_obj.apply_replace(ctx, alloc_obj.check_replace(
                ctx, [_request({rp: {'VCPU': 1}})]))
        for size in sizes:
            with ctx.db.core_writer(ctx):
                plan, errors = allocation_batch.check_many(
                    ctx, [[_request({rp: {'MEMORY_MB': 128}})] for _ in range(size)])
                assert errors == [None] * size
                allocation_batch.apply_many(ctx, plan)
    return work


def test_after_the_warm_up_a_claim_compiles_only_its_writes(client, ctx, fresh_db):
    rp = h.provider(client, ctx, INV)
    _claims(ctx, rp, [1])()      # the project, user and type rows exist from here on
    assert warm_up.warm(fresh_db) is not None
    fresh = berth_context.admin_context(fresh_db)
    sizes = [1, 3, 20] if fresh_db.engine.dialect.name == 'postgresql' else [1]
    compiled = _compiled(fresh_db, _claims(fresh, rp, sizes))
    assert compiled and set(compiled) <= set(NOT_WARMED), compiled


def test_without_it_the_first_claims_compile_their_reads(client, ctx, fresh_db):
    """The contrast that shows the test above measures the warm-up."""
    rp = h.provider(client, ctx, INV)
    _claims(ctx, rp, [1])()
    compiled = _compiled(fresh_db, _claims(berth_context.admin_context(fresh_db), rp, [1]))
    assert any(s.startswith('SELECT') for s in compiled), compiled
    assert 'INSERT INTO consumers' in compiled


def test_the_warm_up_caches_the_routing_roots_and_writes_nothing(client, ctx, fresh_db):
    parent = h.provider(client, ctx, INV)
    routing.ROOTS.clear()
    usage_before = client.get('/resource_providers/%s/usages' % parent).json()
    assert warm_up.warm(fresh_db) >= 1
    assert routing.ROOTS.cached({parent}) == parent
    assert client.get('/resource_providers/%s/usages' % parent).json() == usage_before
    with fresh_db.engine.connect() as conn:
        nobody = allocation_batch._NOBODY
        assert conn.execute(sa.text('SELECT count(*) FROM consumers WHERE uuid = :u'),
                            {'u': nobody}).scalar() == 0


def test_a_database_that_cannot_be_reached_does_not_stop_the_start(caplog):
    db = db_api.Database('postgresql+psycopg2://nobody@127.0.0.1:1/none')
    try:
        assert warm_up.warm(db) is None
    finally:
        db.dispose()
    assert 'Could not warm the claim path up' in caplog.text
    assert warm_up.warm(None) is None
