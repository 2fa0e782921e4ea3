"""How many more consumers of one resource request fit: greedy over its candidates.

What is counted (doc/source/placement-extensions.md, GET /capacity): every
allocation candidate of the request, as GET /allocation_candidates finds
it (so min_unit, max_unit, step_size, traits, aggregates, in_tree, nested
trees and sharing providers are the search's own rules), is taken in the
search's order (root provider order) and used as many times as the free
capacity of *every* (provider, class) it draws on allows, where free is
``(total - reserved) * allocation_ratio - used``.  What one candidate takes
is subtracted before the next is looked at, so two candidates of one tree
(two NUMA children, one root VCPU pool) and the trees sharing one provider
(a DISK_GB pool) never count the same unit twice.  Greedy, one pass: a
candidate refused once is never refused less later (free only shrinks).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
import dataclasses
from typing import Any

import sqlalchemy as sa

from common.context import RequestContext
from db import api as db_api
from db import models
from objects.candidates import finder
from objects.candidates import request as candidates_request

# one candidate as the count sees it: (its root, {(provider, class): amount})
Demand = tuple[Hashable, Mapping[tuple[str, str], int]]


def greedy(demands: Iterable[Demand], free: Mapping[tuple[str, str], int]) -> dict:
    """{root: how many copies were placed there}, each demand used to the full.

    ``free`` ({(provider, class): free units}) is not changed.
    """
    left = dict(free)
    placed: dict = {}
    for root, need in demands:
        if not need:
            continue
        fits = min(max(left.get(key, 0), 0) // amount for key, amount in need.items())
        if fits <= 0:
            continue
        for key, amount in need.items():
            left[key] -= fits * amount
        placed[root] = placed.get(root, 0) + fits
    return placed


def top(placed: Mapping[str, int], n: int) -> list[dict[str, Any]]:
    """The ``n`` entries with the most fits, ties by uuid, as [{'uuid', 'fits'}]."""
    ranked = sorted(placed.items(), key=lambda item: (-item[1], item[0]))
    return [{'uuid': uuid, 'fits': fits} for uuid, fits in ranked[:n] if fits > 0]


@dataclasses.dataclass
class Answer:
    """The count cloud-wide, per aggregate uuid and per root provider uuid."""
    fits: int
    aggregates: dict[str, int]
    roots: dict[str, int]


def _demands(candidates: Iterable[Any], summaries: Mapping[str, Any]) -> list[Any]:
    """[(root uuid, {(provider uuid, class): amount}, provider uuids)] in search order."""
    out = []
    for cand in candidates:
        need: dict[tuple[str, str], int] = {}
        for provider, resources in cand.parts:
            for name, amount in resources:
                key = (provider.uuid, name)
                need[key] = need.get(key, 0) + amount
        uuids = {p.uuid for p in cand.providers}
        # the anchor tree: the root of a provider that is not shared, else
        # (a candidate of sharing providers only) the first provider's root
        own = [p for p in cand.providers if not p.sharing] or list(cand.providers)
        first = min(own, key=lambda p: p.id)
        root = summaries[first.uuid]['root_provider_uuid']
        roots = {summaries[u]['root_provider_uuid'] for u in uuids}
        out.append((root, need, uuids | roots))
    return out


def _free(summaries: Mapping[str, Any]) -> dict[tuple[str, str], int]:
    return {(uuid, name): int(res['capacity']) - int(res['used'])
            for uuid, summary in summaries.items()
            for name, res in summary['resources'].items()}


@db_api.reader
def _aggregates_of(ctx: RequestContext, uuids: set[str]) -> dict[str, set[str]]:
    """{provider uuid: its aggregate uuids} for ``uuids`` (one statement per 500)."""
    rp = models.ResourceProvider.__table__
    rpa = models.ResourceProviderAggregate.__table__
    agg = models.PlacementAggregate.__table__
    found: dict[str, set[str]] = {}
    ordered = sorted(uuids)
    for i in range(0, len(ordered), 500):
        stmt = (sa.select(rp.c.uuid, agg.c.uuid)
                .select_from(rp.join(rpa, rpa.c.resource_provider_id == rp.c.id)
                             .join(agg, agg.c.id == rpa.c.aggregate_id))
                .where(rp.c.uuid.in_(ordered[i:i + 500])))
        for rp_uuid, agg_uuid in ctx.session.execute(stmt):
            found.setdefault(rp_uuid, set()).add(agg_uuid)
    return found


def count(ctx: RequestContext, request: candidates_request.ResourceRequest) -> Answer:
    """How many more consumers of ``request`` fit, cloud-wide and per aggregate.

    One unlimited candidate search (the scheduler's), one read of the
    aggregates of the providers it names.  Raises ResourceClassNotFound /
    TraitNotFound for unknown names.
    """
    result = finder.get_candidates(ctx, request, finder.Options(
        limit=None, randomize=False, max_candidates=-1, summary_all_classes=False,
        summary_traits=False), may_lag=True)
    summaries = result.summaries
    demands = _demands(result.candidates, summaries)
    free = _free(summaries)
    roots = greedy(((root, need) for root, need, _ in demands), free)
    members = _aggregates_of(ctx, set().union(*(u for _, _, u in demands))) if demands else {}
    by_agg: dict[str, list[Demand]] = {}
    for root, need, uuids in demands:
        for agg in sorted(set().union(*(members.get(u, set()) for u in uuids))):
            by_agg.setdefault(agg, []).append((root, need))
    aggregates = {agg: sum(greedy(found, free).values()) for agg, found in by_agg.items()}
    return Answer(fits=sum(roots.values()), aggregates=aggregates, roots=roots)
