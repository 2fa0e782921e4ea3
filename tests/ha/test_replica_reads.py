"""Reads from a lagging replica: lag-tolerant reads go there, read-your-writes never do.

berth (the embedded stack: both APIs and conductors in this process) runs on
a PostgreSQL primary with ``[database] slave_connection`` naming a hot
standby that streams from it (tests/ha/pg_standby.py).  The standby's replay
is *paused* (``pg_wal_replay_pause()``) for most of the checks: it then
really lags behind every write made since (no mock).  doc/source/architecture.md,
"Where reads go", states the rule these tests hold berth to:

* a client's own write is seen at once by ``GET /usages``,
  ``GET /allocations/{consumer}``, ``GET /resource_providers/{rp}/usages``
  (and single-provider and single-node reads), however far the replica lags;
* ``GET /allocation_candidates``, ``GET /resource_providers`` and
  ``GET /v1/nodes`` answer from the replica: they show its older state while
  it lags, and a claim made from a stale candidate is still refused by the
  primary;
* the candidate answer cache never keeps a replica's answer under a token
  that a later, newer state could carry: after the replica catches up, the
  answer is the new one (the trap: tokens from the primary would have kept
  serving the old answer while the primary stays quiet);
* the primary's share of the candidate search's statements is 0
  (``pg_stat_statements`` on each server);
* with the primary killed, the replica keeps answering candidates, provider
  lists and searches (their class and trait names included) and node lists.
"""

import collections
import os
import signal
import tempfile

import pytest

from objects.candidates import answer_cache
from tests import fixtures, services
from tests.functional import baremetal_helpers
from tests.ha import conftest, pg_standby

pytestmark = conftest.MARKS

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'
PROJECT = 'proj-replica'


def _unavailable(reason):
    reason = '!!! replica reads HA test SKIPPED: %s !!!' % reason
    if REQUIRE:
        pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
    pytest.skip(reason)


World = collections.namedtuple('World', 'primary standby berth client bm rp')


@pytest.fixture(scope='module')
def world(tmp_path_factory):
    missing = services.PostgreSQL.missing() + [
        b for b in [pg_standby.PG_BIN + '/pg_basebackup'] if not os.access(b, os.X_OK)]
    if missing:
        _unavailable('not installed: %s' % missing)
    workdir = tempfile.mkdtemp(prefix='berth-replica-')
    primary, standby = pg_standby.start_pair(workdir)
    stack = client = bm = None
    try:
        conf = fixtures.make_conf(tmp_path_factory.mktemp('state'), **{
            'database.connection': primary.url,
            'database.slave_connection': standby.url})
        stack = fixtures.start_embedded(conf)
        assert stack.db.replica_engine is not None
        client = fixtures.PlacementClient(stack.placement_url, version='latest')
        bm = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
        rp = _ok(client.post('/resource_providers', json={'name': 'cn-replica'})).json()['uuid']
        _ok(client.put('/resource_providers/%s/inventories' % rp, json={
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 8192}}}))
        pg_standby.caught_up(primary, standby)
        yield World(primary, standby, stack, client, bm, rp)
    finally:
        for c in (client, bm):
            if c is not None:
                c.close()
        if stack is not None:
            stack.stop()
        standby.stop()
        primary.stop()


def _ok(resp, status=(200, 201, 204)):
    assert resp.status_code in status, (resp.status_code, resp.text)
    return resp


class Paused:
    """Replay paused on the standby for the block; resumed and caught up after."""

    def __init__(self, world):
        self.world = world

    def __enter__(self):
        pg_standby.pause(self.world.standby)

    def __exit__(self, *exc):
        pg_standby.resume(self.world.standby)
        pg_standby.caught_up(self.world.primary, self.world.standby)


def _allocate(w, consumer, vcpu, generation=None):
    return w.client.put('/allocations/%s' % consumer, version='1.28', json={
        'allocations': {w.rp: {'resources': {'VCPU': vcpu}}},
        'project_id': PROJECT, 'user_id': 'u1', 'consumer_generation': generation})


def _project_vcpu(w):
    # 1.9 (GET /usages), before 1.38 grouped usages by consumer type
    resp = _ok(w.client.get('/usages?project_id=' + PROJECT, version='1.9'))
    return resp.json()['usages'].get('VCPU', 0)


def _usage_in_candidates(w, query='resources=VCPU:1'):
    body = _ok(w.client.get('/allocation_candidates?' + query)).json()
    summary = body['provider_summaries'].get(w.rp)
    return None if summary is None else summary['resources']['VCPU']['used']


def test_read_your_writes_is_never_stale_while_the_replica_lags(world):
    w = world
    with Paused(w):
        expected = _project_vcpu(w)
        for vcpu in (1, 2):
            consumer = '00000000-0000-4000-8000-00000000000%d' % vcpu
            _ok(_allocate(w, consumer, vcpu), (204,))
            expected += vcpu
            # nova's sequence: PUT, then each of these must show the write
            assert _project_vcpu(w) == expected
            mine = _ok(w.client.get('/allocations/%s' % consumer)).json()
            assert mine['allocations'][w.rp]['resources'] == {'VCPU': vcpu}
            rp_usages = _ok(w.client.get('/resource_providers/%s/usages' % w.rp)).json()
            assert rp_usages['usages']['VCPU'] == expected
            # and a consumer generation read back works for the next write
            _ok(_allocate(w, consumer, vcpu, generation=mine['consumer_generation']), (204,))
        # the lag is real: the candidates (replica) do not show these claims
        assert _usage_in_candidates(w) == expected - 3
    # caught up: they do
    assert _usage_in_candidates(w) == expected


def test_lag_tolerant_lists_answer_from_the_replica_and_claims_stay_exact(world):
    w = world
    used = _ok(w.client.get('/resource_providers/%s/usages' % w.rp)).json()['usages']['VCPU']
    with Paused(w):
        new_rp = _ok(w.client.post('/resource_providers',
                                   json={'name': 'cn-while-lagging'})).json()['uuid']
        node = baremetal_helpers.make_node(w.bm, state='enroll')
        # single reads: the primary
        _ok(w.client.get('/resource_providers/%s' % new_rp))
        _ok(w.bm.get('/v1/nodes/%s' % node['uuid']))
        # lists: the replica, which has not replayed them yet
        listed = {p['uuid'] for p in _ok(w.client.get('/resource_providers')).json()[
            'resource_providers']}
        assert w.rp in listed and new_rp not in listed
        nodes = {n['uuid'] for n in _ok(w.bm.get('/v1/nodes')).json()['nodes']}
        assert node['uuid'] not in nodes
        # a claim of everything the replica still shows free: the primary
        # knows better, and says so
        free = 8 - used
        _ok(_allocate(w, '00000000-0000-4000-8000-0000000000ff', free - 1), (204,))
        assert _usage_in_candidates(w, 'resources=VCPU:%d' % free) == used    # stale
        resp = _allocate(w, '00000000-0000-4000-8000-0000000000fe', free)
        assert resp.status_code == 409, resp.text
    listed = {p['uuid'] for p in _ok(w.client.get('/resource_providers')).json()[
        'resource_providers']}
    assert new_rp in listed
    assert node['uuid'] in {n['uuid'] for n in _ok(w.bm.get('/v1/nodes')).json()['nodes']}
    _ok(w.client.delete('/allocations/00000000-0000-4000-8000-0000000000ff'), (204,))


def test_a_cached_candidate_answer_is_never_served_stale_after_the_replica_catches_up(world):
    w = world
    db = w.berth.db
    cache = answer_cache.for_database(
        db, w.berth.conf.placement.allocation_candidates_cache_size)
    query = 'resources=VCPU:1&limit=7'
    pg_standby.caught_up(w.primary, w.standby)      # not even the usual few ms behind
    before = _usage_in_candidates(w, query)
    with Paused(w):
        _ok(_allocate(w, '00000000-0000-4000-8000-0000000000aa', 1), (204,))
        hits = cache.hits
        assert _usage_in_candidates(w, query) == before
        assert _usage_in_candidates(w, query) == before
        # kept, and served, while the replica stays where it is ...
        assert cache.hits > hits
        # ... under the replica's token, which is not the primary's now
        replica = pg_standby.sql(w.standby.url, 'SELECT pg_current_snapshot()::text')
        primary = pg_standby.sql(w.primary.url, 'SELECT pg_current_snapshot()::text')
        assert replica != primary
        assert db.change_token()[1] == int(replica.split(':')[1])
    # the primary is quiet now: its token would not move again, the replica's did
    assert _usage_in_candidates(w, query) == before + 1
    _ok(w.client.delete('/allocations/00000000-0000-4000-8000-0000000000aa'), (204,))


def test_the_primary_runs_none_of_the_candidate_search(world):
    w = world
    pg_standby.caught_up(w.primary, w.standby)
    for server in (w.primary, w.standby):
        pg_standby.reset_statements(server)
    # distinct questions (no answer cache hits): every one is a search, in a
    # REPEATABLE READ transaction of its own (objects/candidates/finder.py)
    searches = 0
    for vcpu in range(1, 9):
        for mem in (64, 128, 256):
            _ok(w.client.get('/allocation_candidates?resources=VCPU:%d,MEMORY_MB:%d'
                             % (vcpu, mem)))
            searches += 1
    counts = {}
    for server in (w.primary, w.standby):
        counts[server.name] = {
            'searches': pg_standby.statement_calls(server, '%REPEATABLE READ%'),
            # any statement on a table the search reads
            'placement tables': sum(pg_standby.statement_calls(server, like) for like in (
                '%resource_providers%', '%inventories%', '%FROM allocations%',
                '%resource_classes%', '%FROM traits%', '%aggregates%')),
            # (this test's own connections' set-up included)
            'all': pg_standby.statement_calls(server, '%')}
    print('\nstatements run by each server during %d candidate searches: %s'
          % (searches, counts))
    primary, replica = counts[w.primary.name], counts[w.standby.name]
    assert replica['searches'] == searches
    assert replica['placement tables'] >= searches    # at least its class lookup
    assert primary['searches'] == 0
    assert primary['placement tables'] == 0


def test_the_replica_keeps_answering_with_the_primary_dead(world):
    w = world
    pg_standby.caught_up(w.primary, w.standby)
    w.primary.proc.send_signal(signal.SIGKILL)          # a dead host
    w.primary.proc.wait(30)
    w.primary.proc = None
    # stale pooled primary connections are found out by their first use
    for _ in range(3):
        assert _usage_in_candidates(w, 'resources=VCPU:2') is not None
        listed = _ok(w.client.get('/resource_providers')).json()['resource_providers']
        assert w.rp in {p['uuid'] for p in listed}
        # an open search with names: they are looked up on the replica too
        listed = _ok(w.client.get('/resource_providers?resources=VCPU:1')).json()[
            'resource_providers']
        assert w.rp in {p['uuid'] for p in listed}
        _ok(w.bm.get('/v1/nodes'))
    # what needs the primary says so, with a 503
    resp = w.client.get('/usages?project_id=' + PROJECT)
    assert resp.status_code == 503, resp.text
