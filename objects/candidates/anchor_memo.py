"""Candidates of trees kept from one search to the next, for repeated queries."""


class AnchorMemo:
    """Candidates of trees by query, for queries asked more than once.

    A scheduler's queries mostly differ in their amounts: keeping each new
    query's candidates (thousands of objects) until evicted only made
    garbage that lived long enough to reach the collector's oldest
    generation, whose full collections then paused requests for 100-400 ms.
    So a query's candidates are kept from its second sighting on (the first
    only records its key), for at most ``entries`` queries.  The memo lives
    beside the providers, never on them: a Provider never refers back to
    what was made of it, so replaced providers are freed by reference
    counting, without the cyclic collector.
    """

    def __init__(self, entries=16, seen=1024):
        self.entries = entries
        self._max_seen = seen
        self._seen = set()
        self._kept = {}
        self._skeletons = {}

    def skeletons(self, key):
        """{root id: (members, skeleton)} for a granular request shape (see granular).

        A skeleton does not depend on amounts, so every query of a shape
        shares them: kept from the first sighting, for ``entries`` shapes.
        """
        found = self._skeletons.get(key)
        if found is None:
            if len(self._skeletons) >= self.entries:
                self._skeletons.pop(next(iter(self._skeletons)), None)
            found = self._skeletons.setdefault(key, {})
        return found

    def trees(self, key):
        """{root id: (members, candidates)} kept for ``key``, or None (not admitted)."""
        found = self._kept.get(key)
        if found is not None:
            return found
        if key not in self._seen:
            if len(self._seen) >= self._max_seen:
                self._seen.clear()
            self._seen.add(key)
            return None
        if len(self._kept) >= self.entries:
            self._kept.pop(next(iter(self._kept)), None)
        return self._kept.setdefault(key, {})
