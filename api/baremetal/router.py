"""Dispatch by a table of routes (see routes.py); the first matching template wins."""

from api.baremetal import fault, unsupported
from api.common import errors, routing


def endpoint(min_version=None, too_old=404):
    """Declare the first version of a handler and what older versions get (404/405)."""
    def decorate(fn):
        fn.min_version = min_version
        fn.too_old = too_old
        return fn
    return decorate


class Router(routing.PathTable):
    def __call__(self, req):
        try:
            handler, args = self.resolve(req)
        except errors.NotFound:
            if unsupported.is_unsupported(req.path_info):
                raise unsupported.not_supported(req.path_info)
            raise
        min_version = getattr(handler, 'min_version', None)
        if min_version and not req.version.matches(min_version):
            if handler.too_old == 405:
                raise fault.MethodNotAllowed(
                    'The method specified is not allowed for this resource.')
            raise fault.NotFound('The resource could not be found.')
        req.urlvars = args
        return handler(req)
