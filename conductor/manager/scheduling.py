"""Schedule-and-claim on a conductor: search candidates, rank them, claim the best.

The candidate search is the limited search of GET /allocation_candidates
over a window of ``[scheduler] search_limit`` candidates
(objects.candidates.window: the first trees for pack, a random start for
spread and random), never the full answer.  The claim write is the one of
PUT /allocations (objects.placement.allocation.replace through
:class:`conductor.manager.claims.Claims`), so capacity, unit rules, consumer
generations and quota are checked in the claiming transaction as for any
claim.  Candidates are ranked on the usage read plus what this conductor is
claiming meanwhile (conductor.manager.inflight), so concurrent requests on
one conductor stop choosing the same host.  A candidate taken by a
concurrent claim between the search and the write fails its own
transaction; the conductor then moves on to the next candidate instead of
handing the race back to the client, and searches afresh after
``[scheduler] max_attempts``.
"""

import logging
import random
import threading
from typing import Any

from common import exception, retries
from common.claim_contract import ClaimConsumer
from conductor.manager import inflight, retrying
from conductor.rpcapi import payloads
from objects.candidates import finder, weighers
from objects.candidates import request as candidates_request
from objects.candidates import window as candidate_window
from objects.placement import allocation as placement_alloc

LOG = logging.getLogger('berth.' + __name__)

# a claim that loses to another writer; the next candidate may still fit
_LOST = retrying.RETRYABLE + (exception.InvalidAllocation,)


def _roots(cand):
    """The roots a candidate lands on (its own trees; sharing providers count last)."""
    own = {p.root_id for p in cand.providers if not p.sharing}
    return own or {p.root_id for p in cand.providers}


def _units(choice):
    """``{rp uuid: {class: units}}`` of the candidates of ``choice``, summed."""
    units: dict[str, dict[str, int]] = {}
    for cand in choice:
        for rp, alloc in cand.allocations.items():
            per_rp = units.setdefault(rp, {})
            for rc, amount in alloc['resources'].items():
                per_rp[rc] = per_rp.get(rc, 0) + amount
    return units


def _tree_key(choice, providers):
    """The routing key of a claim (objects.placement.allocation.routing_tree) when the
    candidates already tell it: the first provider (sorted) is a root."""
    first = min(providers)
    for cand in choice:
        for p in cand.providers:
            if p.uuid == first and p.parent_id is None:
                return p.uuid
    return None


def rank(weigher, candidates, summaries):
    """``candidates`` best first by ``weigher`` (ties keep the search order)."""
    scored = [(-weigher.weigh(c.allocations, summaries), i, c)
              for i, c in enumerate(candidates)]
    scored.sort(key=lambda item: item[:2])
    return [c for _, _, c in scored]


def subset_first(ranked, size, rng=random):
    """``ranked`` with its best ``size`` entries in random order (size 1: unchanged)."""
    head = ranked[:size]
    rng.shuffle(head)
    return head + ranked[size:]


def with_pending(summaries, pending):
    """A copy of ``summaries`` with the units of ``pending`` ({rp: {class: n}}) used."""
    adjusted = {}
    for rp_uuid, summary in summaries.items():
        extra = pending.get(rp_uuid, {})
        adjusted[rp_uuid] = {'resources': {
            rc: dict(inv, used=inv['used'] + extra.get(rc, 0))
            for rc, inv in summary['resources'].items()}}
    return adjusted


def best_first(weigher, candidates, summaries, size=1, rng=random):
    """``candidates`` in the order to try them.

    Those that still fit on ``summaries`` (usage plus claims in flight)
    come first, ranked by ``weigher`` with the best ``size`` shuffled
    (``[scheduler] host_subset_size``); those that seem full come last, in
    case the claims that fill them fail.
    """
    ranked = rank(weigher, candidates, summaries)
    fitting = [c for c in ranked if _fits(c, summaries)]
    seem_full = [c for c in ranked if not _fits(c, summaries)]
    return subset_first(fitting, size, rng) + seem_full


def _fits(cand, summaries):
    for rp_uuid, alloc in cand.allocations.items():
        inventories = summaries[rp_uuid]['resources']
        for rc, amount in alloc['resources'].items():
            inv = inventories[rc]
            if inv['used'] + amount > inv['capacity']:
                return False
    return True


def _take(cand, summaries):
    for rp_uuid, alloc in cand.allocations.items():
        for rc, amount in alloc['resources'].items():
            summaries[rp_uuid]['resources'][rc]['used'] += amount


def place_many(weigher, candidates, summaries, count, distinct_roots):
    """Greedy placement of ``count`` consumers: best candidate each, usage updated.

    Returns the chosen candidates, or None when they do not all fit
    (``distinct_roots``: no two on one root provider).
    """
    chosen = []
    used_roots: set[int] = set()
    for _ in range(count):
        for cand in rank(weigher, candidates, summaries):
            if distinct_roots and _roots(cand) & used_roots:
                continue
            if _fits(cand, summaries):
                break
        else:
            return None
        chosen.append(cand)
        used_roots |= _roots(cand)
        _take(cand, summaries)
    return chosen


def _relaxed(request, stage):
    """``request`` with only the constraints up to ``stage`` (see _STAGES)."""
    keep = _STAGES[:_STAGES.index(stage) + 1]
    groups = []
    for g in request.groups:
        if not g.resources and 'same_subtree' not in keep:
            continue
        groups.append(candidates_request.RequestGroup(
            suffix=g.suffix, resources=dict(g.resources),
            required=list(g.required) if 'traits' in keep else [],
            forbidden=set(g.forbidden) if 'traits' in keep else set(),
            member_of=list(g.member_of) if 'member_of' in keep else [],
            forbidden_aggs=set(g.forbidden_aggs) if 'member_of' in keep else set(),
            in_tree=g.in_tree if 'in_tree' in keep else None))
    return candidates_request.ResourceRequest(
        groups=groups,
        group_policy=request.group_policy if 'group_policy' in keep else 'none',
        root_required=request.root_required if 'root_required' in keep else set(),
        root_forbidden=request.root_forbidden if 'root_required' in keep else set(),
        same_subtree=request.same_subtree if 'same_subtree' in keep else [])


_STAGES = ['resources', 'group_policy', 'traits', 'member_of', 'in_tree',
           'root_required', 'same_subtree']

_REASONS = {
    'resources': 'no provider has enough free capacity (within min_unit, '
                 'max_unit and step_size) for the requested resources',
    'group_policy': 'the resources fit, but not with group_policy=isolate',
    'traits': 'no provider with enough free capacity has the required (and '
              'lacks the forbidden) traits',
    'member_of': 'no provider that fits is in the requested aggregates '
                 '(member_of)',
    'in_tree': 'no provider that fits is in the requested tree (in_tree)',
    'root_required': 'no tree that fits has a root with the root_required traits',
    'same_subtree': 'the groups that fit cannot be served within one subtree '
                    '(same_subtree)',
}


def explain(ctx, request):
    """Which constraint empties the candidate set: the first one that, added, does."""
    options = finder.Options(limit=1, summary_traits=False, summary_all_classes=False,
                             summary_trees=False)
    for stage in _STAGES:
        if not finder.get_candidates(ctx, _relaxed(request, stage), options).candidates:
            return _REASONS[stage]
    return 'the candidates disappeared while they were being claimed'


class Scheduler:
    """The schedule-and-claim work of one conductor process."""

    def __init__(self, conf, claims, conductors=lambda: 1):
        """``conductors()`` counts the live conductors (host_subset_size 0)."""
        self.conf = conf
        self.claims = claims
        self.inflight = inflight.InFlight()
        self.max_attempts = conf.scheduler.max_attempts
        self.max_searches = conf.scheduler.max_searches
        self.default_weigher = conf.scheduler.default_weigher
        self._subset_size = conf.scheduler.host_subset_size
        self._conductors = conductors
        self.search_limit = conf.scheduler.search_limit
        self.max_candidates = conf.placement.max_allocation_candidates
        self.lost_races = 0          # claims that lost to a concurrent writer
        self._stats_lock = threading.Lock()

    @property
    def subset_size(self):
        """``[scheduler] host_subset_size``, or the number of live conductors for 0."""
        return self._subset_size or max(1, self._conductors())

    def schedule_and_claim(self, ctx, request, consumers, weigher=None,
                           distinct_roots=False):
        """Place and claim ``consumers`` (dicts: uuid, project_id, user_id, consumer_type).

        ``request`` is a ResourceRequest in primitive form
        (objects.candidates.request.to_primitive).  Returns one ``{'consumer_uuid',
        'allocations'}`` per consumer.  Raises NoValidHost (with the reason),
        QuotaExceeded, ConsumerGenerationConflict (a consumer already holds
        allocations) or Invalid (unknown weigher); nothing is written then.
        """
        request = candidates_request.from_primitive(request)
        weigher = weighers.get(weigher or self.default_weigher)
        tried = 0
        for _ in range(self.max_searches):
            with self.inflight.view() as since:
                result = self._search(ctx, request, weigher, self.search_limit)
                if not result.candidates:
                    raise exception.NoValidHost(reason=explain(ctx, request))
                if len(consumers) == 1:
                    claimed, attempts = self._claim_one(ctx, consumers[0], weigher,
                                                        result, since)
                else:
                    claimed, attempts = self._claim_many(ctx, request, consumers, weigher,
                                                         result, since, distinct_roots)
                tried += attempts
                if claimed:
                    return payloads.claimed_to_primitive(
                        [payloads.ClaimedConsumer(c['uuid'], cand.allocations)
                         for c, cand in zip(consumers, claimed)])
        raise exception.NoValidHost(
            reason='concurrent claims took every candidate tried (%d attempts)' % tried)

    def _search(self, ctx, request, weigher, limit):
        opts = candidate_window.options(limit, self.max_candidates)
        return candidate_window.search(ctx, request, opts, weigher.start)

    def _claim_one(self, ctx: Any, consumer: dict[str, Any], weigher: Any, result: Any,
                   since: Any) -> tuple[list[Any] | None, int]:
        """Try candidates best first, re-ranked after every lost race; (choice, tries).

        The policy (``[scheduler] max_attempts`` claims, none waited for) is
        common.retries.candidate_claims.
        """
        left = list(result.candidates)
        tries = 0
        try:
            for attempt in retries.candidate_claims(self.max_attempts):
                with attempt:
                    if not left:
                        return None, tries
                    tries += 1
                    with self.inflight.choosing(since) as pending:
                        summaries = with_pending(result.summaries, pending)
                        cand = best_first(weigher, left, summaries, self.subset_size)[0]
                        token = self.inflight.hold(_units([cand]))
                    if self._claim(ctx, [consumer], [cand], token):
                        return [cand], tries
                    left.remove(cand)
                    raise retries.Again()
        except retries.Again:
            pass
        return None, tries

    def _claim_many(self, ctx, request, consumers, weigher, result, since, distinct_roots):
        """One greedy placement of every consumer, claimed atomically; (choice, 1)."""
        def place(found):
            with self.inflight.choosing(since) as pending:
                choice = place_many(weigher, found.candidates,
                                    with_pending(found.summaries, pending),
                                    len(consumers), distinct_roots)
                return choice, choice and self.inflight.hold(_units(choice))

        choice, token = place(result)
        if choice is None:
            # the window may be too narrow for them all: look at every candidate
            choice, token = place(self._search(ctx, request, weigher, None))
        if choice is None:
            raise exception.NoValidHost(
                reason='%d consumers do not fit on %s'
                       % (len(consumers), 'distinct root providers'
                          if distinct_roots else 'the candidates'))
        return (choice if self._claim(ctx, consumers, choice, token) else None), 1

    def _claim(self, ctx, consumers, choice, token):
        """Claim one candidate per consumer in one transaction; False if we lost a race.

        ``token`` holds the choice in the in-flight record; released here.
        """
        writes = [ClaimConsumer(c['uuid'], {rp: dict(a['resources'])
                                            for rp, a in cand.allocations.items()},
                                c['project_id'], c['user_id'], c.get('consumer_type'),
                                check_generation=True, generation=None)
                  for c, cand in zip(consumers, choice)]
        committed = False
        try:
            providers = {rp for w in writes for rp in w.allocations}
            tree = _tree_key(choice, providers) or placement_alloc.routing_tree(ctx, providers)
            self.claims.try_claim(ctx, tree, writes)
            committed = True
            return True
        except exception.ConsumerGenerationConflict:
            raise
        except _LOST as exc:
            with self._stats_lock:
                self.lost_races += 1
            LOG.debug('Lost a race for %s on tree %s, trying the next candidate: %s',
                      [w.uuid for w in writes], tree, exc)
            return False
        finally:
            self.inflight.release(token, committed)
