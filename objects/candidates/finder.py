"""Allocation candidates: which sets of providers could serve a resource request.

The search is driven by anchor trees in root-id order.  Without ``limit``
(or with randomisation) it searches every tree of the provider index
(objects/candidates/index.py), brought up to date in the search's own
snapshot; with ``limit`` it walks the index's trees when the index is
current for free (no commit since its refresh), else reads batches of trees
from the database's root index; either way it stops as soon as enough
candidates exist, so the cost follows N.  When the change token read
before the search proves the index current and the request's names were
read under that same token (plan.NameCache), the answer comes from memory
with no transaction at all (PostgreSQL: one statement per request, the
token's).  See objects/candidates/ for the parts.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
import dataclasses
import random
from typing import Any

import orjson

from common import exception
from common.context import RequestContext
from db import api as db_api
from objects.candidates import answer_cache, capacity, loader, lone
from objects.candidates import candidate as cmod
from objects.candidates import index as index_mod
from objects.candidates import plan as plan_mod
from objects.candidates import request as candidates_request
from objects.candidates import search as search_mod
from objects.candidates import summary as summary_mod
from objects.placement import resource_class as rc_obj

_FIRST_BATCH = 32
# a limited search brings a published index up to date (a narrow scan of every
# provider and of the usage, then the changed ones re-read) instead of reading
# its trees from the database when it stops after at least 1/_REFRESH_SHARE of
# the providers: nova's limit=1000 after a claim cost ~2x the CPU that way at
# 1,000 computes (38 against 18 ms) and ~1.6x at 10,000 (61 against 37 ms); at
# limit=50 and 1,000 computes the two ways cost the same
_REFRESH_SHARE = 20


@dataclasses.dataclass
class Options:
    """How to search and what the summaries carry (by microversion and config)."""
    limit: int | None = None
    nested_aware: bool = True            # 1.29
    randomize: bool = False              # [placement] randomize_allocation_candidates
    max_candidates: int = -1             # [placement] max_allocation_candidates
    breadth_first: bool = False          # ... generation_strategy
    summary_traits: bool = True          # 1.17
    summary_all_classes: bool = True     # 1.27
    summary_trees: bool = True           # 1.29
    start_after: int | None = None              # a limited search skips roots <= this id
    indexed: bool = True                 # whole answers from the provider index


class Result:
    """Candidates (candidate.Candidate, in answer order) and their provider summaries.

    ``summaries`` is given as a dict or as a summary.Summaries, turned into
    the dict on first use or written straight as JSON by summary_pieces().
    """

    def __init__(self, candidates, summaries, token=None):
        self.candidates = candidates
        self._summaries = summaries
        # the change token known to name the snapshot this answer was read
        # in (None: unknown); objects/candidates/answer_cache keys on it
        self.token = token

    @property
    def summaries(self) -> dict[str, Any]:
        """{provider uuid: summary}."""
        if isinstance(self._summaries, summary_mod.Summaries):
            self._summaries = self._summaries.as_dict()
        return self._summaries

    def summary_pieces(self) -> list[bytes]:
        """Each summary's ``"uuid":{...}`` as JSON bytes (see wire.answer_json)."""
        if isinstance(self._summaries, summary_mod.Summaries):
            return self._summaries.json_pieces()
        return [orjson.dumps(uuid) + b':' + orjson.dumps(summary)
                for uuid, summary in self._summaries.items()]


def _hopeless(plan):
    """A group that cannot match anything (unknown aggregate set, unknown tree)."""
    return any(g.in_tree == -1 or any(not s for s in g.member_of)
               for g in plan.groups)


def get_candidates(ctx: RequestContext, request: candidates_request.ResourceRequest,
                   options: Options | None = None, may_lag: bool = False,
                   token: Any = answer_cache.READ) -> Result:
    """The allocation candidates for ``request`` (a ResourceRequest).

    ``may_lag``: the caller accepts an answer a little behind the primary
    (GET /allocation_candidates): read on the replica when one is configured
    (doc/source/architecture.md, "Where reads go").  Inside a caller's transaction
    (the conductor's schedule-and-claim) the search joins it either way.
    ``token``: ``ctx.db.change_token()`` as the caller read it just before,
    outside any transaction (the answer cache's); by default read here.
    Raises ResourceClassNotFound / TraitNotFound for unknown names.
    """
    # a change token read before this transaction's snapshot begins, and
    # equal to one read after, names that snapshot (objects/candidates/index)
    outer = not db_api.in_transaction(ctx)
    if not outer or ctx.db.replica_engine is not None:
        # (with a replica the token is the search's own snapshot: see _search)
        token = None
    elif token is answer_cache.READ:
        token = ctx.db.change_token()
    options = options or Options()
    if token is not None and options.indexed:
        result = _in_memory(ctx, request, options, token)
        if result is not None:
            return result
    search = _search_may_lag if may_lag else _search_primary
    return search(ctx, request, options, outer, token)


def _in_memory(ctx, request, options, token):
    """The answer from memory alone, when ``token`` proves it current, else None.

    ``token`` was read outside any transaction: it names the committed
    state at that moment.  Names read in a snapshot ``token`` named
    (plan.NameCache) and an index state refreshed in one (index.State) both
    describe that state: the answer needs no transaction and no statement.
    """
    names = plan_mod.names_for(ctx.db).get(token, request)
    if names is None:
        return None
    plan = plan_mod.compile_request(ctx, request, names)
    if not plan.groups or _hopeless(plan):
        return Result([], {}, token)
    state = index_mod.for_database(ctx.db).if_current(token, plan.sharing_trait)
    if state is None:
        return None
    stop = _stop_after(options)
    search, found = _from_index(state, plan, options, stop,
                                stop is None or options.breadth_first)
    return _result(search, found, plan, options, token)


def _search(ctx, request, options, outer, token):
    if outer and not ctx.db.is_sqlite:
        # one snapshot for the index refresh and the search (the servers'
        # sessions are READ COMMITTED: a snapshot per statement)
        ctx.session.connection(execution_options={'isolation_level': 'REPEATABLE READ'})
    watched = ctx.db.replica_engine is None
    if outer and not watched:
        # the watcher's connection may reach another server than this
        # session's (the replica, a multi-host URL, or the primary when a
        # name is rechecked there): the token is this snapshot's own
        token = ctx.db.snapshot_token(ctx)
    names = plan_mod.read_names(ctx, request)
    if token is not None and watched:
        if ctx.db.change_token() != token:
            token = None
        else:
            # read in the snapshot the token names (see _in_memory)
            plan_mod.names_for(ctx.db).remember(token, names)
    plan = plan_mod.compile_request(ctx, request, names)
    if not plan.groups or _hopeless(plan):
        return Result([], {}, token)
    stop = _stop_after(options)
    whole = stop is None or options.breadth_first
    state = None
    if options.indexed:
        index = index_mod.for_database(ctx.db)
        # a limited search uses the index when it is current for free, or
        # when the search would read a good share of the trees anyway
        refresh = whole or (stop is not None and index.size()
                            and stop * _REFRESH_SHARE >= index.size())
        state = (index.current(ctx, token, plan.sharing_trait) if refresh
                 else index.if_current(token, plan.sharing_trait))
    if state is not None:
        search, found = _from_index(state, plan, options, stop, whole)
    else:
        search, found = _from_database(ctx, plan, options, stop, whole)
    return _result(search, found, plan, options, token)


def _result(search, found, plan, options, token):
    found = _finish(found, options)
    summaries = summary_mod.Summaries(
        found, search.providers, search.trees, plan.class_names, plan.class_ids,
        whole_trees=options.summary_trees, all_classes=options.summary_all_classes,
        traits=options.summary_traits, tree_uuids=options.summary_trees,
        ordered=search.ordered)
    return Result(found, summaries, token)


_search_primary = db_api.reader(_search)
# a name the replica does not know yet is looked up again on the primary
_search_may_lag = db_api.lagging_reader(
    recheck_on=(exception.ResourceClassNotFound, exception.TraitNotFound))(_search)


def _from_index(state, plan, options, stop, whole):
    """(Search over the index's ``state``, its candidates in order)."""
    search = search_mod.Search(plan, state.providers, state.sharing,
                               not options.nested_aware and state.nested,
                               trees=state.trees, anchors=state.anchors,
                               ordered=state.ordered)
    shared_aggs = {a for _, aggs in state.sharing.values() for a in aggs}
    search.link_by_root(state.links_by_root(shared_aggs))
    # only the trees that hold every requested class and required trait
    # (objects/candidates/features): the search still checks each one
    if whole:
        roots = lone.narrowed(state, plan, state.features.roots(state, plan))
        return search, _whole(search, stop, options, roots)
    roots = state.roots
    if options.start_after is not None:
        roots = roots[bisect.bisect_right(roots, options.start_after):]
    roots = state.features.filter(state, plan, roots)
    found = lone.whole(search, roots, stop)
    return search, found if found is not None else _take(_unique(search, roots), stop)


def _from_database(ctx, plan, options, stop, whole):
    """(Search over the trees read for it, its candidates in order)."""
    sharing = loader.sharing_providers(ctx, plan.sharing_trait)
    providers: dict[int, loader.Provider] = {}
    loader.load_trees(ctx, sorted({root for root, _ in sharing.values()}),
                      plan.needs_aggregates, into=providers)
    drop_nested = not options.nested_aware and loader.has_nested(ctx)
    search = search_mod.Search(plan, providers, sharing, drop_nested)
    shared_aggs = {a for _, aggs in sharing.values() for a in aggs}
    if whole:
        # every tree that can matter, one statement per table
        new = []
        if plan.class_ids:
            new = loader.load_trees_with_classes(ctx, plan.class_ids,
                                                 plan.needs_aggregates, providers)
        shared_roots = search.link(loader.linked_roots(ctx, shared_aggs))
        new += loader.load_trees(ctx, shared_roots, plan.needs_aggregates, providers)
        search.add_trees(new)
        return search, _whole(search, stop, options)
    return search, _take(_paged(ctx, plan, search, providers, shared_aggs, stop,
                                after=options.start_after), stop)


def _whole(search, stop, options, roots=None):
    """Candidates of ``roots`` (default: every tree the search knows), in root order.

    Or breadth-first.
    """
    if roots is None:
        roots = sorted(search.trees)
    if options.breadth_first and stop is not None:
        return _breadth_first(search, roots, stop)
    found = lone.whole(search, roots)
    return found if found is not None else list(_unique(search, roots))


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
    seen = set()
    found: list[cmod.Candidate] = []
    iters = [iter(search.anchor(r)) for r in roots]
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
        in_page = set(sql_roots)
        in_page.update(search.link(loader.linked_roots(ctx, shared_aggs, after, upper)))
        page = sorted(in_page)
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
def providers_with_capacity(ctx: RequestContext, resources: Mapping[str, int]) -> set[int]:
    """Ids of the providers that alone can serve every {class name: amount}.

    The same capacity rule as the candidate search (3.1), for
    ``GET /resource_providers?resources=``.  Raises ResourceClassNotFound.
    """
    ids = rc_obj.ids_by_name(ctx, set(resources))
    return capacity.provider_ids(
        ctx, {ids[name]: amount for name, amount in resources.items()})
