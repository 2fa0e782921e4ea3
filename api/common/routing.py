"""Matching a path against a table of templates; no regexes in path parameters.

A template matches segment by segment; ``{name}`` takes any one segment.
Each API's router subclasses PathTable and adds its own version rules.
"""

from api.common import errors


class PathTable:
    def __init__(self, routes):
        # {segment count: [(segments, {method: handler})]}, in table order
        self._by_length = {}
        for template, methods in routes:
            segs = tuple(s for s in template.split('/') if s)
            self._by_length.setdefault(len(segs), []).append((segs, methods))

    def match(self, path):
        """``({method: handler}, {name: value})`` for ``path``, or ``(None, None)``."""
        parts = [p for p in path.split('/') if p]
        for segs, methods in self._by_length.get(len(parts), ()):
            args = {}
            for seg, part in zip(segs, parts):
                if seg.startswith('{'):
                    args[seg[1:-1]] = part
                elif seg != part:
                    break
            else:
                return methods, args
        return None, None

    def resolve(self, req):
        """``(handler, urlvars)`` for ``req``: 404 for an unknown path, 405 with Allow."""
        methods, args = self.match(req.path_info)
        if methods is None:
            raise errors.NotFound('The resource could not be found.')
        handler = methods.get(req.method)
        if handler is None:
            raise errors.MethodNotAllowed(
                'The method specified is not allowed for this resource.',
                headers={'allow': ', '.join(sorted(methods))})
        return handler, args
