"""Candidates of requests made of suffixed (granular) groups only, from tree skeletons.

What a tree can offer such a request depends on its amounts only through
capacity: which providers have each group's classes and pass its filters,
which choices of one provider per group ``same_subtree`` and ``isolate``
admit, how each choice reads as allocations and mappings.  That is the
tree's *skeleton* (a tuple of Combo), made once per request shape (the
request without its amounts) and tree, and kept in the index's AnchorMemo
while the tree's providers stay the same objects (see anchor_memo).  A
search then only checks capacity: each combo whose providers can take the
amounts is a candidate, in the order search.Search._anchor made them (the
product of the groups' options in provider order, filtered).

A combo also keeps its wire encodings as templates with a ``%s`` for each
provider's resources (wire._encode), so writing a candidate is one
formatting of bytes.
"""

import itertools

from objects.candidates import loader

# ((class name, amount), ...): what a provider of a candidate is given
Resources = tuple[tuple[str, int], ...]

_FREE = loader.FREE
_MAX_UNIT = loader.MAX_UNIT


class Combo:
    """One choice of a provider per group that the request's shape admits on a tree.

    ``checks``: ((group index, its provider's inventories), ...) of the
    resourced groups; ``layout``: ((Provider, (group index, ...)), ...) of
    the providers with resources, by id, each with the resourced groups it
    serves; ``summed``: some provider serves more than one resourced group
    (its totals are checked again); ``groups`` / ``providers`` /
    ``shared_only``: the Candidate's; ``templates``: {wire shape: its JSON
    with a ``%s`` per layout entry's resources} (wire._encode).
    """
    __slots__ = ('checks', 'layout', 'summed', 'groups', 'providers',
                 'shared_only', 'templates')

    def __init__(self, checks, layout, summed, groups, providers):
        self.checks = checks
        self.layout = layout
        self.summed = summed
        self.groups = groups
        self.providers = providers
        self.shared_only = all(p.sharing for p in providers)
        self.templates = None


def shape_key(plan, drop_nested):
    """What a tree's skeleton depends on besides its providers: the plan without amounts."""
    return ('granular', drop_nested,
            tuple((g.suffix, tuple(rc_id for rc_id, _ in g.amounts), g.required,
                   g.forbidden, g.member_of, g.forbidden_aggs, g.in_tree)
                  for g in plan.groups),
            plan.root_required, plan.root_forbidden, plan.same_subtree, plan.isolate)


class Skeletons:
    """One search's view of the skeletons: its amounts, and the shape's kept skeletons."""

    def __init__(self, search, make):
        """``make(parts, groups, providers, shared_only, combo)`` builds a Candidate."""
        plan = search.plan
        self.search = search
        self.make = make
        self.amounts = Amounts(plan)
        # per group: (index, its classes, whether it filters providers)
        self.specs = [(gi, frozenset(rc_id for rc_id, _ in g.amounts), search._filtered[gi])
                      for gi, g in enumerate(plan.groups)]
        self.suffixes = [g.suffix for g in plan.groups]
        self.resourced = [gi for gi, g in enumerate(plan.groups) if g.amounts]
        self.kept = None
        if search.anchors is not None:
            self.kept = search.anchors.skeletons(shape_key(plan, search.drop_nested))

    def anchor(self, root_id, pool):
        """search.anchor() of the tree rooted at ``root_id`` (``pool``: its providers)."""
        search = self.search
        shared = search.shared.get(root_id)
        if not pool and not shared or not search._root_ok(root_id):
            return ()
        members = tuple(pool) + tuple(shared) if shared else tuple(pool or ())
        kept = self.kept
        # a shared provider's ancestors are not among the members: below a
        # root, its tree may change under it, so same_subtree is decided afresh
        if kept is None or (shared and search.plan.same_subtree
                            and any(p.parent_id is not None for p in shared)):
            combos = skeleton(self, members)
        else:
            found = kept.get(root_id)
            if found is None or found[0] != members:
                found = kept[root_id] = (members, skeleton(self, members))
            combos = found[1]
        if not combos:
            return ()
        return candidates(combos, self.amounts, self.make)


def skeleton(skeletons, pool):
    """The Combos of ``pool`` (a tree's providers, then its shared ones) for the plan."""
    search = skeletons.search
    plan = search.plan
    per_group = []
    passes = search._passes
    for gi, classes, filtered in skeletons.specs:
        options = [p for p in pool if p.inv.keys() >= classes] if classes else pool
        if filtered:
            options = [p for p in options if passes(gi, p)]
        if not options:
            return ()
        per_group.append(options)
    suffixes = skeletons.suffixes
    resourced = skeletons.resourced
    isolate, subtrees, drop_nested = plan.isolate, plan.same_subtree, search.drop_nested
    combos = []
    for choice in itertools.product(*per_group):
        if isolate and len(set(choice)) != len(choice):
            continue
        if subtrees and not search.same_subtrees(choice):
            continue
        served: dict[loader.Provider, tuple[int, ...]] = {}
        for gi in resourced:
            p = choice[gi]
            found = served.get(p)
            if found is None:
                served[p] = (gi,)
            else:
                served[p] = found + (gi,)
        if drop_nested and len(served) > 1:
            if len({p.root_id for p in served}) != len(served):
                continue
        combos.append(Combo(
            tuple([(gi, choice[gi].inv) for gi in resourced]),
            tuple(sorted(served.items(), key=_first_id)),
            len(served) != len(resourced),      # a provider serves two groups
            tuple(zip(suffixes, [(p.uuid,) for p in choice])), frozenset(choice)))
    return tuple(combos)


def template(combo, shape, text):
    """The JSON of ``combo``'s candidates in wire shape DICT or MAPPINGS, as a bytes format.

    A ``%s`` stands for each layout entry's resources: a candidate's JSON
    is ``template % (resources JSON, ...)`` (wire._encode).  ``text`` encodes a
    str (wire._Memo); a ``%`` in it (none in a uuid or a group suffix) is
    escaped.
    """
    found = _template(combo, shape, text.__getitem__)
    if found.count(b'%') != len(combo.layout):
        # some text holds a %: escaped, then the template made again
        found = _template(combo, shape, lambda value: text[value].replace(b'%', b'%%'))
    return found


def _template(combo, shape, get):
    """template() with ``get(str)`` giving each uuid's and suffix's JSON."""
    allocations = b','.join([get(p.uuid) + b':{"resources":%s}' for p, _ in combo.layout])
    if shape == 'dict':
        return b'{"allocations":{' + allocations + b'}}'
    mappings = b','.join([get(suffix) + b':[' + get(uuid) + b']'
                          for suffix, (uuid,) in combo.groups])   # a provider per group
    return b'{"allocations":{' + allocations + b'},"mappings":{' + mappings + b'}}'


def _first_id(item):
    return item[0].id


class Amounts:
    """The amounts of one search: each group's, and the resources of each layout entry."""

    def __init__(self, plan):
        self.amounts = [g.amounts for g in plan.groups]
        self.names = plan.class_names
        self.known = {}         # gis: resources(gis), as found

    def resources(self, gis):
        """((class name, amount), ...) a provider serving groups ``gis`` is given."""
        found = self.known.get(gis)
        if found is None:
            totals: dict[int, int] = {}
            for gi in gis:
                for rc_id, amount in self.amounts[gi]:
                    totals[rc_id] = totals.get(rc_id, 0) + amount
            found = self.known[gis] = tuple(
                (self.names[rc_id], amount) for rc_id, amount in totals.items())
        return found

    def totals(self, gis):
        """{class id: amount} over groups ``gis``."""
        totals: dict[int, int] = {}
        for gi in gis:
            for rc_id, amount in self.amounts[gi]:
                totals[rc_id] = totals.get(rc_id, 0) + amount
        return totals


def candidates(combos, amounts, make):
    """The Candidates of ``combos`` whose providers can take ``amounts`` (an Amounts).

    ``make(parts, groups, providers, shared_only, combo)`` builds one.
    """
    out = []
    per_group = amounts.amounts
    resources = amounts.resources
    known = amounts.known       # resources() found so far (never empty tuples)
    for combo in combos:
        for gi, inv in combo.checks:
            for rc_id, amount in per_group[gi]:
                have = inv[rc_id]
                if (not have[0] <= amount <= have[1] or amount > have[3]
                        or amount % have[2]):
                    break
            else:
                continue
            break
        else:
            if combo.summed and not _totals_fit(combo, amounts):
                continue
            layout = combo.layout
            if len(layout) == 2:
                # a NUMA node and its NIC: most combos of a granular request
                (p, p_gis), (q, q_gis) = layout
                parts: tuple[tuple[loader.Provider, Resources], ...] = (
                    (p, known.get(p_gis) or resources(p_gis)),
                    (q, known.get(q_gis) or resources(q_gis)))
            else:
                parts = tuple([(p, known.get(gis) or resources(gis)) for p, gis in layout])
            out.append(make(parts, combo.groups, combo.providers, combo.shared_only, combo))
    return out


def _totals_fit(combo, amounts):
    for p, gis in combo.layout:
        if len(gis) > 1:
            inv = p.inv
            for rc_id, amount in amounts.totals(gis).items():
                have = inv[rc_id]
                if amount > have[_FREE] or amount > have[_MAX_UNIT]:
                    return False
    return True


