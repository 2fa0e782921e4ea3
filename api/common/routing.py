"""Matching a path against a table of templates; no regexes in path parameters.

A template matches segment by segment; ``{name}`` takes any one segment.
Each API's router subclasses PathTable and adds its own version rules.
"""

from api.common import errors
from api.common import request as berth_request


class PathTable:
    def __init__(self, routes):
        # {segment count: [(segments, {method: handler})]}, in table order
        self._by_length: dict[int, list[tuple[tuple[str, ...], dict, str]]] = {}
        for template, methods in routes:
            segs = tuple(s for s in template.split('/') if s)
            self._by_length.setdefault(len(segs), []).append(
                (segs, methods, template))

    def match(self, path):
        """``({method: handler}, {name: value})`` for ``path``, or ``(None, None)``."""
        methods, args, _template = self.match_template(path)
        return methods, args

    def match_template(self, path):
        """Like :meth:`match`, with the matching template (or None) third."""
        parts = [p for p in path.split('/') if p]
        for segs, methods, template in self._by_length.get(len(parts), ()):
            args = {}
            for seg, part in zip(segs, parts):
                if seg.startswith('{'):
                    args[seg[1:-1]] = part
                elif seg != part:
                    break
            else:
                return methods, args, template
        return None, None, None

    def resolve(self, req):
        """``(handler, urlvars)`` for ``req``: 404 for an unknown path, 405 with Allow.

        The matched template is left in ``environ['berth.route']`` (metrics
        label by template, never by raw path); the context is tagged with
        the consumer or allocation the path names, for the logs.  A path or
        query string that was not UTF-8 is a 400 first.
        """
        berth_request.check_encoding(req)
        methods, args, template = self.match_template(req.path_info)
        if methods is None:
            raise errors.NotFound('The resource could not be found.')
        req.environ['berth.route'] = template
        tag_context(req.environ.get('berth.context'), args)
        handler = methods.get(req.method)
        if handler is None:
            raise errors.MethodNotAllowed(
                'The method specified is not allowed for this resource.',
                headers={'allow': ', '.join(sorted(methods))})
        return handler, args


# path parameters naming the resource a request works on, most specific first
RESOURCE_PARAMS = ('consumer_uuid', 'allocation', 'uuid', 'node')


def tag_context(ctx, args):
    """Set ``ctx.resource_uuid`` (shown on every log line) from the path parameters."""
    if ctx is None:
        return
    for name in RESOURCE_PARAMS:
        if args.get(name):
            ctx.resource_uuid = args[name]
            return
