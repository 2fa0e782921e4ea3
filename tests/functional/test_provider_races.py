"""Provider writes racing each other: trees stay loop-free, roots right, no orphans.

The ``race_*`` scenarios take a context factory; they run here on SQLite and
in tests/integration on PostgreSQL, where the row locks do the real work.
"""

import threading
import uuid as uuidlib

import pytest

from common import context as berth_context
from common import exception
from objects import database
from objects.placement import aggregate as agg_obj
from objects.placement import resource_provider as rp_obj
from tests import fixtures
from tests.functional import rp_db

ROUNDS = 15


@pytest.fixture
def new_ctx(conf, tmp_path_factory):
    """A factory of admin contexts (one per thread) on a fresh migrated database."""
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    db = database.open_database(conf)
    yield lambda: berth_context.admin_context(db)
    db.dispose()


def _race(*fns):
    """Run ``fns`` in threads released together; return each result or exception."""
    barrier = threading.Barrier(len(fns))
    results = [None] * len(fns)

    def run(i, fn):
        barrier.wait()
        try:
            results[i] = fn()
        except Exception as exc:  # the outcome is what the test inspects
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _root(new_ctx, parent=None):
    return rp_obj.create(new_ctx(), 'rp-%s' % uuidlib.uuid4().hex,
                         parent_uuid=parent).uuid


def race_crossing_reparents_never_loop(new_ctx):
    for _ in range(ROUNDS):
        a, b = _root(new_ctx), _root(new_ctx)
        results = _race(
            lambda: rp_obj.update(new_ctx(), a, 'a-%s' % a, parent_uuid=b,
                                  allow_reparent=True),
            lambda: rp_obj.update(new_ctx(), b, 'b-%s' % b, parent_uuid=a,
                                  allow_reparent=True))
        ok = [r for r in results if isinstance(r, rp_obj.ResourceProvider)]
        assert len(ok) == 1, results
        failed = [r for r in results if not isinstance(r, rp_obj.ResourceProvider)]
        assert isinstance(failed[0], (exception.Invalid, exception.ConcurrentUpdate))
    rp_db.assert_trees_consistent(new_ctx())


def race_reparent_while_children_are_added(new_ctx):
    for _ in range(ROUNDS):
        top, target = _root(new_ctx), _root(new_ctx)
        mid = _root(new_ctx, parent=top)
        _race(
            lambda: rp_obj.update(new_ctx(), mid, 'mid-%s' % mid, parent_uuid=target,
                                  allow_reparent=True),
            lambda: _root(new_ctx, parent=mid),
            lambda: _root(new_ctx, parent=mid))
        rp_db.assert_trees_consistent(new_ctx())


def race_delete_while_children_are_added(new_ctx):
    for _ in range(ROUNDS):
        parent = _root(new_ctx)
        results = _race(lambda: rp_obj.destroy(new_ctx(), parent),
                        lambda: _root(new_ctx, parent=parent),
                        lambda: _root(new_ctx, parent=parent))
        deleted, created = results[0] is None, results[1:]
        if deleted:
            assert all(isinstance(r, exception.Invalid) for r in created), results
        else:
            assert isinstance(results[0], exception.ProviderHasChildren), results
        rp_db.assert_trees_consistent(new_ctx())


def race_delete_while_allocating(new_ctx):
    for _ in range(ROUNDS):
        rp = _root(new_ctx)
        rp_db.add_inventory(new_ctx(), rp, 'VCPU', 8)
        results = _race(lambda: rp_obj.destroy(new_ctx(), rp),
                        lambda: rp_db.allocate(new_ctx(), rp, 'VCPU', 1))
        if results[0] is None:
            # the allocation lost: it failed, and nothing points at the provider
            assert isinstance(results[1], Exception), results
            with pytest.raises(exception.ResourceProviderNotFound):
                rp_obj.get_by_uuid(new_ctx(), rp)
        else:
            assert isinstance(results[0], exception.ProviderInUse), results
            assert results[1] is None


def race_delete_while_setting_aggregates(new_ctx):
    agg = str(uuidlib.uuid4())
    for _ in range(ROUNDS):
        rp = _root(new_ctx)
        results = _race(lambda: rp_obj.destroy(new_ctx(), rp),
                        lambda: agg_obj.set_for_provider(new_ctx(), rp, {agg}))
        assert results[0] is None, results
        assert results[1] == 0 or isinstance(results[1],
                                             exception.ResourceProviderNotFound)
        assert rp_db.orphan_links(new_ctx()) == 0


SCENARIOS = [race_crossing_reparents_never_loop, race_reparent_while_children_are_added,
             race_delete_while_children_are_added, race_delete_while_allocating,
             race_delete_while_setting_aggregates]


@pytest.mark.parametrize('scenario', SCENARIOS, ids=lambda f: f.__name__)
def test_race(new_ctx, scenario):
    scenario(new_ctx)
