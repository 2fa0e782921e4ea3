"""Provider summaries of the providers that make up a set of candidates (3.10)."""

import itertools

import orjson

from objects.candidates import candidate as cmod
from objects.candidates import loader

_CAPACITY = loader.CAPACITY
_USED = loader.USED


class Summaries:
    """The summaries of ``candidates``, as a dict or straight as JSON.

    ``whole_trees`` (1.29) lists every provider of every tree that
    contributes, else only the providers in the allocations; ``all_classes``
    (1.27) reports every inventoried class, else only ``requested`` ones;
    ``traits`` (1.17) and ``tree_uuids`` (1.29) add those keys.
    """

    def __init__(self, candidates, providers, trees, class_names, requested, *,
                 whole_trees, all_classes, traits, tree_uuids):
        self.candidates = candidates
        self.providers = providers
        self.trees = trees
        self.class_names = class_names
        self.requested = requested
        self.whole_trees = whole_trees
        self.all_classes = all_classes
        self.traits = traits
        self.tree_uuids = tree_uuids

    def chosen(self):
        """The providers to summarise, in id order."""
        chosen = set()
        if self.whole_trees:
            roots = set()
            for cand in self.candidates:
                for p in cand.providers:
                    roots.add(p.root_id)
            for root_id in roots:
                chosen.update(self.trees.get(root_id, ()))
        else:
            for cand in self.candidates:
                chosen.update(p for p, _ in cand.parts)
        return sorted(chosen, key=cmod.by_id)

    def _summaries(self, chosen=None):
        """(provider uuid, summary dict) pairs; each dict is made on demand."""
        names, requested = self.class_names, self.requested
        all_classes = self.all_classes
        providers = self.providers
        # trait sets repeat across providers: order each once, by trait id as
        # Placement's query returns them (standard traits before custom ones)
        traits_of = {}
        for p in self.chosen() if chosen is None else chosen:
            resources = {names[rc_id]: {'capacity': inv[_CAPACITY], 'used': inv[_USED]}
                         for rc_id, inv in p.inv.items()
                         if all_classes or rc_id in requested}
            summary = {'resources': resources}
            if self.traits:
                key = frozenset(p.traits)
                found = traits_of.get(key)
                if found is None:
                    found = traits_of[key] = [p.traits[t] for t in sorted(p.traits)]
                summary['traits'] = list(found)
            if self.tree_uuids:
                parent = providers.get(p.parent_id) if p.parent_id is not None else None
                root = providers.get(p.root_id)
                summary['parent_provider_uuid'] = parent.uuid if parent else None
                summary['root_provider_uuid'] = root.uuid if root else p.uuid
            yield p.uuid, summary

    def as_dict(self):
        """{provider uuid: summary}."""
        return dict(self._summaries())

    def json_pieces(self):
        """Each provider's ``"uuid":{summary}`` as JSON, a list of bytes.

        Each entry is kept on its provider (Provider.memo): it depends on the
        provider (never changed once searched), its parent's and root's
        uuids (fixed) and the class names (``_names_key``).
        """
        key = ('summary', self.all_classes,
               None if self.all_classes else frozenset(self.requested),
               self.traits, self.tree_uuids, _names_key(self.class_names))
        chosen = self.chosen()
        out = [p.memo.get(key) for p in chosen]
        missing = [i for i, found in enumerate(out) if found is None]
        if missing:
            dumps = orjson.dumps
            made = self._summaries([chosen[i] for i in missing])
            for i, (uuid, summary) in zip(missing, made):
                out[i] = chosen[i].memo[key] = dumps(uuid) + b':' + dumps(summary)
        return out


_NAMES: dict[tuple[tuple[int, str], ...], int] = {}
_NUMBERS = itertools.count()


def _names_key(class_names):
    """A small number naming one {class id: name} mapping (they rarely change)."""
    items = tuple(sorted(class_names.items()))
    found = _NAMES.get(items)
    if found is None:
        if len(_NAMES) > 64:
            _NAMES.clear()
        # never re-used: providers keep entries keyed on old numbers
        found = _NAMES.setdefault(items, next(_NUMBERS))
    return found


def summarize(candidates, providers, trees, class_names, requested, **flags):
    """{provider uuid: summary} for ``candidates`` (see :class:`Summaries`)."""
    return Summaries(candidates, providers, trees, class_names, requested,
                     **flags).as_dict()
