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
    for p in sorted(chosen, key=lambda p: p.id):
        resources = {}
        for rc_id, inv in p.inv.items():
            if all_classes or rc_id in requested:
                resources[class_names[rc_id]] = {'capacity': inv[_CAPACITY],
                                                 'used': inv[_USED]}
        summary = {'resources': resources}
        if traits:
            summary['traits'] = sorted(p.traits.values())
        if tree_uuids:
            parent = providers.get(p.parent_id) if p.parent_id is not None else None
            root = providers.get(p.root_id)
            summary['parent_provider_uuid'] = parent.uuid if parent else None
            summary['root_provider_uuid'] = root.uuid if root else p.uuid
        out[p.uuid] = summary
    return out
