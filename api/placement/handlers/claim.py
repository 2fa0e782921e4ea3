"""POST /claims (berth extension): schedule and claim in one call, on a conductor.

The body carries the resource request of GET /allocation_candidates as JSON;
it is turned back into that query form and parsed by the very same parser,
so the language and its errors are identical.  The conductor owning the
first consumer uuid searches, weighs and claims (conductor.manager.scheduling).
"""

from webob import multidict

from api.common.conductor import require_conductor
from api.placement import (
    candidate_request,
    errors,
    fault,
    microversion,
    policy,
    query,
    response,
    router,
    validation,
)
from api.placement.schemas import claim as schema
from common.policies.placement import extensions as rules
from conductor.rpcapi import payloads
from objects.candidates import request as candidates_request
from objects.candidates import weighers


class _AsQuery:
    """What the query-string parser reads of a request: a version and GET params."""

    def __init__(self, params):
        self.version = microversion.CLAIMS_REQUEST
        self.GET = params


def _group_params(params, suffix, group):
    if 'resources' in group:
        params.add('resources' + suffix, ','.join(
            '%s:%d' % item for item in sorted(group['resources'].items())))
    for key in ('required', 'member_of'):
        for value in group.get(key, ()):
            params.add(key + suffix, value)
    if 'in_tree' in group:
        params.add('in_tree' + suffix, group['in_tree'])


def parse_request(data):
    """The ResourceRequest of a POST /claims body (400 as GET /allocation_candidates)."""
    params = multidict.MultiDict()
    _group_params(params, '', data)
    for suffix, group in sorted(data.get('groups', {}).items()):
        _group_params(params, suffix, group)
    if 'group_policy' in data:
        params.add('group_policy', data['group_policy'])
    if data.get('root_required'):
        params.add('root_required', ','.join(data['root_required']))
    for names in data.get('same_subtree', ()):
        params.add('same_subtree', ','.join(names))
    return candidate_request.parse_request(_AsQuery(params))


def _one_of(data):
    """400 (errors.CLAIM_CONSUMERS) unless exactly one of consumer_uuid(s) is given."""
    given = [name for name in schema.ONE_OF if name in data]
    if len(given) != 1:
        raise fault.BadRequest(
            'Exactly one of consumer_uuid (one consumer) and consumer_uuids (a list) '
            'is required; the body has %s.' % (' and '.join(given) or 'neither'),
            code=errors.CLAIM_CONSUMERS)


def _consumers(data):
    uuids = data.get('consumer_uuids') or [data['consumer_uuid']]
    uuids = [query.normalize_uuid(u) for u in uuids]
    count = data.get('count', len(uuids))
    if count != len(uuids) or len(set(uuids)) != len(uuids):
        raise fault.BadRequest(
            'count %d needs %d distinct consumer uuids (consumer_uuids); got %d.'
            % (count, count, len(set(uuids))))
    return [payloads.ScheduleConsumer(u, data['project_id'], data['user_id'],
                                      data.get('consumer_type')) for u in uuids]


def _weigher(req, data):
    name = data.get('weigher') or req.conf.scheduler.default_weigher
    if name not in weighers.names():
        raise fault.BadRequest('Unknown weigher %r; available weighers: %s.'
                               % (name, ', '.join(weighers.names())))
    return name


@router.endpoint(json_body=True, json_reply=True)
def create_claims(req):
    policy.authorize(req, rules.CLAIMS_CREATE)
    data = validation.extract_json(req, schema.POST_CLAIMS)
    _one_of(data)
    request = parse_request(data)
    query.check_names(req.context, request.groups,
                      request.root_required | request.root_forbidden)
    consumers = _consumers(data)
    name = _weigher(req, data)
    claimed = require_conductor(req).schedule_and_claim(
        req.context, payloads.ScheduleRequest(
            candidates_request.to_primitive(request), consumers, weigher=name,
            distinct_roots=data.get('distinct_roots', False)))
    claims = [dict(c.to_primitive(), project_id=data['project_id'],
                   user_id=data['user_id'], consumer_generation=1) for c in claimed]
    return response.send_json(req, {'claims': claims, 'weigher': name},
                              status=201, cache=False)
