"""Fuzz every bare-metal (/v1) route: no 5xx, and a rejected request changes nothing."""

from hypothesis import strategies as st

from tests.fuzz import baremetal_requests, harness, jsonfuzz, world
from tests.fuzz import headers as hdrs
from tests.fuzz import request_strategy as requests

ROUTES = baremetal_requests.routes()


def test_every_route(fuzz):
    harness.run(fuzz, 'baremetal', requests.request(ROUTES, hdrs.baremetal_version()),
                world.examples(5000))


def test_hostile_bodies(fuzz):
    bodies = st.one_of(jsonfuzz.RAW_BODIES, jsonfuzz.huge_json(fuzz.max_body),
                       jsonfuzz.any_json(30).map(jsonfuzz.dumps))
    writes = [r for r in ROUTES if r[0] in ('POST', 'PUT', 'PATCH')]
    harness.run(fuzz, 'baremetal', requests.request(writes, hdrs.baremetal_version(),
                                                    bodies),
                world.examples(1000))


def test_any_path_any_method(fuzz):
    segments = st.lists(st.one_of(st.sampled_from([
        'v1', 'nodes', 'allocations', 'allocation', 'states', 'provision', 'traits',
        'detail', world.NODE, 'fuzz-node', '', '..']),
        jsonfuzz.TEXT.map(harness.quote)), max_size=5)
    paths = segments.map(lambda parts: '/' + '/'.join(parts))
    route = [(m, paths, None, st.one_of(st.none(), jsonfuzz.any_json(4)))
             for m in ('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'FOO')]
    harness.run(fuzz, 'baremetal', requests.request(route, hdrs.baremetal_version()),
                world.examples(500))
