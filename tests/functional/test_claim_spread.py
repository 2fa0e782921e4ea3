"""Concurrent POST /claims spread over hosts: the window search and the in-flight record.

Eight schedulers at once on eight hosts with room for one claim each: every
claim succeeds on a host of its own.  With one conductor its record of
claims in flight makes each request rank the others' choices as used, so
none even tries a host another one holds (no lost race at all); with three
conductors (routing by consumer uuid) the database still sorts out the
races between them.
"""

import concurrent.futures
import threading

import pytest

from common import context as berth_context
from objects.candidates import request as candidates_request
from objects.candidates import window as candidate_window
from tests import fixtures
from tests.functional import claim_helpers as h

THREADS = 8      # as many clients as the test API server has threads


def _claim_all(base_url, weigher, threads=THREADS):
    start = threading.Barrier(threads)
    local = threading.local()

    def one(_):
        if not hasattr(local, 'client'):
            local.client = fixtures.PlacementClient(base_url, version='latest')
            start.wait()
        resp = h.claim(local.client, resources={'VCPU': 1}, weigher=weigher)
        assert resp.status_code == 201, resp.text
        return h.placed_on(resp)[0][0]

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, range(threads)))


def _lost_races(berth):
    return sum(c.manager.scheduler.lost_races for c in berth.conductors)


@pytest.mark.parametrize('weigher', ['spread', 'pack'])
def test_one_conductor_never_sends_two_claims_to_one_host(berth, client, ctx, weigher):
    # A project's first claims create its row; on PostgreSQL and MariaDB
    # concurrent creators conflict there (a retry, not a host collision), so
    # the project and user exist before the burst.
    warm = h.host(client, ctx, vcpu=1)
    assert h.claim(client, resources={'VCPU': 1}, in_tree=warm).status_code == 201
    before = _lost_races(berth)
    hosts = [h.host(client, ctx, vcpu=1) for _ in range(THREADS)]
    placed = _claim_all(berth.placement_url, weigher)
    assert sorted(placed) == sorted(hosts)
    assert _lost_races(berth) == before
    assert [h.usage(client, rp)['VCPU'] for rp in hosts] == [1] * THREADS


def test_three_conductors_still_place_one_claim_per_host(conf, tmp_path_factory):
    conf.set_override('embedded_conductors', 3, group='conductor')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    try:
        client = fixtures.PlacementClient(stack.placement_url, version='latest')
        ctx = berth_context.admin_context(stack.db)
        hosts = [h.host(client, ctx, vcpu=1) for _ in range(THREADS)]
        assert sorted(_claim_all(stack.placement_url, 'pack')) == sorted(hosts)
        assert [h.usage(client, rp)['VCPU'] for rp in hosts] == [1] * THREADS
    finally:
        stack.stop()


class _Start:
    """An rng whose randint always answers ``value`` (where the window starts)."""

    def __init__(self, value):
        self.value = value

    def randint(self, low, high):
        return min(max(self.value, low), high)


def _request():
    return candidates_request.ResourceRequest(
        groups=[candidates_request.RequestGroup(resources={'VCPU': 1})])


def _hosts_of(result):
    return [sorted(c.allocations) for c in result.candidates]


def test_window_from_the_first_tree_is_the_limited_search(client, ctx):
    hosts = [h.host(client, ctx, vcpu=2) for _ in range(5)]
    found = candidate_window.search(ctx, _request(), candidate_window.options(3))
    assert _hosts_of(found) == [[rp] for rp in hosts[:3]]
    assert set(found.summaries) == set(hosts[:3])


def test_random_window_wraps_round_and_reaches_every_tree(client, ctx):
    hosts = [h.host(client, ctx, vcpu=2) for _ in range(5)]
    with ctx.db.engine.connect() as conn:
        ids = sorted(conn.exec_driver_sql('SELECT id FROM resource_providers').scalars())
    for i, after in enumerate([0] + ids):
        found = candidate_window.search(ctx, _request(), candidate_window.options(3),
                                        candidate_window.RANDOM, _Start(after))
        # three hosts from the one after ``after``, wrapping round to the first
        assert _hosts_of(found) == [[hosts[(i + k) % 5]] for k in range(3)], after
        assert set(found.summaries) == {rp for [rp] in _hosts_of(found)}
    everything = candidate_window.search(ctx, _request(), candidate_window.options(50),
                                         candidate_window.RANDOM, _Start(ids[2]))
    assert sorted(_hosts_of(everything)) == sorted([rp] for rp in hosts)


def test_window_of_an_empty_cloud_is_empty(ctx):
    found = candidate_window.search(ctx, _request(), candidate_window.options(3),
                                    candidate_window.RANDOM)
    assert found.candidates == []
