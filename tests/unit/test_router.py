import pytest

from api.placement import fault, router, routes


def test_match_templates_without_regex():
    r = router.Router([('/a/{x}', {'GET': 'h1'}), ('/a/{x}/b', {'GET': 'h2'}),
                       ('/a/fixed', {'GET': 'h3'})])
    assert r.match('/a/123') == ({'GET': 'h1'}, {'x': '123'})
    assert r.match('/a/123/b') == ({'GET': 'h2'}, {'x': '123'})
    assert r.match('/a/zz/c') == (None, None)
    assert r.match('/nope') == (None, None)


def test_every_route_handler_is_declared():
    """Each handler states its version range and media types (router.endpoint)."""
    for path, methods in routes.ROUTES:
        for method, handler in methods.items():
            assert hasattr(handler, 'min_version'), (path, method)


def test_405_lists_allowed_methods():
    class Req:
        path_info = '/a'
        method = 'DELETE'
        environ = {}
    r = router.Router([('/a', {'GET': 'x', 'POST': 'y'})])
    with pytest.raises(fault.MethodNotAllowed) as err:
        r(Req())
    assert err.value.headers['allow'] == 'GET, POST'


def test_resolve_records_the_template_and_tags_the_context():
    """Metrics label by template (never the raw path); logs name the consumer."""
    class Ctx:
        resource_uuid = None

    class Req:
        path_info = '/allocations/c-1'
        method = 'GET'
        environ = {'berth.context': Ctx()}
    r = router.Router([('/allocations/{consumer_uuid}', {'GET': 'h'})])
    assert r.resolve(Req()) == ('h', {'consumer_uuid': 'c-1'})
    assert Req.environ['berth.route'] == '/allocations/{consumer_uuid}'
    assert Req.environ['berth.context'].resource_uuid == 'c-1'
