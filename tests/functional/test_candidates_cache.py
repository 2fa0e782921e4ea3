"""The answer cache of GET /allocation_candidates never serves a stale answer.

Writers in other threads and in another process change inventories, usage,
traits and aggregates while a reader asks; whenever no commit happened
around a request (equal change tokens before and after), the served answer
must equal a fresh uncached computation, which then saw the same state.
"""

import subprocess
import sys
import threading
import uuid as uuidlib

import orjson
import pytest
import sqlalchemy as sa

from db import api as db_api
from db import models
from objects.candidates import answer_cache, finder
from objects.candidates import request as candidates_request
from tests import dbengines
from tests.functional import candidate_helpers as helpers

URL = '/allocation_candidates'
AGG_A = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'cache-agg-a'))
AGG_B = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'cache-agg-b'))
QUERIES = [
    ('resources=VCPU:1,MEMORY_MB:64',
     candidates_request.RequestGroup(resources={'VCPU': 1, 'MEMORY_MB': 64})),
    ('resources=VCPU:2,DISK_GB:10&member_of=in:%s,%s&required=!CUSTOM_BAD' % (AGG_A, AGG_B),
     candidates_request.RequestGroup(resources={'VCPU': 2, 'DISK_GB': 10},
                                     member_of=[{AGG_A, AGG_B}], forbidden={'CUSTOM_BAD'})),
]
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RPT = models.ResourceProviderTrait.__table__
_RPA = models.ResourceProviderAggregate.__table__
_TRAIT = models.Trait.__table__
_AGG = models.PlacementAggregate.__table__
_RP = models.ResourceProvider.__table__
_RC = models.ResourceClass.__table__

# the other process: raw sqlite3 commits to the same file (reserved VCPU)
_FOREIGN_WRITER = '''
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
for i in range(int(sys.argv[2])):
    con.execute('BEGIN IMMEDIATE')
    con.execute('UPDATE inventories SET reserved = ? WHERE resource_class_id = '
                '(SELECT id FROM resource_classes WHERE name = "VCPU") AND '
                'resource_provider_id = (SELECT id FROM resource_providers WHERE name = "cn0")',
                (i % 7,))
    # as every berth writer does (the provider index re-reads bumped providers)
    con.execute('UPDATE resource_providers SET generation = generation + 1 '
                'WHERE name = "cn0"')
    con.execute('COMMIT')
'''
# the same from another process on PostgreSQL (psycopg2, its own connection)
_FOREIGN_PG_WRITER = '''
import sys
import psycopg2
con = psycopg2.connect(sys.argv[1])
for i in range(int(sys.argv[2])):
    with con, con.cursor() as cur:
        cur.execute("UPDATE inventories SET reserved = %s WHERE resource_class_id = "
                    "(SELECT id FROM resource_classes WHERE name = 'VCPU') AND "
                    "resource_provider_id = (SELECT id FROM resource_providers "
                    "WHERE name = 'cn0')", (i % 7,))
        cur.execute("UPDATE resource_providers SET generation = generation + 1 "
                    "WHERE name = 'cn0'")
con.close()
'''


def _foreign_writer(berth, count):
    """argv of another process committing ``count`` changes to cn0's VCPU."""
    url = berth.db.engine.url
    if berth.db.is_sqlite:
        return [sys.executable, '-c', _FOREIGN_WRITER, url.database, str(count)]
    dsn = url.set(drivername='postgresql').render_as_string(hide_password=False)
    return [sys.executable, '-c', _FOREIGN_PG_WRITER, dsn, str(count)]


@pytest.fixture
def trees(berth, ctx):
    if not dbengines.has_change_detector(berth.db):
        pytest.skip('the answer cache needs an exact change detector (SQLite, PostgreSQL)')
    # on those engines the detector must answer: None would turn the cache off
    assert berth.db.change_token() is not None
    helpers.add_provider(ctx, name='bad-seed', traits=['CUSTOM_BAD'], aggregates=[AGG_B])
    return [helpers.add_provider(ctx, name='cn%d' % i,
                                 inventory={'VCPU': 16, 'MEMORY_MB': 1024, 'DISK_GB': 100},
                                 aggregates=[(AGG_A, AGG_B)[i % 2]])
            for i in range(6)]


@db_api.writer
def _write(ctx, step):
    """One of four kinds of change, on a provider chosen by ``step``."""
    s = ctx.session
    rp_ids = s.execute(sa.select(_RP.c.id).order_by(_RP.c.id)).scalars().all()
    rp_id = rp_ids[1 + step % (len(rp_ids) - 1)]
    vcpu = s.execute(sa.select(_RC.c.id).where(_RC.c.name == 'VCPU')).scalar_one()
    kind = step % 4
    if kind == 0:       # capacity
        s.execute(_INV.update().where(_INV.c.resource_provider_id == rp_id)
                  .where(_INV.c.resource_class_id == vcpu).values(total=8 + step % 9))
    elif kind == 1:     # usage
        s.execute(_ALLOC.insert().values(
            resource_provider_id=rp_id, resource_class_id=vcpu, used=1 + step % 3,
            consumer_id=str(uuidlib.uuid4()), created_at=models._now()))
    elif kind == 2:     # a forbidden trait comes or goes
        bad = s.execute(sa.select(_TRAIT.c.id).where(_TRAIT.c.name == 'CUSTOM_BAD')
                        ).scalar_one()
        gone = s.execute(_RPT.delete().where(_RPT.c.resource_provider_id == rp_id)
                         .where(_RPT.c.trait_id == bad)).rowcount
        if not gone:
            s.execute(_RPT.insert().values(resource_provider_id=rp_id, trait_id=bad,
                                           created_at=models._now()))
    else:               # aggregate membership moves
        agg_ids = s.execute(sa.select(_AGG.c.id).order_by(_AGG.c.id)).scalars().all()
        s.execute(_RPA.delete().where(_RPA.c.resource_provider_id == rp_id))
        s.execute(_RPA.insert().values(resource_provider_id=rp_id,
                                       aggregate_id=agg_ids[step % len(agg_ids)],
                                       created_at=models._now()))
    if kind != 1:       # as berth's writers do (usage alone leaves generations)
        s.execute(_RP.update().where(_RP.c.id == rp_id)
                  .values(generation=_RP.c.generation + 1))


def _fresh(ctx, group):
    """The 1.39 answer computed now, without the cache (nor the provider index)."""
    result = finder.get_candidates(ctx, candidates_request.ResourceRequest(groups=[group]),
                                   finder.Options(indexed=False))
    return orjson.loads(orjson.dumps({
        'allocation_requests': [{'allocations': c.allocations, 'mappings': c.mappings}
                                for c in result.candidates],
        'provider_summaries': result.summaries}))


def test_cached_answers_match_fresh_ones_under_concurrent_writes(berth, client, ctx, trees):
    cache = answer_cache.for_database(berth.db, berth.conf.placement
                                      .allocation_candidates_cache_size)
    done = threading.Event()
    errors = []

    def writer(offset):
        try:
            for step in range(offset, offset + 120, 2):
                _write(ctx, step)
        except Exception as exc:      # surfaced by the assertion below
            errors.append(exc)

    foreign = subprocess.Popen(_foreign_writer(berth, 150))
    threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    compared = changed = 0
    seen = {}
    while not done.is_set():
        if all(not t.is_alive() for t in threads) and foreign.poll() is not None:
            done.set()       # one more round once every writer has finished
        for query, group in QUERIES:
            before = berth.db.change_token()
            served = [client.get(URL + '?' + query).json() for _ in range(2)]
            fresh = _fresh(ctx, group)
            if berth.db.change_token() == before:
                assert served == [fresh, fresh]
                compared += 1
            if seen.get(query) not in (None, served[-1]):
                changed += 1
            seen[query] = served[-1]
    for t in threads:
        t.join(300)          # bounds a hang only (each writer finished above)
    assert not any(t.is_alive() for t in threads)
    assert foreign.wait(300) == 0
    assert not errors
    assert compared >= len(QUERIES)     # at least the final quiet round
    assert changed > 0                  # the writes did change the answers
    assert cache.hits > 0


def test_a_foreign_process_commit_invalidates(berth, client, ctx, trees):
    query, group = QUERIES[0]
    first = client.get(URL + '?' + query).json()
    assert client.get(URL + '?' + query).json() == first      # served from the cache
    subprocess.run(_foreign_writer(berth, 4), check=True)
    after = client.get(URL + '?' + query).json()
    assert after == _fresh(ctx, group)
    assert after != first      # cn0 has 3 VCPU reserved now


def test_cache_disabled_by_config(berth, client, ctx, trees):
    berth.conf.set_override('allocation_candidates_cache_size', 0, group='placement')
    cache = answer_cache.for_database(berth.db, 0)
    hits = cache.hits
    query, group = QUERIES[0]
    for _ in range(3):
        assert client.get(URL + '?' + query).json() == _fresh(ctx, group)
    assert cache.hits == hits
