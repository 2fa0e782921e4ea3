"""Matching a path against a table of templates; no regexes in path parameters.

A template matches segment by segment; ``{name}`` takes any one segment.
"""


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
