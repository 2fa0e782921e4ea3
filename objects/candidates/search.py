"""The per-anchor search: each group's options, then their valid combinations.

Everything here works on providers already in memory (see loader); a
search over one anchor tree yields its candidates lazily, in a stable order
(groups as planned, providers by id), so a caller can stop after N.
"""

from collections.abc import Iterable
import itertools
from typing import Any

from objects.candidates import candidate as cmod
from objects.candidates import granular as granular_mod
from objects.candidates import loader, trait_sets
from objects.candidates import sharing as sharing_mod

_FREE = loader.FREE
_MAX_UNIT = loader.MAX_UNIT
_has_all = trait_sets.has_all
_meeting = trait_sets.meeting


class Search:
    """Candidate search over loaded providers for one compiled Plan."""

    def __init__(self, plan, providers, sharing, drop_nested=False, trees=None,
                 anchors=None, ordered=None):
        """``sharing``: {sharing provider id: (root id, aggregate ids)}, loaded.

        ``trees`` ({root id: [Provider] by id}, of ``providers``) is built
        when not given; a given one is not changed (add_trees copies it).
        ``anchors`` (an anchor_memo.AnchorMemo, optional) keeps the candidates of trees
        from one search to the next.  ``ordered``: every provider of
        ``providers`` by id, when at hand (the index's), for the summaries.
        """
        self.plan = plan
        self.ordered = ordered
        self.anchors = anchors
        self.providers = providers
        self.drop_nested = drop_nested
        self._own_trees = trees is None
        if trees is None:
            trees = {}
            for p in sorted(providers.values(), key=lambda p: p.id):
                trees.setdefault(p.root_id, []).append(p)
        self.trees = trees
        # {root id: [sharing Provider]}: link()'s, or link_by_root()'s made on
        # demand; _may_share: the roots that may have one
        shared: dict[int, list[loader.Provider]] = {}
        self.shared: dict[int, list[loader.Provider]] | sharing_mod.SharedByRoot = shared
        self._may_share: dict[int, Any] = shared
        self._by_agg: dict[int, list[loader.Provider]] = {}
        for rp_id in sorted(sharing):
            p = providers[rp_id]
            if not p.sharing:
                p.sharing = True
            for agg_id in sharing[rp_id][1]:
                self._by_agg.setdefault(agg_id, []).append(p)
        self._init_caches(plan)

    def link(self, links):
        """Anchor sharing providers on trees: ``links`` is [(root id, aggregate id)].

        A sharing provider anchors on every tree with a provider in one of
        its aggregates (its own tree holds it already).
        """
        found: dict[int, set[loader.Provider]] = {}
        shared = self.shared
        assert isinstance(shared, dict), 'link() after link_by_root()'
        for root_id, agg_id in links:
            for p in self._by_agg.get(agg_id, ()):
                if p.root_id != root_id:
                    found.setdefault(root_id, set()).add(p)
        for root_id, more in found.items():
            have = shared.setdefault(root_id, [])
            have.extend(p for p in more if p not in have)
            have.sort(key=cmod.by_id)
        return sorted(found)

    def link_by_root(self, aggs_by_root):
        """link() as {root id: aggregate ids}, each tree's share found when asked."""
        self.shared = sharing_mod.SharedByRoot(aggs_by_root, self._by_agg)
        self._may_share = aggs_by_root    # most trees: none (a dict lookup, no call)

    def _init_caches(self, plan):
        self._ok: list[dict[int, bool]] = [{} for _ in plan.groups]
        self._lines = {}          # provider id: its ancestors' ids and its own
        self._shapes = [(g.suffix, g.amounts) for g in plan.groups]   # suffix '': unsuffixed
        self._names = plan.class_names
        # groups whose providers need more than a capacity check
        self._filtered = [bool(g.in_tree is not None or g.forbidden or g.member_of
                               or g.forbidden_aggs or (g.granular and g.required))
                          for g in plan.groups]
        self._single = len(plan.groups) == 1 and not plan.groups[0].granular
        self._named = [tuple((rc_id, self._names[rc_id], amount)
                             for rc_id, amount in g.amounts) for g in plan.groups]

        # the unsuffixed group's resources when one provider serves them all
        self._single_resources = tuple((name, amount) for _, name, amount in self._named[0])
        self._patterns = {}       # see _build_single
        # what a tree's candidates depend on besides its providers (Provider.memo key)
        g = plan.groups[0]
        self._anchor_key = ('anchor', self.drop_nested, self._single_resources, g.amounts,
                            g.required, g.forbidden, g.member_of, g.forbidden_aggs,
                            g.in_tree, plan.root_required, plan.root_forbidden)
        self._memo = None
        if self._single and self.anchors is not None:
            self._memo = self.anchors.trees(self._anchor_key)
        # suffixed groups only: candidates from tree skeletons (see granular)
        self._granular = None
        if all(g.granular for g in plan.groups):
            self._granular = granular_mod.Skeletons(self, cmod.Candidate)

    def add_trees(self, providers):
        """Make newly loaded providers (another batch of trees) searchable."""
        if not providers:
            return
        if not self._own_trees:
            self.trees = {root: list(ps) for root, ps in self.trees.items()}
            self._own_trees = True
        for p in sorted(providers, key=lambda p: p.id):
            self.trees.setdefault(p.root_id, []).append(p)

    # -- per-provider filters ---------------------------------------------

    def _passes(self, gi, p):
        cache = self._ok[gi]
        ok = cache.get(p.id)
        if ok is None:
            ok = cache[p.id] = self._check(self.plan.groups[gi], p)
        return ok

    def _check(self, g, p):
        if g.in_tree is not None and p.root_id != g.in_tree:
            return False
        if g.forbidden and not g.forbidden.isdisjoint(p.traits):
            return False
        aggs = p.aggs
        if not g.granular and not p.sharing and (g.member_of or g.forbidden_aggs):
            root = self.providers.get(p.root_id)
            if root is not None and root is not p:
                aggs = aggs | root.aggs
        for any_of in g.member_of:
            if any_of.isdisjoint(aggs):
                return False
        if g.forbidden_aggs and not g.forbidden_aggs.isdisjoint(aggs):
            return False
        if g.granular:
            for any_of in g.required:
                if any_of.isdisjoint(p.traits):
                    return False
        return True

    # -- options ------------------------------------------------------------

    def _unsuffixed_options(self, gi, g, pool):
        filtered = self._filtered[gi]
        if len(pool) == 1:
            return self._lone_options(gi, g, pool[0], filtered)
        per_class = []
        for rc_id, amount in g.amounts:
            found = []
            for p in pool:
                inv = p.inv.get(rc_id)
                if (inv is not None and inv[0] <= amount <= inv[1]
                        and amount <= inv[3] and amount % inv[2] == 0
                        and (not filtered or self._passes(gi, p))):
                    found.append(p)
            if not found:
                return []
            per_class.append(found)
        combos: Iterable[tuple[loader.Provider, ...]]
        if all(len(found) == 1 for found in per_class):
            combos = [tuple(found[0] for found in per_class)]
        else:
            combos = itertools.product(*per_class)
        if not g.required:
            return combos if isinstance(combos, list) else list(combos)
        return _meeting(g.required, per_class, combos)

    def _lone_options(self, gi, g, p, filtered):
        """_unsuffixed_options for a pool of one provider (a lone tree, no sharing)."""
        inv = p.inv
        for rc_id, amount in g.amounts:
            found = inv.get(rc_id)
            if (found is None or not found[0] <= amount <= found[1]
                    or amount > found[3] or amount % found[2]):
                return []
        if filtered and not self._passes(gi, p):
            return []
        if g.required and not _has_all(g.required, p.traits):
            return []
        return [(p,) * len(g.amounts)]

    def _granular_options(self, gi, g, pool):
        # can_serve inlined, before the filters: most of a pool lacks the class
        found = []
        filtered = self._filtered[gi]
        for p in pool:
            inv = p.inv
            for rc_id, amount in g.amounts:
                have = inv.get(rc_id)
                if (have is None or not have[0] <= amount <= have[1]
                        or amount > have[3] or amount % have[2]):
                    break
            else:
                if not filtered or self._passes(gi, p):
                    found.append(p)
        return found

    def _root_ok(self, root_id):
        plan = self.plan
        if not (plan.root_required or plan.root_forbidden):
            return True
        root = self.providers.get(root_id)
        if root is None:
            return False
        return (plan.root_required.issubset(root.traits)
                and plan.root_forbidden.isdisjoint(root.traits))

    # -- combination --------------------------------------------------------

    def anchor(self, root_id):
        """The candidates anchored on the tree rooted at ``root_id`` (an iterable).

        For a request of the unsuffixed group alone that the ``anchors``
        memo admits (see AnchorMemo) they are kept there, with the providers
        they were made of: they hold while the index hands out the same
        Provider objects.
        """
        pool = self.trees.get(root_id)
        if self._granular is not None:
            return self._granular.anchor(root_id, pool)
        if self._memo is None:
            if self._single and pool and len(pool) == 1 and (root_id not in self._may_share
                                                              or root_id not in self.shared):
                return self._lone(pool[0])
            return self._anchor(root_id)
        if not pool:
            return self._anchor(root_id)
        shared = self.shared.get(root_id)
        members = tuple(pool) + tuple(shared) if shared else tuple(pool)
        memo = self._memo
        found = memo.get(root_id)
        if found is None or found[0] != members:
            kept = tuple(self._anchor(root_id))
            for cand in kept:
                cand.json = {}
            found = memo[root_id] = (members, kept)
        return found[1]

    def lone_terms(self) -> tuple | None:
        """What lone.whole needs to make lone trees' candidates itself, or None.

        None unless the request is the unsuffixed group alone and no memo
        keeps the candidates; else (the group, its resources, whether roots
        are checked, whether providers are filtered, the roots that may
        share, and the methods it calls: passes, root check, options, build).
        """
        if self._memo is not None or self._granular is not None or not self._single:
            return None
        plan = self.plan
        return (plan.groups[0], self._single_resources,
                bool(plan.root_required or plan.root_forbidden), self._filtered[0],
                self._may_share, self._passes, self._root_ok, self._unsuffixed_options,
                self._build_single)

    def same_subtrees(self, choice):
        """Whether ``choice`` (a provider per group) meets every same_subtree."""
        for names in self.plan.same_subtree:
            if not cmod.same_subtree({choice[i] for i in names}, self.providers, self._lines):
                return False
        return True

    def _lone(self, p):
        """The candidates of a tree of one provider, no sharing, for the unsuffixed group.

        What _anchor yields for such a tree, without its generator and
        per-group lists: most trees of a region are lone compute nodes."""
        if not self._root_ok(p.id):
            return ()
        g = self.plan.groups[0]
        inv = p.inv
        for rc_id, amount in g.amounts:
            found = inv.get(rc_id)
            if (found is None or not found[0] <= amount <= found[1]
                    or amount > found[3] or amount % found[2]):
                return ()
        if self._filtered[0] and not self._passes(0, p):
            return ()
        if g.required and not _has_all(g.required, p.traits):
            return ()
        return (cmod.Candidate(((p, self._single_resources),), (('', (p.uuid,)),), (p,),
                          p.sharing),)

    def _anchor(self, root_id):
        if not self._root_ok(root_id):
            return
        pool = self.trees.get(root_id, [])
        shared = self.shared.get(root_id)
        if shared:
            pool = pool + shared
        if not pool:
            return
        per_group = []
        for gi, g in enumerate(self.plan.groups):
            if g.granular:
                options = self._granular_options(gi, g, pool)
            else:
                options = self._unsuffixed_options(gi, g, pool)
            if not options:
                return
            per_group.append(options)
        if self._single:
            for option in per_group[0]:
                cand = self._build_single(option)
                if cand is not None:
                    yield cand
            return
        for choice in itertools.product(*per_group):
            cand = self._build(choice)
            if cand is not None:
                yield cand

    def _build_single(self, combo):
        """A candidate of a request made of the unsuffixed group alone."""
        first = combo[0]
        if combo.count(first) == len(combo):
            # one provider serves every class: the common case, kept cheap
            return cmod.Candidate(((first, self._single_resources),),
                             (('', (first.uuid,)),), (first,), first.sharing)
        # which classes go to the same provider: a few patterns per request
        pattern = tuple(map(combo.index, combo))
        found = self._patterns.get(pattern)
        if found is None:
            found = self._patterns[pattern] = self._pattern(pattern)
        firsts, resources = found
        if len(firsts) == 2:
            # two providers (a NUMA node and its compute, a compute and its
            # sharing storage): most candidates of nested trees, kept cheap
            a, b = combo[firsts[0]], combo[firsts[1]]
            if self.drop_nested and a.root_id == b.root_id:
                return None
            if a.id < b.id:
                return cmod.Pair(a, resources[0], b, resources[1], a.sharing and b.sharing)
            return cmod.Pair(b, resources[1], a, resources[0], a.sharing and b.sharing)
        if len(firsts) == 3 and not self.drop_nested:
            # three providers (two NUMA nodes and their compute): a third of a
            # nested region's candidates, ordered by three comparisons
            x = (combo[firsts[0]], resources[0])
            y = (combo[firsts[1]], resources[1])
            z = (combo[firsts[2]], resources[2])
            if x[0].id > y[0].id:
                x, y = y, x
            if y[0].id > z[0].id:
                y, z = z, y
                if x[0].id > y[0].id:
                    x, y = y, x
            a, b, c = x[0], y[0], z[0]
            return cmod.Candidate((x, y, z), (('', tuple(sorted((a.uuid, b.uuid, c.uuid)))),),
                                  (a, b, c), a.sharing and b.sharing and c.sharing)
        per = [(combo[i], r) for i, r in zip(firsts, resources)]
        if self.drop_nested and len({p.root_id for p, _ in per}) != len(per):
            return None
        per.sort(key=_by_provider_id)
        used = tuple(p for p, _ in per)
        return cmod.Candidate(tuple(per), (('', tuple(sorted(p.uuid for p in used))),), used)

    def _pattern(self, pattern):
        """(first position of each provider, its resources) for a combo's ``pattern``.

        ``pattern`` gives for each class of the unsuffixed group the position
        of the first class served by the same provider.
        """
        firsts = tuple(sorted(set(pattern)))
        named = self._named[0]
        return firsts, tuple(tuple((named[i][1], named[i][2]) for i, at in enumerate(pattern)
                                   if at == first) for first in firsts)

    def _build(self, choice):
        plan = self.plan
        shapes = self._shapes
        if plan.isolate:
            granular = [c for (suffix, _), c in zip(shapes, choice) if suffix]
            if len(set(granular)) != len(granular):
                return None
        for names in plan.same_subtree:
            if not cmod.same_subtree({choice[i] for i in names}, self.providers, self._lines):
                return None
        totals: dict[loader.Provider, dict[int, int]] = {}
        mappings = []
        resourceless: tuple[loader.Provider, ...] = ()
        for (suffix, amounts), c in zip(shapes, choice):
            if suffix:
                mappings.append((suffix, (c.uuid,)))
                if not amounts:
                    resourceless += (c,)
                    continue
                per = totals.get(c)
                if per is None:
                    per = totals[c] = {}
                for rc_id, amount in amounts:
                    per[rc_id] = per.get(rc_id, 0) + amount
            else:
                used = []
                for p, (rc_id, amount) in zip(c, amounts):
                    per = totals.setdefault(p, {})
                    per[rc_id] = per.get(rc_id, 0) + amount
                    if p not in used:
                        used.append(p)
                mappings.append(('', tuple(sorted(p.uuid for p in used))))
        if len(shapes) > 1:
            for p, per in totals.items():
                inv = p.inv
                for rc_id, amount in per.items():
                    have = inv[rc_id]
                    if amount > have[_FREE] or amount > have[_MAX_UNIT]:
                        return None
        if self.drop_nested and len(totals) > 1:
            if len({p.root_id for p in totals}) != len(totals):
                return None
        names = self._names
        parts = tuple((p, tuple((names[rc_id], amount) for rc_id, amount in totals[p].items()))
                      for p in sorted(totals, key=cmod.by_id))
        providers = set(totals)
        providers.update(resourceless)
        return cmod.Candidate(parts, tuple(mappings), providers)


def _by_provider_id(item):
    return item[0].id
