"""/v1/nodes: create, list (and /detail), show, JSON-patch and delete nodes."""

import dataclasses

from oslo_utils import uuidutils

from api.baremetal import common, fault, policy
from api.baremetal.policies import endpoints as rules
from objects.baremetal import node as node_obj

DRIVERS = ('fake-hardware', 'manual-management', 'ipmi', 'redfish')

# fields shown only from a version on (older clients never see them)
_FIELD_VERSIONS = {'name': '1.5', 'resource_class': '1.21', 'traits': '1.37',
                   'fault': '1.42', 'conductor': '1.49', 'owner': '1.50',
                   'description': '1.51', 'allocation_uuid': '1.52'}
_LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state', 'provision_state',
                'maintenance')
_OBJECT = {'type': ['object', 'null']}
_STRING = {'type': ['string', 'null'], 'maxLength': 255}

CREATE_SCHEMA = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']}, 'name': _STRING,
        'driver': {'type': 'string', 'maxLength': 255},
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'properties': _OBJECT, 'extra': _OBJECT, 'driver_info': _OBJECT,
        'instance_info': _OBJECT, 'owner': _STRING,
        'description': {'type': ['string', 'null'], 'maxLength': 4096},
    },
    'required': ['driver'],
    'additionalProperties': False,
}
_PATCHABLE = {'name': True, 'resource_class': True, 'instance_uuid': True,
              'instance_info': True, 'properties': True, 'extra': True,
              'owner': True, 'driver_info': True, 'description': True}


def _iso(when):
    return None if when is None else when.isoformat() + '+00:00'


def represent(req, node, fields=None, detail=True):
    body = {
        'uuid': node.uuid, 'name': node.name, 'driver': node.driver,
        'resource_class': node.resource_class,
        'provision_state': node.provision_state,
        'target_provision_state': node.target_provision_state,
        'provision_updated_at': _iso(node.provision_updated_at),
        'power_state': node.power_state,
        'target_power_state': node.target_power_state,
        'maintenance': node.maintenance,
        'maintenance_reason': node.maintenance_reason, 'fault': node.fault,
        'instance_uuid': node.instance_uuid, 'instance_info': node.instance_info,
        'properties': node.properties, 'driver_info': node.driver_info,
        'driver_internal_info': {}, 'extra': node.extra, 'owner': node.owner,
        'description': node.description, 'last_error': node.last_error,
        'reservation': node.reservation, 'conductor': node.conductor_affinity,
        'conductor_group': '', 'console_enabled': False, 'chassis_uuid': None,
        'clean_step': {}, 'deploy_step': {}, 'protected': False,
        'protected_reason': None, 'retired': False, 'retired_reason': None,
        'traits': node.traits, 'allocation_uuid': node.allocation_uuid,
        'created_at': _iso(node.created_at), 'updated_at': _iso(node.updated_at),
        'links': common.links(req, 'nodes', node.uuid),
    }
    for field, since in _FIELD_VERSIONS.items():
        if not req.version.matches(since):
            body.pop(field)
    if fields is None and not detail:
        fields = _LIST_FIELDS
    return common.pick(body, fields)


def allowed_fields(req):
    fields = set(represent(req, _SAMPLE))
    fields.discard('links')
    return fields


_SAMPLE = node_obj.Node(**{f.name: None for f in dataclasses.fields(node_obj.Node)})


@common.endpoint()
def create_node(req):
    policy.authorize(req, rules.NODE_CREATE)
    data = common.json_body(req, CREATE_SCHEMA)
    values = {k: v for k, v in data.items() if v is not None}
    if values['driver'] not in DRIVERS:
        raise fault.BadRequest('Could not find the following driver(s) or hardware '
                               'type(s): %s.' % values['driver'])
    common.check_name(values.get('name'))
    if 'name' in values and uuidutils.is_uuid_like(values['name']):
        raise fault.BadRequest('A node name cannot look like a UUID: %s'
                               % values['name'])
    if 'uuid' in values and not uuidutils.is_uuid_like(values['uuid']):
        raise fault.BadRequest('Expected a UUID but received %s.' % values['uuid'])
    if not req.version.matches('1.11'):
        values['provision_state'] = node_obj.AVAILABLE
    node = node_obj.create(req.context, values, mirror=common.mirrors(req))
    return common.send_json(represent(req, node), status=201, headers={
        'location': '%s%s/v1/nodes/%s' % (req.host_url, req.script_name, node.uuid)})


def _list(req, detail):
    policy.authorize(req, rules.NODE_LIST)
    fields = common.fields_param(req, allowed_fields(req))
    if detail and fields is not None:
        raise fault.BadRequest("Can not specify ?detail=True and fields in the same "
                               "request.")
    limit, marker, sort_key, sort_dir = common.pagination(
        req, node_obj.SORT_KEYS)
    filters = {k: req.GET.get(k) for k in ('resource_class', 'provision_state',
                                           'owner', 'driver', 'instance_uuid')}
    filters['maintenance'] = common.bool_param(req, 'maintenance')
    filters['associated'] = common.bool_param(req, 'associated')
    if common.bool_param(req, 'detail'):
        detail = True
    nodes = node_obj.list_nodes(req.context, filters, limit, marker, sort_key,
                                sort_dir)
    items = [represent(req, n, fields, detail) for n in nodes]
    return common.send_json(common.collection(req, 'nodes', items, limit))


@common.endpoint()
def list_nodes(req):
    return _list(req, detail=False)


@common.endpoint()
def list_nodes_detail(req):
    return _list(req, detail=True)


@common.endpoint()
def get_node(req):
    policy.authorize(req, rules.NODE_GET)
    fields = common.fields_param(req, allowed_fields(req))
    node = node_obj.get(req.context, req.urlvars['node'])
    return common.send_json(represent(req, node, fields))


def _check_patched(values):
    common.check_name(values.get('name'))
    rc = values.get('resource_class')
    if rc is not None and (not isinstance(rc, str) or len(rc) > 80):
        raise fault.BadRequest('Invalid resource_class %s: a string of at most 80 '
                               'characters' % (rc,))
    inst = values.get('instance_uuid')
    if inst is not None and not (isinstance(inst, str) and uuidutils.is_uuid_like(inst)):
        raise fault.BadRequest('Expected a UUID for instance_uuid but received %s.'
                               % (inst,))
    for key in ('instance_info', 'properties', 'extra', 'driver_info'):
        if key in values and not isinstance(values[key], dict):
            raise fault.BadRequest('%s must be an object' % key)
        if key in values and values[key] is None:
            values[key] = {}
    for key in ('owner', 'description'):
        if values.get(key) is not None and not isinstance(values[key], str):
            raise fault.BadRequest('%s must be a string' % key)


@common.endpoint()
def update_node(req):
    policy.authorize(req, rules.NODE_UPDATE)
    patch = common.json_body(req)
    node = node_obj.get(req.context, req.urlvars['node'])
    doc = {k: getattr(node, k) for k in _PATCHABLE}
    new = common.apply_patch(doc, patch, _PATCHABLE)
    for key in _PATCHABLE:
        new.setdefault(key, None)  # a removed top-level field becomes null
    changed = {k: v for k, v in new.items() if v != doc[k]}
    _check_patched(changed)
    if changed:
        node = node_obj.update(req.context, node.uuid, changed,
                               mirror=common.mirrors(req))
    return common.send_json(represent(req, node))


@common.endpoint()
def delete_node(req):
    policy.authorize(req, rules.NODE_DELETE)
    node_obj.destroy(req.context, req.urlvars['node'], mirror=common.mirrors(req))
    return common.no_content()
