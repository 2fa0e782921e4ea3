"""Dispatch by a table of routes; the first matching template wins."""

from api.baremetal import fault
from api.common import routing


class Router(routing.PathTable):
    def __call__(self, req):
        handler, args = self.resolve(req)
        min_version = getattr(handler, 'min_version', None)
        if min_version and not req.version.matches(min_version):
            if handler.too_old == 405:
                raise fault.MethodNotAllowed(
                    'The method specified is not allowed for this resource.')
            raise fault.NotFound('The resource could not be found.')
        req.urlvars = args
        return handler(req)
