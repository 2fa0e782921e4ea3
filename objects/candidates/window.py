"""A window of allocation candidates for schedule-and-claim: a limited search, no full answer.

The conductor ranks a few dozen candidates, not every one: it reuses the
limited (paged, root-ordered) search of objects.candidates.finder and
stops after ``limit`` candidates.  Where the window starts is the weigher's
choice: ``first`` (the first trees in root order: pack fills them one after
another) or ``random`` (a random tree, wrapping round to the first: spread
and random see a different part of the cloud on every request, so
concurrent schedulers rarely rank the same hosts).  Either way every tree
is reachable, so an empty window means no candidate at all.
"""

from __future__ import annotations

import dataclasses
import random
from types import ModuleType

import sqlalchemy as sa

from common.context import RequestContext
from db import api as db_api
from db import models
from objects.candidates import finder
from objects.candidates import request as candidates_request

_RP = models.ResourceProvider.__table__

FIRST = 'first'
RANDOM = 'random'
STARTS = (FIRST, RANDOM)


def options(limit: int | None, max_candidates: int = -1) -> finder.Options:
    """Search options of a window: ``limit`` candidates, lean summaries."""
    return finder.Options(limit=limit, max_candidates=max_candidates,
                          summary_traits=False, summary_all_classes=False,
                          summary_trees=False)


def _merge(first, rest, limit):
    """``first``'s candidates, then ``rest``'s not already there, up to ``limit``."""
    seen = {c.key() for c in first.candidates}
    found = list(first.candidates)
    for cand in rest.candidates:
        if len(found) >= limit:
            break
        if cand.key() not in seen:
            found.append(cand)
    named = {u for c in found for u in c.allocations}
    named.update(u for c in found for uuids in c.mappings.values() for u in uuids)
    summaries = {u: s for u, s in rest.summaries.items() if u in named}
    summaries.update(first.summaries)
    return finder.Result(found, summaries)


@db_api.reader
def search(ctx: RequestContext, request: candidates_request.ResourceRequest, opts: finder.Options,
           start: str = FIRST, rng: random.Random | ModuleType = random) -> finder.Result:
    """Up to ``opts.limit`` candidates for ``request``, starting where ``start`` says.

    ``opts`` are allocation_candidate.Options with a ``limit`` (see
    :func:`options`).  Raises ResourceClassNotFound / TraitNotFound as the
    candidate search does.
    """
    if start == FIRST or opts.limit is None:
        return finder.get_candidates(ctx, request, opts)
    top = ctx.session.execute(sa.select(sa.func.max(_RP.c.root_provider_id))).scalar()
    if top is None:
        return finder.Result([], {})
    after = rng.randint(0, top)
    first = finder.get_candidates(ctx, request, dataclasses.replace(opts, start_after=after))
    if len(first.candidates) >= opts.limit:
        return first
    # wrap round: the trees up to ``after``, read from the first one
    return _merge(first, finder.get_candidates(ctx, request, opts), opts.limit)
