"""Dispatch by a table of routes (see routes.py); no regexes in path parameters.

A path matches a template segment by segment; ``{name}`` takes any one
segment.  A known path with an unknown method is a 405 with ``Allow``.
"""

from api.common import routing
from api.placement import fault, validation


def endpoint(min_version='1.0', max_version=None, json_body=False, json_reply=False):
    """Declare when a handler exists and what media types it speaks.

    Outside [min_version, max_version] the route answers 404 (Placement's
    rule: a route that exists but not at this version is not found).
    ``json_body`` makes a non-JSON content type a 415; ``json_reply`` makes
    an Accept header that refuses JSON a 406.
    """
    def decorate(fn):
        fn.min_version = min_version
        fn.max_version = max_version
        fn.json_body = json_body
        fn.json_reply = json_reply
        return fn
    return decorate


def method_not_allowed(req, allow):
    """405 in Placement's (WebOb's) words, naming the method."""
    return fault.MethodNotAllowed(
        'The method %s is not allowed for this resource.' % req.method,
        headers={'allow': allow})


class Router(routing.PathTable):
    def __call__(self, req):
        try:
            handler, args = self.resolve(req)
        except fault.MethodNotAllowed as exc:
            raise method_not_allowed(req, exc.headers.get('allow', ''))
        if not req.version.matches(handler.min_version, handler.max_version):
            raise fault.NotFound('The resource could not be found.')
        if handler.json_reply:
            validation.require_json_accept(req)
        if handler.json_body:
            validation.require_json_content(req)
        req.urlvars = args
        return handler(req)
