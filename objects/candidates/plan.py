"""Compile a parsed ResourceRequest into ids the search works with."""

import dataclasses

import sqlalchemy as sa

from common import exception
from db import models

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
    in_tree: int = None

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
    sharing_trait: int = None        # id of MISC_SHARES_VIA_AGGREGATE

    @property
    def needs_aggregates(self):
        return any(g.member_of or g.forbidden_aggs for g in self.groups)


# built once: constructing statements per request costs more than running these
_UUIDS = sa.bindparam('uuids', expanding=True)
_AGG_IDS = sa.select(_AGG.c.uuid, _AGG.c.id).where(_AGG.c.uuid.in_(_UUIDS))
_TREE_ROOTS = sa.select(_RP.c.uuid, _RP.c.root_provider_id).where(_RP.c.uuid.in_(_UUIDS))
_CLASS_NAMES = sa.select(_RC.c.id, _RC.c.name)
_TRAIT_IDS = (sa.select(_TRAIT.c.name, _TRAIT.c.id)
              .where(_TRAIT.c.name.in_(sa.bindparam('names', expanding=True))))


def _agg_ids(ctx, uuids):
    if not uuids:
        return {}
    return dict(ctx.session.execute(_AGG_IDS, {'uuids': sorted(uuids)}).all())


def _tree_roots(ctx, uuids):
    if not uuids:
        return {}
    return dict(ctx.session.execute(_TREE_ROOTS, {'uuids': sorted(uuids)}).all())


def compile_request(ctx, request):
    """A :class:`Plan` for ``request`` (objects.candidates.request.ResourceRequest).

    Raises ResourceClassNotFound / TraitNotFound for unknown names.  Must
    run inside a reader transaction.
    """
    groups = sorted(request.groups, key=lambda g: (g.suffix != '', g.suffix))
    class_names = dict(ctx.session.execute(_CLASS_NAMES).all())
    class_ids = {name: rc_id for rc_id, name in class_names.items()}
    for g in groups:
        for name in sorted(g.resources):
            if name not in class_ids:
                raise exception.ResourceClassNotFound(name=name)
    trait_names = set(request.root_required) | set(request.root_forbidden)
    agg_uuids, tree_uuids = set(), set()
    for g in groups:
        trait_names |= g.trait_names
        for any_of in g.member_of:
            agg_uuids |= set(any_of)
        agg_uuids |= set(g.forbidden_aggs)
        if g.in_tree:
            tree_uuids.add(g.in_tree)
    trait_ids = dict(ctx.session.execute(
        _TRAIT_IDS, {'names': sorted(trait_names | {SHARING_TRAIT})}).all())
    missing = trait_names - set(trait_ids)
    if missing:
        raise exception.TraitNotFound(names=', '.join(sorted(missing)))
    sharing = trait_ids.get(SHARING_TRAIT)
    aggs = _agg_ids(ctx, agg_uuids)
    roots = _tree_roots(ctx, tree_uuids)
    compiled = []
    for g in groups:
        compiled.append(Group(
            suffix=g.suffix,
            amounts=tuple((class_ids[n], a) for n, a in sorted(g.resources.items())),
            required=tuple(frozenset(trait_ids[t] for t in any_of)
                           for any_of in g.required),
            forbidden=frozenset(trait_ids[t] for t in g.forbidden),
            member_of=tuple(frozenset(aggs[u] for u in any_of if u in aggs)
                            for any_of in g.member_of),
            forbidden_aggs=frozenset(aggs[u] for u in g.forbidden_aggs if u in aggs),
            in_tree=(roots.get(g.in_tree, -1) if g.in_tree else None)))
    index = {g.suffix: i for i, g in enumerate(compiled)}
    return Plan(
        groups=compiled,
        class_ids=frozenset(rc for g in compiled for rc, _ in g.amounts),
        class_names=class_names,
        root_required=frozenset(trait_ids[t] for t in request.root_required),
        root_forbidden=frozenset(trait_ids[t] for t in request.root_forbidden),
        same_subtree=tuple(tuple(index[s] for s in names)
                           for names in request.same_subtree),
        isolate=request.group_policy == 'isolate',
        sharing_trait=sharing)

