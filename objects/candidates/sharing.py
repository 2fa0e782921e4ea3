"""Which sharing providers anchor on a tree, found per tree on first use.

A search over the provider index (objects/candidates/index) is told, for
every tree with a provider in a sharing provider's aggregate, those
aggregates.  Working out every such tree's sharing providers up front costs
as much as the trees (every diskless compute of a region, 10 % of it), while
a limited search visits a few dozen trees: :class:`SharedByRoot` does it for
a tree when the search asks.
"""

from objects.candidates import candidate as cmod

_MISSING = object()


class SharedByRoot:
    """{root id: [sharing Provider by id]} of the trees a search visits.

    ``aggs_by_root``: {root id: aggregate ids of the tree's providers that
    sharing providers are in}; ``by_agg``: {aggregate id: [sharing Provider]}.
    A tree's own sharing providers are not its share (its tree holds them);
    a tree with no other one has no entry, as with Search.link().
    """

    def __init__(self, aggs_by_root, by_agg):
        self._aggs = aggs_by_root
        self._by_agg = by_agg
        self._found = {}

    def get(self, root_id, default=None):
        found = self._found.get(root_id, _MISSING)
        if found is _MISSING:
            aggs = self._aggs.get(root_id)
            if not aggs:            # most trees of a whole search: nothing to share
                return default
            more = {p for agg_id in aggs
                    for p in self._by_agg.get(agg_id, ()) if p.root_id != root_id}
            found = self._found[root_id] = sorted(more, key=cmod.by_id) if more else None
        return default if found is None else found

    def __contains__(self, root_id):
        return self.get(root_id) is not None
