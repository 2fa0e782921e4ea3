"""/v1/chassis: create, list (and /detail), show, JSON-patch and delete chassis
(the nodes of a chassis, /v1/chassis/{chassis}/nodes, are handlers.node's).

As Ironic: ``fields`` needs 1.8 and ``detail`` 1.43 (406 below); a chassis
that still holds nodes is not deleted (400); the ``nodes`` links come as a
list holding the list of links, as Ironic sends them.
"""

from oslo_utils import uuidutils

from api.baremetal import fault, policy, query, response, router, validation
from api.baremetal.schemas import chassis as schema
from api.common import links as common_links
from api.common import response as common_response
from common.policies.baremetal import endpoints as rules
from objects.baremetal import chassis as chassis_obj

FIELDS_VERSION = '1.8'
DETAIL_VERSION = '1.43'


def _check_uuid(value, name):
    if not (isinstance(value, str) and uuidutils.is_uuid_like(value)):
        raise fault.BadRequest('Expected UUID for %s: %s' % (name, value))


def _body(req, chassis, fields=None):
    base = common_links.base_url(req)
    nodes = ['%s/v1/chassis/%s/nodes' % (base, chassis.uuid),
             '%s/chassis/%s/nodes' % (base, chassis.uuid)]
    body = {'uuid': chassis.uuid, 'description': chassis.description,
            'extra': chassis.extra,
            'created_at': common_response.iso(chassis.created_at),
            'updated_at': common_response.iso(chassis.updated_at),
            'links': response.links(req, 'chassis', chassis.uuid),
            # Ironic's shape: one list holding the two links
            'nodes': [[{'href': nodes[0], 'rel': 'self'},
                       {'href': nodes[1], 'rel': 'bookmark'}]]}
    return response.pick(body, fields)


def _fields(req):
    fields = query.fields_param(req, schema.FIELDS)
    if fields is not None and not req.version.matches(FIELDS_VERSION):
        raise fault.NotAcceptable('The fields parameter needs API version %s'
                                  % FIELDS_VERSION)
    return fields


def _list(req, detail):
    policy.authorize(req, rules.CHASSIS_GET)
    query.known_params(req, schema.DETAIL_PARAMS if detail else schema.LIST_PARAMS)
    fields = None
    if not detail:
        fields = _fields(req)
        asked = query.bool_param(req, 'detail')
        if asked is not None and not req.version.matches(DETAIL_VERSION):
            raise fault.NotAcceptable('The detail parameter needs API version %s'
                                      % DETAIL_VERSION)
        if asked and fields is not None:
            raise fault.BadRequest('Can not specify ?detail=True and fields in the '
                                   'same request.')
        if fields is None and not asked:
            fields = schema.DEFAULT_LIST_FIELDS
    if req.GET.get('marker') is not None:
        _check_uuid(req.GET['marker'], 'marker')
    limit, marker, sort_key, sort_dir = query.pagination(req, schema.SORT_KEYS)
    found = chassis_obj.list_chassis(req.context, limit, marker, sort_key, sort_dir)
    items = [_body(req, c, fields) for c in found]
    return response.send_json(response.collection(req, 'chassis', items, limit))


@router.endpoint()
def list_chassis(req):
    return _list(req, detail=False)


@router.endpoint()
def list_chassis_detail(req):
    return _list(req, detail=True)


def _get(req):
    _check_uuid(req.urlvars['chassis'], 'chassis_uuid')
    return chassis_obj.get(req.context, req.urlvars['chassis'])


@router.endpoint()
def get_chassis(req):
    policy.authorize(req, rules.CHASSIS_GET)
    fields = _fields(req)
    return response.send_json(_body(req, _get(req), fields))


@router.endpoint()
def create_chassis(req):
    policy.authorize(req, rules.CHASSIS_CREATE)
    data = validation.json_body(req, schema.CREATE_SCHEMA)
    values: chassis_obj.ChassisValues = {}      # a null field is left out
    if data.get('uuid') is not None:
        _check_uuid(data['uuid'], 'uuid')
        values['uuid'] = data['uuid']
    if data.get('description') is not None:
        values['description'] = data['description']
    if data.get('extra') is not None:
        values['extra'] = data['extra']
    chassis = chassis_obj.create(req.context, values)
    return response.send_json(_body(req, chassis), status=201, headers={
        'location': '%s/v1/chassis/%s' % (common_links.base_url(req), chassis.uuid)})


@router.endpoint()
def update_chassis(req):
    policy.authorize(req, rules.CHASSIS_UPDATE)
    patch = validation.json_body(req)
    chassis = _get(req)
    doc = {'description': chassis.description, 'extra': chassis.extra}
    new = validation.apply_patch(doc, patch, schema.PATCHABLE)
    new.setdefault('description', None)
    new['extra'] = new.get('extra') or {}
    description = new['description']
    if description is not None and (not isinstance(description, str)
                                    or len(description) > 255):
        raise fault.BadRequest('Invalid description %s: a string of at most 255 '
                               'characters' % (description,))
    if not isinstance(new['extra'], dict):
        raise fault.BadRequest('extra must be an object')
    changed: chassis_obj.ChassisValues = {}
    if description != doc['description']:
        changed['description'] = description
    if new['extra'] != doc['extra']:
        changed['extra'] = new['extra']
    chassis = chassis_obj.update(req.context, chassis.uuid, changed)
    return response.send_json(_body(req, chassis))


@router.endpoint()
def delete_chassis(req):
    policy.authorize(req, rules.CHASSIS_DELETE)
    chassis_obj.destroy(req.context, _get(req).uuid)
    return response.no_content()
