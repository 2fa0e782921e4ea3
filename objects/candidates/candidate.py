"""One candidate (allocation request) in tuples, and the tests one provider or subtree passes.

Kept apart from the search (search.py) that makes them: the wire encoding
(wire.py) and the granular skeletons (granular.py) read candidates too.
"""

import operator
from typing import Any


class Candidate:
    """One allocation request, in tuples (cheap to make, thousands per answer).

    ``parts`` is ((Provider, ((class name, amount), ...)), ...) in provider
    id order; ``groups`` is ((suffix, (provider uuid, ...)), ...); the
    ``allocations`` and ``mappings`` properties give the 1.12+ wire dicts.
    ``providers`` are the Provider objects named by either; ``shared_only``
    is true when all of them are sharing providers (only such candidates
    can come out of two anchors).  ``json`` keeps its wire encodings by
    shape (see wire) when the candidate is kept for later searches (a dict
    then; None for the candidates of one answer only).
    """
    __slots__ = ('parts', 'groups', 'providers', 'shared_only', 'json', 'combo')

    def __init__(self, parts, groups, providers, shared_only=None, combo=None):
        self.parts = parts
        self.groups = groups
        self.providers = providers
        if shared_only is None:
            shared_only = all(p.sharing for p in providers)
        self.shared_only = shared_only
        self.json = None
        # the granular.Combo it was made from (its wire templates), or None
        self.combo = combo

    @property
    def allocations(self):
        """{provider uuid: {'resources': {class name: amount}}}, a fresh dict."""
        return {p.uuid: {'resources': dict(resources)} for p, resources in self.parts}

    @property
    def mappings(self):
        """{group suffix: [provider uuid, ...]}, a fresh dict."""
        return {suffix: list(uuids) for suffix, uuids in self.groups}

    def key(self):
        return (tuple(sorted((p.uuid, tuple(sorted(resources)))
                             for p, resources in self.parts)),
                tuple(sorted(self.groups)))



class Lone(Candidate):
    """A Candidate of one provider that is no sharing one, for the unsuffixed group alone.

    What most candidates of a region are (objects/candidates/lone.whole makes
    them): it keeps the provider ``p`` and its ``resources`` alone, and makes
    ``parts`` ((p, resources),) and ``groups`` (('', (p.uuid,)),) when asked
    (the wire encoding and the summaries never ask): five tuples fewer per
    candidate of an unlimited answer.
    """
    __slots__ = ('p', 'resources')

    def __init__(self, p: Any, resources: tuple) -> None:
        self.p = p
        self.resources = resources
        self.providers = (p,)
        self.shared_only = False
        self.json = None
        self.combo = None

    @property
    def parts(self) -> tuple:
        return ((self.p, self.resources),)

    @property
    def groups(self) -> tuple:
        return (('', (self.p.uuid,)),)


class Pair(Candidate):
    """A Candidate of two providers ``a`` and ``b`` (a.id < b.id) for the unsuffixed group alone.

    A compute and its sharing storage, a NUMA node and its compute: kept as
    the two providers and their resources (``ra``, ``rb``), ``parts`` and
    ``groups`` made when asked (the wire encoding never asks).
    """
    __slots__ = ('a', 'ra', 'b', 'rb')

    def __init__(self, a: Any, ra: tuple, b: Any, rb: tuple, shared_only: bool) -> None:
        self.a, self.ra, self.b, self.rb = a, ra, b, rb
        self.providers = (a, b)
        self.shared_only = shared_only
        self.json = None
        self.combo = None

    @property
    def parts(self) -> tuple:
        return ((self.a, self.ra), (self.b, self.rb))

    @property
    def groups(self) -> tuple:
        ua, ub = self.a.uuid, self.b.uuid
        return (('', (ua, ub) if ua < ub else (ub, ua)),)


def can_serve(p, rc_id, amount):
    """Whether ``p`` alone can take ``amount`` of class ``rc_id`` (3.1)."""
    inv = p.inv.get(rc_id)
    return (inv is not None and inv[0] <= amount <= inv[1]
            and amount % inv[2] == 0 and amount <= inv[3])


# a provider's sort key (C-level: sorts of thousands of providers per answer)
by_id = operator.attrgetter('id')


def _ancestors(p, providers):
    seen = []
    while p is not None:
        seen.append(p.id)
        p = providers.get(p.parent_id) if p.parent_id is not None else None
    return seen


def same_subtree(chosen, providers, lines=None):
    """Whether one of ``chosen`` is an ancestor-or-self of all the others.

    ``lines`` ({provider id: its and its ancestors' ids}) keeps them for
    the next call.
    """
    if len(chosen) == 1:
        return True
    for top in chosen:
        if top.parent_id is None:
            # a root is above all the others exactly when they are in its tree
            # (and nothing else is above it)
            return all(p.root_id == top.id for p in chosen)
    if lines is None:
        lines = {}
    found = []
    for p in chosen:
        line = lines.get(p.id)
        if line is None:
            line = lines[p.id] = frozenset(_ancestors(p, providers))
        found.append(line)
    return any(all(top.id in line for line in found) for top in chosen)
