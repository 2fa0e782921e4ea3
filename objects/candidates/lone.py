"""Lone trees grouped by inventory: an unlimited search skips the groups no amount fits.

Most trees of a region are one compute node each, and most of those repeat
a few inventories (the index makes equal ones one dict, objects/candidates/shapes.py).
Grouped by that dict, their root ids in one array per group, a search of
the unsuffixed group alone drops every tree of a group whose inventory
cannot serve an amount with one check, without reading those trees'
providers.  Besides the time, this matters to forked API workers
(cli/api_workers.py): in CPython reading an object writes its reference
count, so a search for amounts that few providers fit copied the pages of
every provider object, tree list and id into the worker
(bench/api_workers_memory.py, doc/source/benchmarks.md).

A tree is dropped only when a requested class that no sharing provider
holds is one its provider cannot serve: such a tree has no candidate of the
unsuffixed group (the per-tree search would find none).  Trees of more than
one provider, and sharing providers' own trees, are always visited.
"""

import array
from collections.abc import Iterable
import itertools
import sys
from typing import Any

from objects.candidates import candidate as cmod
from objects.candidates import trait_sets


class LoneGroups:
    """The lone (one-provider, not sharing) trees of one index State by inventory.

    ``groups``: ((inv, array of root ids), ...); ``others``: an array of
    every other root id.  Built once per State, on first use; the arrays
    hold plain numbers (no Python object per tree to write to).
    """
    __slots__ = ('groups', 'others')

    def __init__(self, trees):
        by_inv: dict[int, tuple] = {}
        others = array.array('q')
        for root_id, pool in trees.items():
            if len(pool) == 1 and not pool[0].sharing:
                inv = pool[0].inv
                found = by_inv.get(id(inv))
                if found is None:
                    found = by_inv[id(inv)] = (inv, array.array('q'))
                found[1].append(root_id)
            else:
                others.append(root_id)
        self.groups = tuple(by_inv.values())
        self.others = others


def _fits(inv, amounts):
    """Whether ``inv`` (a provider's) serves every (class id, amount) of ``amounts``."""
    for rc_id, amount in amounts:
        found = inv.get(rc_id)
        if (found is None or not found[0] <= amount <= found[1]
                or amount > found[3] or amount % found[2]):
            return False
    return True


def narrowed(state, plan, roots):
    """``roots`` (in order, the trees an unlimited search visits) less the lone trees
    whose inventory cannot serve ``plan``'s amounts; ``roots`` itself when none is dropped."""
    if len(plan.groups) != 1 or plan.groups[0].granular:
        return roots
    shared = {rc_id for rp_id in state.sharing for rc_id in state.providers[rp_id].inv}
    blockers = tuple((rc_id, amount) for rc_id, amount in plan.groups[0].amounts
                     if rc_id not in shared)
    if not blockers:
        return roots
    lone = state.lone_groups()
    keep = [ids for inv, ids in lone.groups if _fits(inv, blockers)]
    if len(keep) == len(lone.groups):
        return roots
    kept = sorted(itertools.chain(lone.others, *keep))
    if roots is state.roots:
        return kept
    within = set(kept)
    return [root_id for root_id in roots if root_id in within]


def whole(search: Any, roots: Iterable[int], stop: int | None = None) -> list | None:
    """Every candidate of ``roots`` in root order, identical ones (via sharing) once.

    The first ``stop`` of them when ``stop`` is given (trees after those are
    not searched).  finder._unique's list for a search.Search of the
    unsuffixed group alone whose candidates no memo keeps (a request's amounts are new: what a
    scheduler sends): the candidate of each lone tree (one provider, no
    sharing; most trees of a region) is made here, Search._lone's checks in
    line, rather than through Search.anchor's call, generator and tuple
    per tree; other trees' as Search._anchor makes them, without its
    generator.  None when ``search`` is not such a search.
    """
    terms = search.lone_terms()
    if terms is None:
        return None
    (g, resources, root_checked, filtered, may_share, passes, root_ok, options_of,
     build) = terms
    amounts, required = g.amounts, g.required
    trees, shared = search.trees, search.shared
    has_all, make = trait_sets.has_all, cmod.Lone
    found: list = []
    append = found.append
    seen: set = set()
    # whether an inventory serves the amounts, by the inv dict's id: the index
    # makes equal inventories (and usages) one dict (objects/candidates/
    # shapes.py), so most lone trees are judged by one look-up; each dict
    # stays alive (its provider's) for the whole search
    fitting: dict[int, bool] = {}
    if stop is None:
        stop = sys.maxsize
    for root_id in roots:
        if len(found) >= stop:
            return found[:stop]
        pool = trees.get(root_id)
        more = shared.get(root_id) if root_id in may_share else None
        if pool is not None and len(pool) == 1 and not more and not pool[0].sharing:
            p = pool[0]
            inv = p.inv
            ok = fitting.get(id(inv))
            if ok is None:
                ok = fitting[id(inv)] = _fits(inv, amounts)
            if ok:
                if ((not root_checked or root_ok(root_id))
                        and (not filtered or passes(0, p))
                        and (not required or has_all(required, p.traits))):
                    append(make(p, resources))
            continue
        # a tree of several providers, a sharing provider's own, or one that
        # shares: Search._anchor's way, without its generator
        if root_checked and not root_ok(root_id):
            continue
        if more:
            pool = (pool or []) + more
        if not pool:
            continue
        for option in options_of(0, g, pool):
            cand = build(option)
            if cand is None:
                continue
            if cand.shared_only:
                key = cand.key()
                if key in seen:
                    continue
                seen.add(key)
            append(cand)
    return found if len(found) <= stop else found[:stop]
