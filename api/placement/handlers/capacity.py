"""GET /capacity (berth extension): how many more consumers of one request fit.

The query string is the request language of GET /allocation_candidates,
read by the same parser at microversion.CAPACITY_REQUEST whatever the
request's own microversion (so a new microversion changes it only when that
line does); ``providers=N`` adds the N root providers holding the most.
The count itself is objects.candidates.counting's.
"""

import re
from typing import Any

from webob import multidict

from api.placement import (
    candidate_request,
    errors,
    fault,
    microversion,
    policy,
    query,
    response,
    router,
)
from common.policies.placement import extensions as rules
from objects.candidates import counting

MAX_PROVIDERS = 1000
_OWN = ('providers',)
# ASCII digits only: str.isdigit() also takes '²', which int() refuses
_NUMBER = re.compile('[0-9]{1,7}')


class _AsQuery:
    """What the query-string parser reads of a request: a version and GET params."""

    def __init__(self, params):
        self.version = microversion.CAPACITY_REQUEST
        self.GET = params


def _bad(text: str) -> fault.BadRequest:
    return fault.BadRequest(text, code=errors.CAPACITY_BAD_QUERY)


def _providers(params: Any) -> int | None:
    values = params.getall('providers')
    if not values:
        return None
    if len(values) > 1:
        raise _bad("Query parameter 'providers' may be given only once.")
    value = values[0]
    if not _NUMBER.fullmatch(value) or not 1 <= int(value) <= MAX_PROVIDERS:
        raise _bad("'providers' must be an integer from 1 to %d; got %r."
                   % (MAX_PROVIDERS, value))
    return int(value)


def parse_params(params: Any) -> tuple[Any, int | None]:
    """(The ResourceRequest of query ``params``, a MultiDict; the ``providers`` count or None)."""
    if 'limit' in params:
        raise _bad("'limit' has no meaning for GET /capacity: every candidate "
                   "is counted.")
    providers = _providers(params)
    rest = multidict.MultiDict((k, v) for k, v in params.items() if k not in _OWN)
    return candidate_request.parse_request(_AsQuery(rest)), providers


def answer(ctx: Any, params: Any) -> dict[str, Any]:
    """The answer's body for query ``params`` (raises fault.BadRequest).

    Shared by the handler and ``berth-manage capacity``, so both say the same.
    """
    request, providers = parse_params(params)
    query.check_names(ctx, request.groups,
                      request.root_required | request.root_forbidden, may_lag=True)
    counted = counting.count(ctx, request)
    unsuffixed = request.group('')
    body = {'resources': dict(unsuffixed.resources) if unsuffixed else {},
            'fits': counted.fits,
            'aggregates': [{'uuid': uuid, 'fits': counted.aggregates[uuid]}
                           for uuid in sorted(counted.aggregates)]}
    if providers is not None:
        body['providers'] = counting.top(counted.roots, providers)
    return body


@router.endpoint(json_reply=True)
def get_capacity(req):
    policy.authorize(req, rules.CAPACITY_SHOW)
    return response.send_json(req, answer(req.context, req.GET), cache=False)
