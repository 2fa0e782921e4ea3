"""Provider summaries of the providers that make up a set of candidates (3.10)."""

import itertools
from typing import Any

import orjson

from objects.candidates import candidate as cmod
from objects.candidates import loader, wire

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
                 whole_trees, all_classes, traits, tree_uuids, ordered=None):
        self.candidates = candidates
        self.providers = providers
        self.trees = trees
        self.class_names = class_names
        self.requested = requested
        self.whole_trees = whole_trees
        self.all_classes = all_classes
        self.traits = traits
        self.tree_uuids = tree_uuids
        # every provider of ``providers`` by id, or None (see chosen())
        self.ordered = ordered

    def chosen(self):
        """The providers to summarise, in id order."""
        chosen = set()
        if self.whole_trees:
            # (comprehensions: a pass over every candidate of an unlimited answer)
            roots = {p.root_id for cand in self.candidates for p in cand.providers}
            ordered = self.ordered
            if ordered is not None and len(roots) * _FILTER_AFTER >= len(ordered):
                # most trees (an unlimited answer): every provider by id, those
                # of the trees kept, rather than a set of them sorted (1.6 M
                # providers at 1,000,000 computes)
                return [p for p in ordered if p.root_id in roots]
            trees = self.trees
            for root_id in roots:
                chosen.update(trees.get(root_id, ()))
        else:
            chosen = {p for cand in self.candidates for p, _ in cand.parts}
        return sorted(chosen, key=cmod.by_id)

    def _summaries(self, chosen=None):
        """(provider uuid, summary dict) pairs; each dict is made on demand."""
        names, requested = self.class_names, self.requested
        all_classes = self.all_classes
        providers = self.providers
        # trait sets repeat across providers: order each once, by trait id as
        # Placement's query returns them (standard traits before custom ones)
        traits_of: dict[frozenset[int], list[str]] = {}
        for p in self.chosen() if chosen is None else chosen:
            resources = {names[rc_id]: {'capacity': inv[_CAPACITY], 'used': inv[_USED]}
                         for rc_id, inv in p.inv.items()
                         if all_classes or rc_id in requested}
            summary: dict[str, Any] = {'resources': resources}
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
        key = _number(('summary', self.all_classes,
                       None if self.all_classes else frozenset(self.requested),
                       self.traits, self.tree_uuids, _names_key(self.class_names)))
        chosen = self.chosen()
        out = [p.memo.get(key) for p in chosen]
        if out.count(None) == len(out):
            # none made yet (the first answer after a start): all of them, no
            # index bookkeeping
            out = self._pieces(chosen)
            for p, piece in zip(chosen, out):
                p.memo[key] = piece
            return out
        missing = [i for i, found in enumerate(out) if found is None]
        if missing:
            made = self._pieces([chosen[i] for i in missing])
            for i, piece in zip(missing, made):
                out[i] = chosen[i].memo[key] = piece
        return out

    def _pieces(self, chosen: list) -> list[bytes]:
        """``"uuid":{summary}`` of each of ``chosen``, the JSON of _summaries' dicts.

        Made from fragments rather than a dict per provider: the index makes
        equal inventories one dict and equal trait sets one dict
        (objects/candidates/shapes.py, index._read_bases), so a region's
        providers share a few ``resources`` and ``traits`` encodings, each
        encoded once here (by the shared object's identity, alive for the
        whole call); a provider's own part is its uuid and its tree's.
        Byte for byte what orjson makes of _summaries' dicts (the tests
        compare the two).
        """
        dumps, text = orjson.dumps, wire.text
        names, requested, all_classes = self.class_names, self.requested, self.all_classes
        providers = self.providers
        res_of: dict[int, bytes] = {}
        traits_of: dict[int, bytes] = {}
        head = b'%s:{"resources":%s'
        if self.traits:
            head += b',"traits":%s'
        if self.tree_uuids:
            head += b',"parent_provider_uuid":%s,"root_provider_uuid":%s'
        head += b'}'
        traits, tree_uuids = self.traits, self.tree_uuids
        out: list[bytes] = []
        append = out.append
        for p in chosen:
            inv = p.inv
            res = res_of.get(id(inv))
            if res is None:
                res = res_of[id(inv)] = dumps(
                    {names[rc_id]: {'capacity': v[_CAPACITY], 'used': v[_USED]}
                     for rc_id, v in inv.items() if all_classes or rc_id in requested})
            uuid = text(p.uuid)
            values = [uuid, res]
            if traits:
                found = traits_of.get(id(p.traits))
                if found is None:
                    # by trait id, as Placement's query returns them
                    found = traits_of[id(p.traits)] = dumps(
                        [p.traits[t] for t in sorted(p.traits)])
                values.append(found)
            if tree_uuids:
                parent = providers.get(p.parent_id) if p.parent_id is not None else None
                values.append(text(parent.uuid) if parent else b'null')
                root = providers.get(p.root_id)
                values.append(uuid if root is None or root is p else text(root.uuid))
            append(head % tuple(values))
        return out


# chosen(): the ordered providers are filtered when the answer's trees are
# at least one in this many of them
_FILTER_AFTER = 8
_NAMES: dict[tuple[tuple[int, str], ...], int] = {}
_NUMBERS = itertools.count()


_KEYS: dict[tuple, int] = {}


def _number(key: tuple) -> int:
    """A small number naming ``key`` (a summary's shape), never re-used.

    Provider.memo is looked up once per provider of an answer: by a number,
    not the tuple it names (a tuple's hash is computed at every look-up).
    """
    found = _KEYS.get(key)
    if found is None:
        if len(_KEYS) > 256:
            _KEYS.clear()
        found = _KEYS.setdefault(key, next(_NUMBERS))
    return found


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
