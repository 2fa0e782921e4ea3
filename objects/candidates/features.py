"""Which trees can hold a trait or a resource class: the trees a search need visit.

A tree (an anchor: its own providers plus the sharing providers anchored on
it, see sharing) yields no candidate unless its providers have

* every requested class: a provider with inventory of it (a group's
  options are empty otherwise, unsuffixed or granular);
* for each ``required`` any-of set of each group, a provider with one of its
  traits (the unsuffixed group needs it among the providers that serve it,
  a granular group on its one provider: either way in the tree's pool);
* every ``root_required`` trait: on the root, so in the tree.

So a search over the provider index (objects/candidates/index) visits only
the trees every such *clause* admits: a necessary condition, never a
sufficient one.  The search's exact checks still decide every visited tree
(forbidden traits, root_forbidden, aggregates, in_tree and capacity narrow
nothing here), so the answer, and its order (root id), are the same as
when every tree is visited.

A *feature* is a trait or a class; its entry is the set of roots whose tree
has it, or, for a feature most trees have, the set of roots whose tree
lacks it (``has`` False): at 100,000 computes a set costs ~4 MB, and the
common features (VCPU, the traits every compute reports) would need one
each.  Entries are built from the index's providers on the first unlimited
search that asks (one pass over the providers), then carried to each newly
published State: only the trees a refresh touched (providers re-read,
created, deleted or moved) are looked at again, and an entry is copied only
when one of them changes its membership.  Entries depend on what the
provider rows pin down (traits, inventory classes, the tree), never on
usage.  A sharing provider's features reach every tree it anchors on: that
part is worked out per State (its links change with any aggregate write).
"""

from collections.abc import Hashable
import itertools
import threading

TRAIT, CLASS = 't', 'c'
_LISTS = 16               # narrowed root lists kept per State (by clauses)
# the entries hold at most this many roots per tree in all (~40 bytes a root
# in a frozenset): the oldest are dropped, built again when asked
KEPT_PER_TREE = 8
# a refresh touching more trees than this, and over a quarter of them, drops
# the entries instead of carrying them
_REBUILD_AFTER = 64


def clauses(plan):
    """The plan's clauses: a frozenset of any-of tuples of features."""
    found: set[tuple[tuple[str, Hashable], ...]] = set()
    for g in plan.groups:
        for rc_id, _ in g.amounts:
            found.add(((CLASS, rc_id),))
        for any_of in g.required:
            found.add(tuple(sorted((TRAIT, t) for t in any_of)))
    for t in plan.root_required:
        found.add(((TRAIT, t),))
    return frozenset(found)


def _has(p, feature):
    kind, ident = feature
    return ident in (p.traits if kind == TRAIT else p.inv)


def _tree_has(tree, feature):
    return tree is not None and any(_has(p, feature) for p in tree)


class Features:
    """The feature entries of one State, and its narrowed root lists.

    ``_entries``: {feature: (has, frozenset of root ids)}; entries never
    change once stored (a carried one is copied before it changes).
    """

    def __init__(self, entries=None):
        self._entries = dict(entries) if entries else {}
        self._effective = {}      # feature: its entry with the sharing links, this State's
        self._any_of = {}         # clause of several features: its entry, this State's
        self._lists = {}
        self._lock = threading.Lock()

    def snapshot(self):
        """{feature: (has, roots)} as built or carried (no sharing links), a copy."""
        with self._lock:
            return dict(self._entries)

    def carried(self, state, touched):
        """The entries for ``state``, a refresh of this one's; ``touched``: roots to look at.

        ``touched`` holds every root, old or new, of the providers the
        refresh re-read, created or dropped.
        """
        with self._lock:
            entries = dict(self._entries)
        if not touched:
            return Features(entries)
        if len(touched) > _REBUILD_AFTER and 4 * len(touched) > len(state.trees):
            # most trees changed: built again when asked, as cheap as carried
            return Features()
        trees = state.trees
        for feature, (has, roots) in entries.items():
            new = None
            for root_id in touched:
                tree = trees.get(root_id)
                want = _tree_has(tree, feature)
                if not has:
                    want = tree is not None and not want
                if (root_id in roots) != want:
                    if new is None:
                        new = set(roots)
                    if want:
                        new.add(root_id)
                    else:
                        new.discard(root_id)
            if new is not None:
                entries[feature] = (has, frozenset(new))
        return Features(entries)

    def entry(self, state, feature, build=True):
        """``feature``'s (has, roots) over trees and sharing links; None when not built."""
        with self._lock:
            found = self._effective.get(feature)
            if found is not None:
                return found
            found = self._entries.get(feature)
        if found is None:
            if not build:
                return None
            found = _build(state, feature)
            with self._lock:
                found = self._entries.setdefault(feature, found)
                self._evict(KEPT_PER_TREE * len(state.trees))
        linked = self._linked_roots(state, feature)
        if linked:
            has, roots = found
            found = (True, roots | linked) if has else (False, roots - linked)
        with self._lock:
            self._effective[feature] = found
        return found

    def _evict(self, limit):
        """Drop the oldest entries while they hold more than ``limit`` roots (locked)."""
        total = sum(len(roots) for _, roots in self._entries.values())
        while total > limit and len(self._entries) > 1:
            feature = next(iter(self._entries))
            total -= len(self._entries.pop(feature)[1])
            self._effective.pop(feature, None)
            self._any_of.clear()

    def _linked_roots(self, state, feature):
        """Roots a sharing provider with ``feature`` anchors on (their pools hold it)."""
        aggs = set()
        for rp_id, (_, p_aggs) in state.sharing.items():
            if _has(state.providers[rp_id], feature):
                aggs |= p_aggs
        if not aggs:
            return None
        shared = {a for _, p_aggs in state.sharing.values() for a in p_aggs}
        return frozenset(root_id for root_id, linked in state.links_by_root(shared).items()
                         if not aggs.isdisjoint(linked))

    def _clause(self, state, clause, build):
        """(has, roots) of an any-of clause; None when an entry is not built."""
        if len(clause) == 1:
            return self.entry(state, clause[0], build)
        with self._lock:
            found = self._any_of.get(clause)
        if found is not None:
            return found
        parts = [self.entry(state, f, build) for f in clause]
        if any(part is None for part in parts):
            return None
        have = [roots for has, roots in parts if has]
        lack = sorted((roots for has, roots in parts if not has), key=len)
        if not lack:
            found = True, frozenset().union(*have)
        else:       # lacking all of them: lacking each
            found = False, frozenset(r for r in lack[0] if all(r in other for other in lack[1:])
                                     and not any(r in roots for roots in have))
        with self._lock:
            if len(self._any_of) >= _LISTS:
                self._any_of.clear()
            self._any_of[clause] = found
        return found

    def roots(self, state, plan):
        """The roots an unlimited search over ``state`` visits, in order (a list)."""
        key = clauses(plan)
        if not key:
            return state.roots
        with self._lock:
            found = self._lists.get(key)
        if found is not None:
            return found
        have, lack = self._sets(state, key, True)
        if have:
            found = sorted(_narrowed(have[0], have[1:], lack))
        elif lack:
            found = list(_narrowed(state.roots, (), lack))
        else:
            found = state.roots
        with self._lock:
            if len(self._lists) >= _LISTS:
                self._lists.clear()
            self._lists[key] = found
        return found

    def filter(self, state, plan, roots):
        """``roots`` (in order) less those the built entries rule out, lazily.

        For limited searches: builds no entry (a limited search visits a
        few dozen trees; a pass over every provider would cost more than it
        saves).
        """
        have, lack = self._sets(state, clauses(plan), False)
        if not have and not lack:
            return roots
        return _narrowed(roots, have, lack)

    def _sets(self, state, key, build):
        """([root sets a tree must be in, smallest first], [root sets it must not be in]).

        A set of trees lacking a feature that holds under an eighth of the
        trees is left out: looking every tree up in it costs more than
        visiting the few it rules out.
        """
        have, lack = [], []
        least = len(state.trees) // 8
        for clause in key:
            part = self._clause(state, clause, build)
            if part is None:
                continue
            if part[0]:
                have.append(part[1])
            elif len(part[1]) > least:
                lack.append(part[1])
        have.sort(key=len)
        return have, lack


def _narrowed(roots, have, lack):
    """``roots`` that are in every set of ``have`` and in none of ``lack`` (an iterator)."""
    found = iter(roots)
    for roots_in in have:
        found = filter(roots_in.__contains__, found)
    for roots_out in lack:
        found = itertools.filterfalse(roots_out.__contains__, found)
    return found


def tree_roots(state, feature):
    """The roots of ``state``'s trees with a provider that has ``feature`` (one pass)."""
    return {p.root_id for p in state.providers.values() if _has(p, feature)}


def _build(state, feature):
    """(has, roots) of ``feature`` over ``state``'s trees (no sharing links)."""
    has = tree_roots(state, feature)
    if 2 * len(has) <= len(state.trees):
        return True, frozenset(has)
    return False, frozenset(r for r in state.trees if r not in has)
