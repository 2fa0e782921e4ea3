"""/v1/nodes: create, list (and /detail), show, JSON-patch and delete nodes."""

import re

from oslo_utils import uuidutils

from api.baremetal import backend, fault, policy, query, response, router, validation
from api.baremetal import version as api_version
from api.baremetal.policies import endpoints as rules
from api.baremetal.schemas import node as schema
from api.common.conductor import require_conductor
from common import exception
from objects.baremetal import allocation as alloc_obj
from objects.baremetal import node as node_obj


def holder(req, node):
    """``(uuid, conductor_affinity)`` of the allocation holding ``node``.

    The node writes that end it go to that conductor (conductor.rpcapi).
    """
    try:
        alloc = alloc_obj.get(req.context, node.allocation_uuid)
    except exception.AllocationNotFound:   # gone meanwhile: route by the uuid
        return node.allocation_uuid, None
    return alloc.uuid, alloc.conductor_affinity


# Ironic's conductor group: letters, digits, ``_``, ``-`` and ``.``; stored lower case
_CONDUCTOR_GROUP = re.compile(r'^[a-zA-Z0-9_.-]*$')


def _conductor_group(req, values):
    """Check and lower-case a ``conductor_group`` being set (406 below 1.46)."""
    if 'conductor_group' not in values:
        return
    if not req.version.matches(api_version.CONDUCTOR_GROUP):
        raise fault.NotAcceptable('The conductor_group field needs API version %s'
                                  % api_version.CONDUCTOR_GROUP)
    group = values['conductor_group']
    if group is None:
        values['conductor_group'] = ''
        return
    if not isinstance(group, str) or len(group) > 255 or not _CONDUCTOR_GROUP.match(group):
        raise fault.BadRequest('Invalid conductor_group %s: at most 255 letters, digits, '
                               '"_", "-" or "."' % (group,))
    values['conductor_group'] = group.lower()


@router.endpoint()
def create_node(req):
    policy.authorize(req, rules.NODE_CREATE)
    data = validation.json_body(req, schema.CREATE_SCHEMA)
    values = {k: v for k, v in data.items() if v is not None}
    _conductor_group(req, values)
    if values['driver'] not in schema.DRIVERS:
        raise fault.BadRequest('Could not find the following driver(s) or hardware '
                               'type(s): %s.' % values['driver'])
    validation.check_name(values.get('name'))
    if 'name' in values and uuidutils.is_uuid_like(values['name']):
        raise fault.BadRequest('A node name cannot look like a UUID: %s'
                               % values['name'])
    if 'uuid' in values and not uuidutils.is_uuid_like(values['uuid']):
        raise fault.BadRequest('Expected a UUID but received %s.' % values['uuid'])
    if not req.version.matches('1.11'):
        values['provision_state'] = node_obj.AVAILABLE
    node = node_obj.create(req.context, values, mirror=backend.mirrors(req))
    return response.send_json(response.node(req, node), status=201, headers={
        'location': '%s%s/v1/nodes/%s' % (req.host_url, req.script_name, node.uuid)})


def _list(req, detail):
    policy.authorize(req, rules.NODE_LIST)
    query.known_params(req, schema.LIST_PARAMS)
    if 'conductor_group' in req.GET and not req.version.matches(
            api_version.CONDUCTOR_GROUP):
        raise fault.NotAcceptable('The conductor_group filter needs API version %s'
                                  % api_version.CONDUCTOR_GROUP)
    fields = query.fields_param(req, response.node_fields(req))
    if detail and fields is not None:
        raise fault.BadRequest("Can not specify ?detail=True and fields in the same "
                               "request.")
    limit, marker, sort_key, sort_dir = query.pagination(
        req, node_obj.SORT_KEYS)
    filters = {k: req.GET.get(k) for k in ('resource_class', 'provision_state',
                                           'owner', 'driver', 'instance_uuid')}
    if 'conductor_group' in req.GET:
        filters['conductor_group'] = req.GET['conductor_group'].lower()
    filters['maintenance'] = query.bool_param(req, 'maintenance')
    filters['associated'] = query.bool_param(req, 'associated')
    if query.bool_param(req, 'detail'):
        detail = True
    nodes = node_obj.list_nodes(req.context, filters, limit, marker, sort_key,
                                sort_dir)
    items = [response.node(req, n, fields, detail) for n in nodes]
    return response.send_json(response.collection(req, 'nodes', items, limit))


@router.endpoint()
def list_nodes(req):
    return _list(req, detail=False)


@router.endpoint()
def list_nodes_detail(req):
    return _list(req, detail=True)


@router.endpoint()
def get_node(req):
    policy.authorize(req, rules.NODE_GET)
    fields = query.fields_param(req, response.node_fields(req))
    node = node_obj.get(req.context, req.urlvars['node'])
    return response.send_json(response.node(req, node, fields))


def _check_patched(values):
    validation.check_name(values.get('name'))
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


@router.endpoint()
def update_node(req):
    policy.authorize(req, rules.NODE_UPDATE)
    patch = validation.json_body(req)
    node = node_obj.get(req.context, req.urlvars['node'])
    doc = {k: getattr(node, k) for k in schema.PATCHABLE}
    new = validation.apply_patch(doc, patch, schema.PATCHABLE)
    for key in schema.PATCHABLE:
        new.setdefault(key, None)  # a removed top-level field becomes null
    changed = {k: v for k, v in new.items() if v != doc[k]}
    if changed.get('conductor_group', '') is None and doc['conductor_group'] == '':
        changed.pop('conductor_group')    # removing the default group: no change
    _conductor_group(req, changed)
    _check_patched(changed)
    if ('instance_uuid' in changed and changed['instance_uuid'] is None
            and node.allocation_uuid is not None):
        # ends the allocation: the conductor's write
        require_conductor(req).update_node(req.context, holder(req, node), node.uuid,
                                           changed)
        node = node_obj.get(req.context, node.uuid)
    elif changed:
        node = node_obj.update(req.context, node.uuid, changed,
                               mirror=backend.mirrors(req))
    return response.send_json(response.node(req, node))


@router.endpoint()
def delete_node(req):
    policy.authorize(req, rules.NODE_DELETE)
    node = node_obj.get(req.context, req.urlvars['node'])
    if node.allocation_uuid is not None:
        # ends the allocation: the conductor's write
        require_conductor(req).destroy_node(req.context, holder(req, node), node.uuid)
    else:
        node_obj.destroy(req.context, node.uuid, mirror=backend.mirrors(req))
    return response.no_content()
