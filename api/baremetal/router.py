"""Dispatch by a table of routes (see routes.py); the first matching template wins.

A path without the ``/v1`` prefix (``/nodes/{node}``, ``/allocations``) is
routed as its ``/v1`` twin, as Ironic's root controller does: the
``bookmark`` links of the answers are such paths.
"""

from api.baremetal import fault, gates, json_suffix, unsupported, validation
from api.common import errors, routing


def endpoint(min_version=None, too_old=404, message=None, handler_gates=False):
    """Declare the first version of a handler and what older versions get
    (404/405, with ``message`` or pecan's generic text); ``handler_gates``: the
    handler checks the version itself (after the policy, as Ironic does there)."""
    def decorate(fn):
        fn.min_version = min_version
        fn.handler_gates = handler_gates
        fn.too_old = too_old
        fn.too_old_message = message
        return fn
    return decorate


def v1_path(path):
    """``path`` with ``/v1`` in front unless it has it (the root ``/`` stays itself)."""
    first = path.lstrip('/').split('/', 1)[0]
    if first in ('', 'v1'):
        return path
    return '/v1/' + path.lstrip('/')


class Router(routing.PathTable):
    def match_template(self, path):
        return super().match_template(v1_path(path))

    def __call__(self, req):
        json_suffix.strip(req)
        try:
            handler, args = self.resolve(req)
        except errors.NotFound:
            path = v1_path(req.path_info)
            if unsupported.is_unsupported(path):
                raise unsupported.not_supported(req.path_info)
            if unsupported.is_unknown_state_put(req.method, path):
                raise fault.MethodNotAllowed(
                    'The method specified is not allowed for this resource.')
            raise
        min_version = getattr(handler, 'min_version', None)
        if (min_version and not getattr(handler, 'handler_gates', False)
                and not req.version.matches(min_version)):
            message = getattr(handler, 'too_old_message', None)
            if handler.too_old == 405:
                raise fault.MethodNotAllowed(
                    message or 'The method specified is not allowed for this resource.')
            raise fault.NotFound(message or 'The resource could not be found.')
        if 'node' in args:
            gates.check_node_ident(req, args['node'])
        # neither a UUID nor a logical name (over-long, odd characters): 400 before
        # any lookup, as Ironic's get_rpc_node/get_rpc_allocation answer
        for name in ('node', 'allocation'):
            if name in args:
                validation.check_ident(args[name])
        req.urlvars = args
        return handler(req)
