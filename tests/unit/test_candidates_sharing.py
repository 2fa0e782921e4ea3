"""objects/candidates/sharing: a tree's sharing providers found per tree, as Search.link."""

from objects.candidates import sharing


class _P:
    """A provider as the search sees it: hashed by identity."""

    def __init__(self, rp_id, root_id):
        self.id, self.root_id = rp_id, root_id


_p = _P


def _eager(links, by_agg):
    """What Search.link() makes of [(root id, aggregate id)]."""
    found = {}
    for root_id, agg_id in links:
        for p in by_agg.get(agg_id, ()):
            if p.root_id != root_id:
                found.setdefault(root_id, set()).add(p)
    return {root: sorted(ps, key=lambda p: p.id) for root, ps in found.items()}


def test_same_share_as_link_per_tree_and_none_for_own_or_unlinked():
    s1, s2, s3 = _p(90, 90), _p(91, 91), _p(5, 5)     # s3 shares from inside tree 5
    by_agg = {1: [s2, s1], 2: [s1, s3]}
    aggs_by_root = {10: {1}, 11: {1, 2}, 5: {2}, 90: {1, 2}}
    links = [(root, agg) for root, aggs in aggs_by_root.items() for agg in aggs]
    eager = _eager(links, by_agg)
    lazy = sharing.SharedByRoot(aggs_by_root, by_agg)
    for root in (10, 11, 5, 90, 12):
        assert lazy.get(root) == eager.get(root)
        assert (root in lazy) == (root in eager)
    assert lazy.get(10) == [s1, s2]           # by id
    assert lazy.get(11) == [s3, s1, s2]
    assert lazy.get(5) == [s1]                # not itself
    assert lazy.get(12) is None and 12 not in lazy
    assert lazy.get(12, ()) == ()
