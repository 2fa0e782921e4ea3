"""Provider summaries of the providers that make up a set of candidates (3.10)."""

from objects.candidates import loader

_CAPACITY = loader.CAPACITY
_USED = loader.USED


def summarize(candidates, providers, trees, class_names, requested, *,
              whole_trees, all_classes, traits, tree_uuids):
    """{provider uuid: summary} for ``candidates``.

    ``whole_trees`` (1.29) lists every provider of every tree that
    contributes, else only the providers in the allocations; ``all_classes``
    (1.27) reports every inventoried class, else only ``requested`` ones;
    ``traits`` (1.17) and ``tree_uuids`` (1.29) add those keys.
    """
    chosen = set()
    if whole_trees:
        roots = set()
        for cand in candidates:
            for p in cand.providers:
                roots.add(p.root_id)
        for root_id in roots:
            chosen.update(trees.get(root_id, ()))
    else:
        for cand in candidates:
            chosen.update(p for p in cand.providers if p.uuid in cand.allocations)
    out = {}
    traits_of = {}     # trait sets repeat across providers: sort each once
    for p in sorted(chosen, key=_by_id):
        if all_classes:
            resources = {class_names[rc_id]: {'capacity': inv[_CAPACITY],
                                              'used': inv[_USED]}
                         for rc_id, inv in p.inv.items()}
        else:
            resources = {class_names[rc_id]: {'capacity': inv[_CAPACITY],
                                              'used': inv[_USED]}
                         for rc_id, inv in p.inv.items() if rc_id in requested}
        summary = {'resources': resources}
        if traits:
            key = frozenset(p.traits)
            names = traits_of.get(key)
            if names is None:
                names = traits_of[key] = sorted(p.traits.values())
            summary['traits'] = list(names)
        if tree_uuids:
            parent = providers.get(p.parent_id) if p.parent_id is not None else None
            root = providers.get(p.root_id)
            summary['parent_provider_uuid'] = parent.uuid if parent else None
            summary['root_provider_uuid'] = root.uuid if root else p.uuid
        out[p.uuid] = summary
    return out


def _by_id(p):
    return p.id
