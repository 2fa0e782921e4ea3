"""Where each read goes: the lagging reader (the replica) or the primary.

doc/source/architecture.md, "Where reads go", states the rule per endpoint; these
tests pin it by recording which kind of transaction (``reader``,
``lagging_reader``, ``writer``; a ``core_`` one counts as its kind) each
request opens *outermost* (a nested one joins its caller's, on the caller's
server).  With ``[database]
slave_connection`` set the lagging reader's engine is the replica; without
one, and always on SQLite (no replicas: the option is ignored), it is the
primary.  Runs on every BERTH_TEST_DB; tests/ha/test_replica_reads.py shows
the same routing against a real lagging standby.
"""

import contextlib
import threading

import pytest

from common import context as berth_context
from common import exception
from db import api as db_api
from objects.baremetal import node as node_obj
from objects.candidates import finder, provider_search
from objects.candidates import request as candidates_request
from objects.placement import inventory as inv_obj
from objects.placement import resource_provider as rp_obj
from tests import dbengines
from tests.functional import alloc_helpers as helpers
from tests.functional import baremetal_helpers

LAGGING = 'lagging_reader'


class Recorder:
    """The outermost transaction kinds each request id opened."""

    def __init__(self, db, monkeypatch):
        self.kinds = {}
        self._lock = threading.Lock()
        for kind in ('reader', LAGGING, 'writer'):
            monkeypatch.setattr(db, kind, self._spy(kind, getattr(db, kind)))
        # a transaction on a plain connection (no ORM Session: a conductor's
        # claims) goes to the same server as its Session kind
        for kind in ('reader', 'writer'):
            core = 'core_' + kind
            monkeypatch.setattr(db, core, self._spy(kind, getattr(db, core)))

    def _spy(self, kind, real):
        def spy(ctx):
            if not db_api.in_transaction(ctx):
                with self._lock:
                    self.kinds.setdefault(getattr(ctx, 'request_id', None), set()).add(kind)
            return real(ctx)
        return spy

    def of(self, resp):
        """The kinds opened by the request that ``resp`` answered."""
        with self._lock:
            return self.kinds.get(resp.headers['x-openstack-request-id'], set())


@pytest.fixture
def recorder(berth, monkeypatch):
    return Recorder(berth.db, monkeypatch)


def _ok(resp, status=200):
    assert resp.status_code == status, resp.text
    return resp


def _placement_world(client, ctx):
    rp = helpers.provider(client, ctx, {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}})
    consumer = helpers.new_uuid()
    _ok(helpers.put(client, consumer, {rp: {'VCPU': 2}}, project='proj-r'), 204)
    return rp, consumer


def test_lag_tolerant_placement_reads_use_the_lagging_reader(client, ctx, recorder):
    rp, _ = _placement_world(client, ctx)
    for path in ('/allocation_candidates?resources=VCPU:1',
                 '/resource_providers',
                 '/resource_providers?resources=VCPU:1',
                 '/resource_providers?member_of=in:%s' % helpers.new_uuid(),
                 '/resource_providers?required=HW_CPU_X86_AVX'):
        kinds = recorder.of(_ok(client.get(path)))
        # nothing on the primary: with it dead (a failover) these still answer
        # (an open search's class and trait names included)
        assert kinds == {LAGGING}, (path, kinds)


def test_read_your_writes_placement_reads_stay_on_the_primary(client, ctx, recorder):
    # nova: PUT /allocations/{consumer}, then these; each must see that write
    rp, consumer = _placement_world(client, ctx)
    for path in ('/usages?project_id=proj-r',
                 '/allocations/%s' % consumer,
                 '/resource_providers/%s/usages' % rp,
                 '/resource_providers/%s/allocations' % rp,
                 '/resource_providers/%s' % rp,
                 '/resource_providers/%s/inventories' % rp,
                 '/resource_providers/%s/traits' % rp,
                 '/resource_providers/%s/aggregates' % rp,
                 '/traits', '/resource_classes',
                 # one provider or tree by name: nova refreshes its own so
                 '/resource_providers?in_tree=%s' % rp,
                 '/resource_providers?uuid=%s' % rp,
                 '/resource_providers?name=x'):
        resp = _ok(client.get(path))
        kinds = recorder.of(resp)
        assert kinds, path                         # it did read, and we saw it
        assert LAGGING not in kinds, (path, kinds)


def test_writes_never_use_the_lagging_reader(client, ctx, recorder):
    rp = helpers.provider(client, ctx, {'VCPU': {'total': 8}})
    resp = _ok(helpers.put(client, helpers.new_uuid(), {rp: {'VCPU': 1}}), 204)
    kinds = recorder.of(resp)
    assert 'writer' in kinds and LAGGING not in kinds, kinds


def test_node_list_uses_the_lagging_reader_single_node_the_primary(bm, recorder):
    node = baremetal_helpers.make_node(bm)
    for path in ('/v1/nodes', '/v1/nodes/detail', '/v1/nodes?provision_state=available'):
        kinds = recorder.of(_ok(bm.get(path)))
        assert LAGGING in kinds and 'writer' not in kinds, (path, kinds)
    # one node, or the instance's node (nova's ironic driver, right after
    # setting instance_uuid): the primary
    for path in ('/v1/nodes/%s' % node['uuid'],
                 '/v1/nodes/detail?instance_uuid=%s' % helpers.new_uuid()):
        kinds = recorder.of(_ok(bm.get(path)))
        assert kinds and LAGGING not in kinds, (path, kinds)


def test_a_lagging_read_inside_a_transaction_joins_it(berth, ctx):
    # the conductor's schedule-and-claim searches inside its own transaction:
    # the search must read what that transaction reads (the primary)
    seen = []

    @db_api.lagging_reader
    def inner(c):
        seen.append(c.session)

    with berth.db.writer(ctx) as session:
        inner(ctx)
    assert seen == [session]
    with berth.db.reader(ctx) as session:
        inner(ctx)
        assert not berth.db.on_replica(ctx)
    assert seen[-1] is session


def test_without_a_replica_the_lagging_reader_reads_the_primary(berth, ctx):
    assert berth.db.replica_engine is None
    with berth.db.lagging_reader(ctx):
        assert not berth.db.on_replica(ctx)


def test_sqlite_ignores_slave_connection(tmp_path):
    # SQLite has no replicas: the option is not used (and no connection to
    # it is attempted: this URL names no server)
    url = 'sqlite:///%s' % (tmp_path / 'x.sqlite')
    db = db_api.Database(url, slave_connection='postgresql+psycopg2://nobody@192.0.2.1/none')
    try:
        assert db.replica_engine is None
        with contextlib.closing(db.engine.connect()):
            pass
    finally:
        db.dispose()


def test_object_reads_default_to_the_primary(berth, ctx, recorder):
    # the conductor (mirror_nodes, explain) and the API's write pre-checks
    # (POST /v1/allocations: is the instance free?) call these: primary
    request = candidates_request.ResourceRequest(
        groups=[candidates_request.RequestGroup(resources={'VCPU': 1})])
    # a search that reads (an indexed one the change token proves current
    # reads nothing: tests/functional/test_candidates_statements.py)
    reads = finder.Options(indexed=False)
    for call, kind in ((lambda: node_obj.list_nodes(ctx), 'reader'),
                       (lambda: node_obj.list_nodes_may_lag(ctx), LAGGING),
                       (lambda: finder.get_candidates(ctx, request, reads), 'reader'),
                       (lambda: finder.get_candidates(ctx, request, reads, may_lag=True),
                        LAGGING)):
        recorder.kinds.clear()
        call()
        assert recorder.kinds == {ctx.request_id: {kind}}


def test_what_the_replica_does_not_know_yet_is_asked_again_of_the_primary(
        berth, ctx, recorder, monkeypatch):
    # a resource class created on the primary and not yet replayed: the
    # replica's "not found" is not the answer, the primary's is
    monkeypatch.setattr(berth.db, 'replica_engine', object())   # "a replica is configured"
    calls = []

    @db_api.lagging_reader(recheck_on=(exception.ResourceClassNotFound,))
    def read(c):
        calls.append(sorted(recorder.kinds[ctx.request_id]))
        if len(calls) == 1:
            raise exception.ResourceClassNotFound(name='CUSTOM_NEW')
        return 'answer'

    assert read(ctx) == 'answer'
    assert calls == [[LAGGING], [LAGGING, 'reader']]

    @db_api.lagging_reader(recheck_on=(exception.ResourceClassNotFound,))
    def unknown_everywhere(c):
        raise exception.ResourceClassNotFound(name='CUSTOM_NONE')

    with pytest.raises(exception.ResourceClassNotFound):
        unknown_everywhere(ctx)
    # other errors are not retried
    with pytest.raises(exception.TraitNotFound):
        db_api.lagging_reader(recheck_on=(exception.ResourceClassNotFound,))(
            lambda c: (_ for _ in ()).throw(exception.TraitNotFound(names='X')))(ctx)


def test_without_a_replica_nothing_is_asked_twice(berth, ctx):
    calls = []

    @db_api.lagging_reader(recheck_on=(exception.ResourceClassNotFound,))
    def read(c):
        calls.append(1)
        raise exception.ResourceClassNotFound(name='CUSTOM_NEW')

    with pytest.raises(exception.ResourceClassNotFound):
        read(ctx)
    assert calls == [1]


@pytest.mark.skipif(not dbengines.is_server(),
                    reason='SQLite has no replicas: slave_connection is ignored')
def test_lagging_reads_use_the_slave_connection_engine(berth):
    # a "replica" that is another database entirely: what a read returns
    # shows which server it ran on
    replica_url = dbengines.lease()
    only_there = berth_context.admin_context(db_api.Database(replica_url))
    try:
        rp = rp_obj.create(only_there, 'only-on-the-replica')
        inv_obj.replace_all(only_there, rp.uuid, 0,
                            [inv_obj.from_record('VCPU', {'total': 4})], True)
        db = db_api.Database(berth.db.url, slave_connection=replica_url)
        try:
            ctx = berth_context.admin_context(db)
            assert db.replica_engine is not None
            assert [p.uuid for p in provider_search.get_all(ctx, may_lag=True)] == [rp.uuid]
            assert provider_search.get_all(ctx) == []
            with pytest.raises(exception.NotFound):
                rp_obj.get_by_uuid(ctx, rp.uuid)                 # the primary's
            with db.lagging_reader(ctx):
                assert db.on_replica(ctx)
            with db.reader(ctx):
                assert not db.on_replica(ctx)
                # nested: joins the primary's transaction
                assert provider_search.get_all(ctx, may_lag=True) == []
            request = candidates_request.ResourceRequest(
                groups=[candidates_request.RequestGroup(resources={'VCPU': 1})])
            # not through the provider index: two databases of one server
            # share its snapshots (tokens), which a real replica's same
            # database may, and these two must not
            direct = finder.Options(indexed=False)
            assert finder.get_candidates(ctx, request, direct).candidates == []
            found = finder.get_candidates(ctx, request, direct, may_lag=True)
            assert list(found.summaries) == [rp.uuid]
            assert node_obj.list_nodes_may_lag(ctx) == node_obj.list_nodes(ctx) == []
        finally:
            db.dispose()
    finally:
        only_there.db.dispose()
