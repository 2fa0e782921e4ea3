"""Dispatch by a table of routes; the first matching template wins."""

from api.baremetal import fault


class Router:
    def __init__(self, routes):
        self._routes = [(tuple(s for s in t.split('/') if s), m) for t, m in routes]

    def match(self, path):
        parts = [p for p in path.split('/') if p]
        for segs, methods in self._routes:
            if len(segs) != len(parts):
                continue
            args = {}
            for seg, part in zip(segs, parts):
                if seg.startswith('{'):
                    args[seg[1:-1]] = part
                elif seg != part:
                    break
            else:
                return methods, args
        return None, None

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
