"""/v1/drivers: the hardware types berth offers (``fake-hardware``), as Ironic lists them.

``hosts`` are the live conductors (every berth conductor serves every
hardware type; none without a conductor).  From 1.30 a driver has ``type``
(``dynamic``) and, shown in detail (``?detail=true`` or one driver), its
default and enabled implementation of each interface kind
(api.baremetal.schemas.driver).  From 1.77 ``?fields=`` keeps only the named
fields (plus ``links``; 406 before, 400 for a field the answer lacks).
What Ironic serves below a driver (properties, RAID, vendor passthru)
berth does not.
"""

from api.baremetal import fault, policy, query, response, router
from api.baremetal import version as api_version
from api.baremetal.schemas import driver as schema
from api.baremetal.schemas import node as node_schema
from api.common import links as common_links
from common import exception
from common.policies.baremetal import endpoints as rules

DYNAMIC_VERSION = '1.30'
PROPERTIES_LINKS_VERSION = '1.14'
FIELDS_VERSION = api_version.DRIVER_FIELDS
_TOO_OLD = ('Request not acceptable. The minimal required API version should be %s'
            % DYNAMIC_VERSION)


def _hosts(req):
    """The hosts of the live conductors, sorted (none without a conductor)."""
    if req.conductor is None:
        return []
    return sorted(req.conductor.ring.members())


def _body(req, name, hosts, detail):
    base = common_links.base_url(req)
    body = {'name': name, 'hosts': hosts,
            'links': response.links(req, 'drivers', name)}
    if req.version.matches(PROPERTIES_LINKS_VERSION):
        body['properties'] = [
            {'href': '%s/v1/drivers/%s/properties' % (base, name), 'rel': 'self'},
            {'href': '%s/drivers/%s/properties' % (base, name), 'rel': 'bookmark'}]
    if not req.version.matches(DYNAMIC_VERSION):
        return body
    body['type'] = 'dynamic'
    if detail:
        for kind, (enabled, default) in schema.HARDWARE_TYPES[name].items():
            since = schema.DRIVER_INTERFACE_VERSIONS.get(kind)
            if since is None or req.version.matches(since):
                body['default_%s_interface' % kind] = default
                body['enabled_%s_interfaces' % kind] = list(enabled)
    return body


def _fields(req):
    """``?fields`` as a list (None when absent); 406 before 1.77, as Ironic."""
    value = req.GET.get('fields')
    if value is None:
        return None
    if not req.version.matches(FIELDS_VERSION):
        raise fault.NotAcceptable('Request not acceptable.')
    return [f.strip() for f in value.split(',') if f.strip()]


def _selected(body, fields):
    """``body`` with only ``fields`` (and links); 400 naming any it lacks."""
    if fields is None:
        return body
    unknown = sorted(set(fields) - set(body))
    if unknown:
        raise fault.BadRequest('Field(s) "%s" are not valid' % ', '.join(unknown))
    return response.pick(body, fields, always=())


@router.endpoint()
def list_drivers(req):
    query.known_params(req, schema.LIST_PARAMS)
    if 'fields' in req.GET and query.bool_param(req, 'detail'):
        raise fault.BadRequest('Can not specify ?detail=True and fields in the same '
                               'request.')
    policy.authorize(req, rules.DRIVER_GET)
    detail = query.bool_param(req, 'detail')
    kind = req.GET.get('type')
    if (detail is not None or kind is not None) and not req.version.matches(
            DYNAMIC_VERSION):
        raise fault.NotAcceptable(_TOO_OLD)
    fields = _fields(req)
    if kind not in (None, 'classic', 'dynamic'):
        raise fault.BadRequest('"type" filter must be one of "classic" or "dynamic", '
                               'if specified.')
    names = node_schema.DRIVERS if kind != 'classic' else ()
    hosts = _hosts(req)
    return response.send_json({'drivers': [
        _selected(_body(req, n, hosts, bool(detail)), fields) for n in names]})


@router.endpoint()
def get_driver(req):
    policy.authorize(req, rules.DRIVER_GET)
    fields = _fields(req)
    name = req.urlvars['driver']
    if name not in node_schema.DRIVERS:
        raise exception.NotFound('Could not find the following driver(s) or hardware '
                                 'type(s): %s.' % name)
    return response.send_json(_selected(_body(req, name, _hosts(req), True), fields))
