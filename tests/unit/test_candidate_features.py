"""objects/candidates/features on hand-made index states (no database)."""

from objects.candidates import features
from objects.candidates.loader import Provider

T = features.TRAIT


class _State:
    """What Features reads of an index State: providers, trees, roots, sharing."""

    def __init__(self, spec):
        # spec: {id: (root id, {trait id})}
        self.providers = {}
        for rp_id, (root_id, traits) in spec.items():
            p = Provider(rp_id, 'uuid-%d' % rp_id, None if root_id == rp_id else root_id,
                         root_id)
            p.traits = {t: 'T%d' % t for t in traits}
            self.providers[rp_id] = p
        self.trees = {}
        for rp_id in sorted(self.providers):
            p = self.providers[rp_id]
            self.trees.setdefault(p.root_id, []).append(p)
        self.roots = sorted(self.trees)
        self.sharing = {}

    def links_by_root(self, aggs):
        return {}


def _spec(n, with_trait):
    return {i: (i, {1} if i in with_trait else set()) for i in range(1, n + 1)}


def test_rare_features_keep_who_has_them_common_ones_who_lacks_them():
    state = _State(_spec(10, {2, 3, 4, 5, 6, 7, 8, 9}))
    state.providers[4].traits = {1: 'T1', 2: 'T2'}
    f = features.Features()
    assert f.entry(state, (T, 1)) == (False, frozenset({1, 10}))
    assert f.entry(state, (T, 2)) == (True, frozenset({4}))
    assert f.entry(state, (T, 3)) == (True, frozenset())


def test_carried_entries_change_only_for_touched_trees_and_copy_on_change():
    old = _State(_spec(6, {1}))
    f = features.Features()
    rare = f.entry(old, (T, 1))
    new = _State(_spec(6, {1, 5}))
    carried = f.carried(new, {5})
    assert carried.snapshot()[(T, 1)] == (True, frozenset({1, 5}))
    assert f.snapshot()[(T, 1)] is rare              # the old State's is unchanged
    same = carried.carried(new, {2})
    assert same.snapshot()[(T, 1)] is carried.snapshot()[(T, 1)]   # nothing changed
    gone = _State({i: v for i, v in _spec(6, {1, 5}).items() if i != 5})
    assert carried.carried(gone, {5}).snapshot()[(T, 1)] == (True, frozenset({1}))


def test_the_oldest_entries_go_past_eight_roots_per_tree():
    state = _State({i: (i, set(range(100))) for i in range(1, 3)})     # 2 trees
    f = features.Features()
    for t in range(12):
        f.entry(state, (T, t))
    # each entry lacks nothing: (False, {}) holds no root, nothing to drop
    assert len(f.snapshot()) == 12
    state = _State({1: (1, set(range(100))), 2: (2, set()), 3: (3, set()), 4: (4, set()),
                    5: (5, set())})
    f = features.Features()
    for t in range(50):
        f.entry(state, (T, t))           # {1} each: 5 trees x 8 = 40 roots kept
    kept = f.snapshot()
    assert len(kept) == 40 and (T, 49) in kept and (T, 0) not in kept
    assert f.entry(state, (T, 0)) == (True, frozenset({1}))   # built again when asked


def test_limited_searches_use_built_entries_only():
    class Plan:
        groups = []
        root_required = frozenset({1})

    state = _State(_spec(20, {3, 7}))
    f = features.Features()
    assert f.filter(state, Plan, state.roots) is state.roots   # nothing built yet
    assert f.roots(state, Plan) == [3, 7]                       # built here
    assert list(f.filter(state, Plan, state.roots)) == [3, 7]


def test_a_refresh_touching_most_trees_drops_the_entries():
    old = _State(_spec(200, {1}))
    f = features.Features()
    f.entry(old, (T, 1))
    new = _State(_spec(200, set(range(1, 101))))
    assert f.carried(new, set(range(1, 61))).snapshot()[(T, 1)][1] == frozenset(range(1, 61))
    dropped = f.carried(new, set(range(1, 101)))
    assert dropped.snapshot() == {}
    assert dropped.entry(new, (T, 1)) == (True, frozenset(range(1, 101)))
