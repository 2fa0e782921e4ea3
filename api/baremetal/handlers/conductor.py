"""/v1/conductors (Ironic API 1.49): the conductor registry, read-only.

Every conductor that registered is listed, alive or dead, until an
operator forgets it (``berth-manage conductor forget``); ``alive`` is
Ironic's: online and heartbeating within ``[conductor] heartbeat_timeout``.
Query parameters, defaults, errors and policy (``baremetal:conductor:get``)
are Ironic's; a conductor is addressed by its hostname, which is also the
pagination marker.
"""

import urllib.parse

from api.baremetal import fault, policy, query, response, router
from api.common import links as common_links
from api.common import response as common_response
from common.policies.baremetal import conductor as rules
from objects.baremetal import conductor as conductor_obj

CONDUCTORS = '1.49'
FIELDS = ('alive', 'conductor_group', 'created_at', 'drivers', 'hostname', 'links',
          'updated_at')
# what a list shows without ?detail or ?fields (plus links)
DEFAULT_FIELDS = ('hostname', 'conductor_group', 'alive')
LIST_PARAMS = ('detail', 'fields', 'limit', 'marker', 'sort_key', 'sort_dir')
UNSORTABLE = ('alive', 'drivers')


def _body(req, conductor, fields, at):
    body = {'hostname': conductor.hostname,
            'conductor_group': conductor.conductor_group,
            'alive': conductor.alive(req.conf.conductor.heartbeat_timeout, at),
            'drivers': conductor.drivers,
            'created_at': common_response.iso(conductor.created_at),
            'updated_at': common_response.iso(conductor.updated_at),
            'links': response.links(req, 'conductors', conductor.hostname)}
    return response.pick(body, fields, always=())


def _next(req, last, limit, found):
    """Ironic's ``next`` link of a full page: the same query from the last hostname."""
    if not found or len(found) < limit:
        return None
    params = [(k, v) for k, v in req.GET.items() if k not in ('marker', 'limit')]
    params += [('limit', str(limit)), ('marker', last)]
    return '%s/v1/conductors?%s' % (common_links.base_url(req), '&'.join(
        '%s=%s' % (k, urllib.parse.quote(v, safe=',')) for k, v in params))


@router.endpoint(min_version=CONDUCTORS)
def list_conductors(req):
    policy.authorize(req, rules.CONDUCTOR_GET)
    query.known_params(req, LIST_PARAMS)
    fields = query.fields_param(req, FIELDS)
    detail = query.bool_param(req, 'detail')
    if fields is not None and detail:
        raise fault.BadRequest('Can not specify ?detail=True and fields in the same '
                               'request.')
    if fields is None and not detail:
        fields = DEFAULT_FIELDS
    sort_key = req.GET.get('sort_key', 'id')
    if sort_key in UNSORTABLE:
        raise fault.BadRequest('The sort_key value %s is an invalid field for sorting'
                               % sort_key)
    limit, marker, sort_key, sort_dir = query.pagination(req, conductor_obj.SORT_KEYS)
    found = conductor_obj.list_conductors(req.context, limit, marker, sort_key, sort_dir)
    at = conductor_obj.now()
    body = {'conductors': [_body(req, c, fields, at) for c in found]}
    link = _next(req, found[-1].hostname if found else None, limit, found)
    if link:
        body['next'] = link
    return response.send_json(body)


@router.endpoint(min_version=CONDUCTORS)
def get_conductor(req):
    policy.authorize(req, rules.CONDUCTOR_GET)
    query.known_params(req, ('fields',))
    fields = query.fields_param(req, FIELDS)
    conductor = conductor_obj.get(req.context, req.urlvars['hostname'])
    return response.send_json(_body(req, conductor, fields, conductor_obj.now()))
