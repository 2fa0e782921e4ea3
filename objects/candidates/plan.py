"""Compile a parsed ResourceRequest into ids the search works with."""

import dataclasses
import threading

import sqlalchemy as sa

from common import exception
from db import models
from objects.candidates import per_database
from objects.placement import aggregate as agg_obj

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'

_AGG = models.PlacementAggregate.__table__
_RP = models.ResourceProvider.__table__
_TRAIT = models.Trait.__table__
_RC = models.ResourceClass.__table__


@dataclasses.dataclass
class Group:
    """One request group in ids.

    ``amounts`` is a tuple of (class id, amount); ``required`` a tuple of
    any-of frozensets of trait ids; ``member_of`` a tuple of any-of frozensets
    of aggregate ids (an unknown aggregate makes an empty set: matches
    nothing); ``in_tree`` a root id, or -1 when the named provider does not
    exist (nothing matches).
    """
    suffix: str
    amounts: tuple
    required: tuple
    forbidden: frozenset
    member_of: tuple
    forbidden_aggs: frozenset
    in_tree: int | None = None

    @property
    def granular(self):
        return self.suffix != ''


@dataclasses.dataclass
class Plan:
    """Everything the search needs, in ids."""
    groups: list                     # unsuffixed first, then suffixed by suffix
    class_ids: frozenset             # every requested class
    class_names: dict                # id -> name, every class in the database
    root_required: frozenset = frozenset()
    root_forbidden: frozenset = frozenset()
    same_subtree: tuple = ()         # of tuples of group indexes
    isolate: bool = False
    sharing_trait: int | None = None        # id of MISC_SHARES_VIA_AGGREGATE

    @property
    def needs_aggregates(self):
        return any(g.member_of or g.forbidden_aggs for g in self.groups)


# built once: constructing statements per request costs more than running these
_UUIDS: sa.BindParameter[list[str]] = sa.bindparam('uuids', expanding=True)
_AGG_IDS = sa.select(_AGG.c.uuid, _AGG.c.id).where(_AGG.c.uuid.in_(_UUIDS))
_TREE_ROOTS = sa.select(_RP.c.uuid, _RP.c.root_provider_id).where(_RP.c.uuid.in_(_UUIDS))
_CLASS_NAMES = sa.select(_RC.c.id, _RC.c.name)
_TRAIT_IDS = (sa.select(_TRAIT.c.name, _TRAIT.c.id)
              .where(_TRAIT.c.name.in_(sa.bindparam('names', expanding=True))))


def _agg_ids(ctx, uuids):
    """{canonical uuid: frozenset of the ids of the aggregates spelled so}."""
    if not uuids:
        return {}
    found: dict[str, frozenset[int]] = {}
    rows = ctx.session.execute(_AGG_IDS, {'uuids': agg_obj.spellings(uuids)}).all()
    for stored, agg_id in rows:
        key = agg_obj.canonical(stored)
        found[key] = found.get(key, frozenset()) | {agg_id}
    return found


def _tree_roots(ctx, uuids):
    if not uuids:
        return {}
    return dict(ctx.session.execute(_TREE_ROOTS, {'uuids': sorted(uuids)}).all())


@dataclasses.dataclass(frozen=True)
class Names:
    """What compiling a request reads from the database (never changed once built).

    ``class_names`` is every class (id -> name); the others hold the names
    and uuids looked up, each mapped to its id, or to None when the
    database has none.
    """
    class_names: dict
    trait_ids: dict          # name -> id or None
    agg_ids: dict            # aggregate uuid -> frozenset of ids (its spellings) or None
    tree_roots: dict         # provider uuid -> its root's id or None

    def covers(self, wanted):
        traits, aggs, trees = wanted
        return (traits <= self.trait_ids.keys() and aggs <= self.agg_ids.keys()
                and trees <= self.tree_roots.keys())

    def merged(self, other):
        """These names and ``other``'s (both read in the same committed state)."""
        return Names(other.class_names, {**self.trait_ids, **other.trait_ids},
                     {**self.agg_ids, **other.agg_ids},
                     {**self.tree_roots, **other.tree_roots})

    def __len__(self):
        return len(self.trait_ids) + len(self.agg_ids) + len(self.tree_roots)


def wanted(request):
    """(Trait names, aggregate uuids, tree uuids) ``request`` names (the sharing trait too)."""
    agg_uuids, tree_uuids = set(), set()
    for g in request.groups:
        for any_of in g.member_of:
            agg_uuids |= set(any_of)
        agg_uuids |= set(g.forbidden_aggs)
        if g.in_tree:
            tree_uuids.add(g.in_tree)
    return _requested_traits(request) | {SHARING_TRAIT}, agg_uuids, tree_uuids


def _requested_traits(request):
    names = set(request.root_required) | set(request.root_forbidden)
    for g in request.groups:
        names |= g.trait_names
    return names


def read_names(ctx, request):
    """The :class:`Names` ``request`` needs, read in ``ctx``'s transaction."""
    traits, aggs, trees = wanted(request)
    class_names = dict(ctx.session.execute(_CLASS_NAMES).all())
    found = dict(ctx.session.execute(_TRAIT_IDS, {'names': sorted(traits)}).all())
    agg_ids, roots = _agg_ids(ctx, aggs), _tree_roots(ctx, trees)
    return Names(class_names, {t: found.get(t) for t in traits},
                 {u: agg_ids.get(u) for u in aggs}, {u: roots.get(u) for u in trees})


def compile_request(ctx, request, names=None):
    """A :class:`Plan` for ``request`` (objects.candidates.request.ResourceRequest).

    ``names``: the :class:`Names` it needs (see :class:`NameCache`), else
    they are read, inside the caller's reader transaction.  Raises
    ResourceClassNotFound / TraitNotFound for unknown names.
    """
    groups = sorted(request.groups, key=lambda g: (g.suffix != '', g.suffix))
    if names is None:
        names = read_names(ctx, request)
    class_names = names.class_names
    class_ids = {name: rc_id for rc_id, name in class_names.items()}
    for g in groups:
        for name in sorted(g.resources):
            if name not in class_ids:
                raise exception.ResourceClassNotFound(name=name)
    trait_ids = names.trait_ids
    missing = {t for t in _requested_traits(request) if trait_ids.get(t) is None}
    if missing:
        raise exception.TraitNotFound(names=', '.join(sorted(missing)))
    sharing = trait_ids.get(SHARING_TRAIT)
    aggs = {u: i for u, i in names.agg_ids.items() if i is not None}
    roots = names.tree_roots
    compiled = []
    for g in groups:
        compiled.append(Group(
            suffix=g.suffix,
            amounts=tuple((class_ids[n], a) for n, a in sorted(g.resources.items())),
            required=tuple(frozenset(trait_ids[t] for t in any_of)
                           for any_of in g.required),
            forbidden=frozenset(trait_ids[t] for t in g.forbidden),
            member_of=tuple(frozenset(i for u in any_of if u in aggs for i in aggs[u])
                            for any_of in g.member_of),
            forbidden_aggs=frozenset(i for u in g.forbidden_aggs if u in aggs
                                     for i in aggs[u]),
            in_tree=(_or(roots.get(g.in_tree), -1) if g.in_tree else None)))
    index = {g.suffix: i for i, g in enumerate(compiled)}
    return Plan(
        groups=compiled,
        class_ids=frozenset(rc for g in compiled for rc, _ in g.amounts),
        class_names=class_names,
        root_required=frozenset(trait_ids[t] for t in request.root_required),
        root_forbidden=frozenset(trait_ids[t] for t in request.root_forbidden),
        same_subtree=tuple(tuple(index[s] for s in suffixes)
                           for suffixes in request.same_subtree),
        isolate=request.group_policy == 'isolate',
        sharing_trait=sharing)


def _or(value, default):
    return default if value is None else value


class NameCache:
    """The :class:`Names` read in the committed state one change token names.

    Ids and names change only by commits: names read in a snapshot that
    token is known to name (db/change.py) hold for as long as the
    database's token stays equal.  A new token replaces the entry.
    """

    MAX_NAMES = 4096          # names and uuids kept for one token

    def __init__(self):
        self._lock = threading.Lock()
        self._token: object = None         # a change token (db/change.py)
        self._names: Names | None = None    # read at self._token

    def get(self, token, request):
        """The Names for ``request`` when known for ``token``, else None (no I/O)."""
        with self._lock:
            names, known = self._names, self._token
        if (token is None or known != token or names is None
                or not names.covers(wanted(request))):
            return None
        return names

    def remember(self, token, names):
        """Keep ``names``, read in the snapshot ``token`` names."""
        if token is None:
            return
        with self._lock:
            if (self._token == token and self._names is not None
                    and len(self._names) + len(names) <= self.MAX_NAMES):
                self._names = self._names.merged(names)
            elif self._token != token or self._names is None:
                self._token, self._names = token, names


# names_for(db): the process's NameCache of ``db``
names_for = per_database.PerDatabase(NameCache)
