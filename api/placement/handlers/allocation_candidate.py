"""GET /allocation_candidates: parse the request language, search, reply by version."""

import dataclasses
import operator

from api.placement import candidate_request, fault, microversion, policy, response, router
from common import exception, heap
from common.policies.placement import endpoints as rules
from objects.candidates import answer_cache, finder, wire

# an Options as a tuple, for the answer cache's key (dataclasses.astuple deep-copies)
_OPTION_VALUES = operator.attrgetter(*(f.name for f in dataclasses.fields(finder.Options)))


def _options(req, limit):
    conf = req.conf.placement
    version = req.version
    return finder.Options(
        limit=limit, nested_aware=version.matches(microversion.NESTED_CANDIDATES),
        randomize=conf.randomize_allocation_candidates,
        max_candidates=conf.max_allocation_candidates,
        breadth_first=conf.allocation_candidates_generation_strategy == 'breadth-first',
        summary_traits=version.matches(microversion.CANDIDATES_REQUIRED),
        summary_all_classes=version.matches(microversion.SUMMARY_ALL_CLASSES),
        summary_trees=version.matches(microversion.NESTED_CANDIDATES))


def _shape(req):
    if not req.version.matches(microversion.ALLOCATIONS_DICT):
        return wire.LIST
    return wire.MAPPINGS if req.version.matches(microversion.MAPPINGS) else wire.DICT


def _answer(req, request, options, token=answer_cache.READ):
    """(The answer as JSON, a wire.Encoded, the change token of the snapshot it was read in).

    Written from the search's tuples (objects.candidates.wire); the token
    (None: unknown) tells the answer cache which state the answer shows.
    ``token``: the change token the answer cache read just before (the
    search reuses it: on PostgreSQL each read is a round trip).
    An unlimited answer (every candidate of the region) is built with the
    cyclic collector paused (common/heap.collection_paused): its walks over
    a growing answer were half the CPU at 100,000 computes.
    """
    if options.limit is not None and not options.randomize:
        return _build(req, request, options, token)
    with heap.collection_paused():
        return _build(req, request, options, token)


def _build(req, request, options, token):
    # a little lag is fine: the claim that follows checks capacity on the primary
    result = finder.get_candidates(req.context, request, options, may_lag=True,
                                   token=token)
    summaries = result.summary_pieces()
    candidates, token = list(result.candidates), result.token
    del result           # the candidates are freed as they are encoded
    if options.limit is None and len(candidates) > wire.STREAM_AFTER:
        # encoded while it is sent: never the whole body at once
        return wire.Streamed(candidates, _shape(req), summaries), token
    requests = wire.request_pieces(candidates, _shape(req), consume=True)
    return wire.answer(requests, summaries), token


@router.endpoint(microversion.ALLOCATION_CANDIDATES, json_reply=True)
def list_allocation_candidates(req):
    policy.authorize(req, rules.ALLOCATION_CANDIDATES_LIST)
    request = candidate_request.parse_request(req)
    options = _options(req, request.limit)
    try:
        if options.randomize:
            body = _answer(req, request, options)[0]
        else:
            cache = answer_cache.for_database(
                req.context.db, req.conf.placement.allocation_candidates_cache_size)
            key = (str(req.version), req.query_string, _OPTION_VALUES(options))
            token = req.context.db.change_token()
            body = cache.get(req.context.db, key,
                             lambda: _answer(req, request, options, token), token)
    except exception.ResourceClassNotFound as exc:
        raise fault.BadRequest(
            'Invalid resource class in resources parameter: %s' % exc.message)
    except exception.TraitNotFound as exc:
        raise fault.BadRequest('Invalid query string parameters: %s' % exc.message)
    return response.send_encoded(req, body)
