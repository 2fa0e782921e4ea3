"""Allocation candidates: which sets of providers could serve a resource request.

The search is driven by anchor trees in root-id order.  Without ``limit``
(or with randomisation) it loads every tree that can matter in a few
set-based queries; with ``limit`` it reads batches of trees from the root
index and stops as soon as enough candidates exist, so the cost follows N.
See objects/candidates/ for the parts.
"""

import dataclasses
import random

import orjson

from db import api as db_api
from objects import resource_class as rc_obj
from objects.candidates import capacity
from objects.candidates import loader
from objects.candidates import plan as plan_mod
from objects.candidates import search as search_mod
from objects.candidates import summary as summary_mod

_FIRST_BATCH = 32


@dataclasses.dataclass
class Options:
    """How to search and what the summaries carry (by microversion and config)."""
    limit: int = None
    nested_aware: bool = True            # 1.29
    randomize: bool = False              # [placement] randomize_allocation_candidates
    max_candidates: int = -1             # [placement] max_allocation_candidates
    breadth_first: bool = False          # ... generation_strategy
    summary_traits: bool = True          # 1.17
    summary_all_classes: bool = True     # 1.27
    summary_trees: bool = True           # 1.29
    start_after: int = None              # a limited search skips roots <= this id


class Result:
    """Candidates (search.Candidate, in answer order) and their provider summaries.

    ``summaries`` is given as a dict or as a summary.Summaries, turned into
    the dict on first use or written straight as JSON by summaries_json().
    """

    def __init__(self, candidates, summaries):
        self.candidates = candidates
        self._summaries = summaries

    @property
    def summaries(self):
        """{provider uuid: summary}."""
        if isinstance(self._summaries, summary_mod.Summaries):
            self._summaries = self._summaries.as_dict()
        return self._summaries

    def summaries_json(self):
        """The summaries as JSON bytes."""
        if isinstance(self._summaries, summary_mod.Summaries):
            return self._summaries.as_json()
        return orjson.dumps(self._summaries)


def _hopeless(plan):
    """A group that cannot match anything (unknown aggregate set, unknown tree)."""
    return any(g.in_tree == -1 or any(not s for s in g.member_of)
               for g in plan.groups)


@db_api.reader
def get_candidates(ctx, request, options=None):
    """The allocation candidates for ``request`` (a ResourceRequest).

    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    options = options or Options()
    plan = plan_mod.compile_request(ctx, request)
    if not plan.groups or _hopeless(plan):
        return Result([], {})
    sharing = loader.sharing_providers(ctx, plan.sharing_trait)
    providers = {}
    loader.load_trees(ctx, sorted({root for root, _ in sharing.values()}),
                      plan.needs_aggregates, into=providers)
    drop_nested = not options.nested_aware and loader.has_nested(ctx)
    search = search_mod.Search(plan, providers, sharing, drop_nested)
    shared_aggs = {a for _, aggs in sharing.values() for a in aggs}
    stop = _stop_after(options)
    if stop is None or options.breadth_first:
        # the whole answer: every tree that can matter, one statement per table
        new = []
        if plan.class_ids:
            new = loader.load_trees_with_classes(ctx, plan.class_ids,
                                                 plan.needs_aggregates, providers)
        shared_roots = search.link(loader.linked_roots(ctx, shared_aggs))
        new += loader.load_trees(ctx, shared_roots, plan.needs_aggregates, providers)
        search.add_trees(new)
        roots = sorted(search.trees)
        if options.breadth_first and stop is not None:
            found = _breadth_first(search, roots, stop)
        else:
            found = list(_unique(search, roots))
    else:
        found = _take(_paged(ctx, plan, search, providers, shared_aggs, stop,
                             after=options.start_after), stop)
    found = _finish(found, options)
    summaries = summary_mod.Summaries(
        found, providers, search.trees, plan.class_names, plan.class_ids,
        whole_trees=options.summary_trees, all_classes=options.summary_all_classes,
        traits=options.summary_traits, tree_uuids=options.summary_trees)
    return Result(found, summaries)


def _stop_after(options):
    """How many candidates generation may stop at (None: all of them)."""
    bounds = []
    if options.max_candidates is not None and options.max_candidates >= 0:
        bounds.append(options.max_candidates)
    if options.limit is not None and not options.randomize:
        bounds.append(options.limit)
    return min(bounds) if bounds else None


def _unique(search, roots):
    """Candidates of ``roots`` in order, identical ones (via sharing) once."""
    seen = set()
    for root_id in roots:
        for cand in search.anchor(root_id):
            if cand.shared_only:
                key = cand.key()
                if key in seen:
                    continue
                seen.add(key)
            yield cand


def _breadth_first(search, roots, stop):
    """One candidate per anchor per pass until ``stop`` candidates exist."""
    seen, found = set(), []
    iters = [search.anchor(r) for r in roots]
    while iters and len(found) < stop:
        alive = []
        for it in iters:
            for cand in it:
                if cand.shared_only:
                    key = cand.key()
                    if key in seen:
                        continue
                    seen.add(key)
                found.append(cand)
                alive.append(it)
                break
            if len(found) >= stop:
                break
        iters = alive
    return found


def _paged(ctx, plan, search, providers, shared_aggs, stop, after=None):
    """Candidates in root order (from the first root above ``after``), in growing batches."""
    size, seen = max(_FIRST_BATCH, stop), set()
    while True:
        sql_roots, more = loader.roots_with_classes(ctx, plan.class_ids, after=after,
                                                    limit=size)
        upper = sql_roots[-1] if more else None
        page = set(sql_roots)
        page.update(search.link(loader.linked_roots(ctx, shared_aggs, after, upper)))
        page = sorted(page)
        search.add_trees(loader.load_trees(ctx, page, plan.needs_aggregates, providers))
        for root_id in page:
            for cand in search.anchor(root_id):
                if cand.shared_only:
                    key = cand.key()
                    if key in seen:
                        continue
                    seen.add(key)
                yield cand
        if upper is None:
            return
        after, size = upper, size * 2


def _take(iterable, stop):
    if stop is None:
        return list(iterable)
    found = []
    for cand in iterable:
        found.append(cand)
        if len(found) >= stop:
            break
    return found


def _finish(found, options):
    """Apply ``limit`` (first N, or a random N) and the unlimited shuffle."""
    if options.randomize:
        rng = random.SystemRandom()
        if options.limit is not None and options.limit < len(found):
            return rng.sample(found, options.limit)
        found = list(found)
        rng.shuffle(found)
        return found
    if options.limit is not None:
        return found[:options.limit]
    return found


@db_api.reader
def providers_with_capacity(ctx, resources):
    """Ids of the providers that alone can serve every {class name: amount}.

    The same capacity rule as the candidate search (3.1), for
    ``GET /resource_providers?resources=``.  Raises ResourceClassNotFound.
    """
    ids = rc_obj.ids_by_name(ctx, set(resources))
    return capacity.provider_ids(
        ctx, {ids[name]: amount for name, amount in resources.items()})
