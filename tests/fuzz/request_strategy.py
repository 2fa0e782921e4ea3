"""A whole fuzzed request: route, path, query string, headers and body."""

from hypothesis import strategies as st

from tests.fuzz import headers as hdrs
from tests.fuzz import jsonfuzz
from tests.fuzz.harness import query

_IDENTITY = hdrs.identity()
_EXTRA = hdrs.extra_headers()


@st.composite
def request(draw, routes, version, bodies=None, identity=_IDENTITY):
    """(method, path, body bytes or None, headers) for one of ``routes``.

    ``bodies`` replaces the route's JSON body by raw bytes (non-JSON, deep, huge).
    """
    method, path_strategy, query_strategy, body_strategy = draw(st.sampled_from(routes))
    path = draw(path_strategy)
    if query_strategy is not None:
        pairs = draw(query_strategy)
        if pairs:
            path += '?' + query(pairs)
    headers = dict(draw(version))
    headers.update(draw(identity))
    headers.update(draw(_EXTRA))
    body = None
    if bodies is not None and method in ('POST', 'PUT', 'PATCH'):
        body = draw(bodies)
    elif body_strategy is not None:
        value = draw(body_strategy)
        body = None if value is None else jsonfuzz.dumps(value)
    return method, path, body, headers
