"""Fuzz every Placement route: no 5xx, and a rejected request changes nothing."""

from hypothesis import strategies as st

from tests.fuzz import candidates, harness, jsonfuzz, placement_requests, world
from tests.fuzz import headers as hdrs
from tests.fuzz import request_strategy as requests

ROUTES = placement_requests.routes()
_CANDIDATES = [
    ('GET', st.just('/allocation_candidates'), candidates.query(), None)]


def test_every_route(fuzz):
    harness.run(fuzz, 'placement', requests.request(ROUTES, hdrs.placement_version()),
                world.examples(7000))


def test_allocation_candidates_language(fuzz):
    # as the admin at a version that has the route: the query language is the target
    harness.run(fuzz, 'placement',
                requests.request(_CANDIDATES, hdrs.placement_version(low=10),
                                 identity=st.just(harness.ADMIN)),
                world.examples(4000))


def test_capacity_language(fuzz):
    # GET /capacity reads the candidates' language (and providers=) as the admin
    route = [('GET', st.just('/capacity'), placement_requests.capacity_query(), None)]
    harness.run(fuzz, 'placement',
                requests.request(route, hdrs.placement_version(),
                                 identity=st.just(harness.ADMIN)),
                world.examples(1500))


def test_hostile_bodies(fuzz):
    bodies = st.one_of(jsonfuzz.RAW_BODIES, jsonfuzz.huge_json(fuzz.max_body),
                       jsonfuzz.any_json(30).map(jsonfuzz.dumps))
    writes = [r for r in ROUTES if r[0] in ('POST', 'PUT')]
    harness.run(fuzz, 'placement',
                requests.request(writes, hdrs.placement_version(), bodies),
                world.examples(1500))


_SEGMENTS = st.lists(st.one_of(st.sampled_from([
    'resource_providers', 'allocations', 'traits', 'inventories', 'usages', '',
    '..', '.', world.ROOT, 'resource_classes', 'aggregates', 'claims', 'quotas']),
    jsonfuzz.TEXT.map(harness.quote)), max_size=5)


def test_any_path_any_method(fuzz):
    paths = _SEGMENTS.map(lambda parts: '/' + '/'.join(parts))
    route = [(m, paths, None, st.one_of(st.none(), jsonfuzz.any_json(4)))
             for m in ('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS',
                       'TRACE', 'FOO')]
    harness.run(fuzz, 'placement', requests.request(route, hdrs.placement_version()),
                world.examples(1000))
