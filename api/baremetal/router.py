"""Dispatch by a table of routes; the first matching template wins."""

from api.baremetal import fault
from api.common import routing


class Router:
    def __init__(self, routes):
        self._table = routing.PathTable(routes)

    def match(self, path):
        return self._table.match(path)

    def __call__(self, req):
        methods, args = self.match(req.path_info)
        if methods is None:
            raise fault.NotFound('The resource could not be found.')
        handler = methods.get(req.method)
        if handler is None:
            raise fault.MethodNotAllowed(
                'The method specified is not allowed for this resource.',
                headers={'allow': ', '.join(sorted(methods))})
        min_version = getattr(handler, 'min_version', None)
        if min_version and not req.version.matches(min_version):
            if handler.too_old == 405:
                raise fault.MethodNotAllowed(
                    'The method specified is not allowed for this resource.')
            raise fault.NotFound('The resource could not be found.')
        req.urlvars = args
        return handler(req)
