"""/v1/nodes: create, list (and /detail), show, JSON-patch and delete nodes."""

import json
import re

from oslo_utils import uuidutils

from api.baremetal import (
    backend,
    fault,
    gates,
    node_conductor,
    node_fields,
    node_parent,
    policy,
    query,
    response,
    router,
    validation,
)
from api.baremetal import version as api_version
from api.baremetal.schemas import node as schema
from api.common import links as common_links
from api.common.conductor import require_conductor
from common import exception
from common.node_update_contract import NodeUpdate
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node as node_obj

# Ironic's conductor group: letters, digits, ``_``, ``-`` and ``.``; stored lower case
_CONDUCTOR_GROUP = re.compile(r'^[a-zA-Z0-9_.-]*$')


def _conductor_group(req, values):
    """Check and lower-case a ``conductor_group`` being set (gates: 406 below 1.46)."""
    if 'conductor_group' not in values:
        return
    group = values['conductor_group']
    if group is None:
        values['conductor_group'] = ''
        return
    if not isinstance(group, str) or len(group) > 255 or not _CONDUCTOR_GROUP.match(group):
        raise fault.BadRequest('Invalid conductor_group %s: at most 255 letters, digits, '
                               '"_", "-" or "."' % (group,))
    values['conductor_group'] = group.lower()


def _self_owned(req):
    """Whether the caller creates a node owned by its project (Ironic's
    self_owned_node rule, when project admins may manage their own nodes)."""
    return (req.conf.api.project_admin_can_manage_own_nodes
            and policy.check(req, rules.NODE_CREATE_SELF_OWNED))


def _check_json_sizes(req, values):
    """400 for a free-form JSON field over ``[node] max_json_bytes`` (the
    conductor's write checks refuse the same over RPC, with the same text)."""
    cap = req.conf.node.max_json_bytes
    for key in schema.JSON_FIELDS:
        if cap and values.get(key) and len(json.dumps(values[key], default=str)) > cap:
            raise fault.BadRequest('%s is larger than %d bytes' % (key, cap))


@router.endpoint()
def create_node(req):
    self_owned = _self_owned(req)
    if not self_owned:
        policy.authorize(req, rules.NODE_CREATE)
    data = validation.json_body(req, schema.CREATE_SCHEMA)
    gates.check_create(req, data)
    values = {k: v for k, v in data.items() if v is not None}
    if self_owned and not policy.is_system(req):
        project = req.context.project_id
        if values.get('owner') and values['owner'] != project:
            raise fault.BadRequest('Cannot create a node as a project scoped admin '
                                   'with an owner other than your own project.')
        values['owner'] = project
    node_parent.resolve_parent(req, values, values.get('owner'))
    _conductor_group(req, values)
    _check_json_sizes(req, values)
    node_fields.on_create(req, values)
    if values['driver'] not in schema.DRIVERS:
        raise validation.unknown_driver(values['driver'], values.get('conductor_group'))
    validation.check_name(values.get('name'))
    if 'name' in values and uuidutils.is_uuid_like(values['name']):
        raise fault.BadRequest('A node name cannot look like a UUID: %s'
                               % values['name'])
    validation.check_uuid(values.get('uuid'))
    if not req.version.matches('1.11'):
        values['provision_state'] = node_obj.AVAILABLE
    try:
        node = node_obj.create(req.context, values, mirror=backend.mirrors(req))
    except exception.ChassisNotFound as exc:
        raise node_fields.chassis_error(exc)
    return response.send_json(response.node(req, node), status=201, headers={
        'location': '%s/v1/nodes/%s' % (common_links.base_url(req), node.uuid)})


def _conductor_filter(req):
    """``?conductor=<hostname>`` (1.49, 406 before), or None (also when empty, as Ironic)."""
    conductor = req.GET.get('conductor')
    if conductor is not None and not req.version.matches(node_conductor.SINCE):
        raise fault.NotAcceptable('Request not acceptable. The minimal required API '
                                  'version should be %s' % node_conductor.SINCE)
    return conductor or None


def _shards_filter(req):
    """``?shard=a,b`` (1.82): Ironic's string list, lower-cased, without repeats;
    ``?shard=`` is an empty list, which matches no node."""
    value = req.GET.get('shard')
    if value is None:
        return None
    return list(dict.fromkeys(v.strip().lower() for v in value.split(',') if v.strip()))


def _list(req, detail, chassis=None):
    project = policy.list_project(req, 'node')
    query.known_params(req, schema.LIST_PARAMS)
    gates.check_list(req)
    validation.check_uuid(req.GET.get('instance_uuid'), 'instance_uuid')
    conductor = _conductor_filter(req)
    fields = query.fields_param(req, response.node_fields(req))
    if detail and fields is not None:
        raise fault.BadRequest("Can not specify ?detail=True and fields in the same "
                               "request.")
    limit, marker, sort_key, sort_dir = query.pagination(
        req, node_obj.SORT_KEYS)
    names: tuple[str, ...] = (
        'resource_class', 'provision_state', 'owner', 'driver', 'instance_uuid',
        'instance_name')
    if req.version.matches(api_version.LESSEE):
        names += ('lessee', 'project')
    filters = {k: req.GET.get(k) for k in names}
    if 'conductor_group' in req.GET:
        filters['conductor_group'] = req.GET['conductor_group'].lower()
    if project is not None:
        # the nodes the caller's project owns or leases, narrowed by any
        # project filter it gave (another project's then matches nothing)
        if filters.get('project') not in (None, project):
            return response.send_json({'nodes': []})
        filters['project'] = project
        policy.check_marker(req, node_obj.get, lambda n: policy.can_see_node(req, n))
    filters['chassis_uuid'] = chassis or req.GET.get('chassis_uuid')
    node_fields.check_chassis(filters)
    filters['retired'] = query.bool_param(req, 'retired')
    filters['fault'] = node_fields.fault_filter(req)
    filters['maintenance'] = query.bool_param(req, 'maintenance')
    filters['associated'] = query.bool_param(req, 'associated')
    filters['sharded'] = query.bool_param(req, 'sharded')
    filters['shards'] = _shards_filter(req)
    # Ironic's listing leaves child nodes out unless include_children (1.83)
    filters['include_children'] = bool(query.bool_param(req, 'include_children'))
    filters['parent_node'] = req.GET.get('parent_node')
    if query.bool_param(req, 'detail'):
        detail = True
    # a listing may lag (on the replica, doc/source/architecture.md; a marker the
    # replica lacks is looked up on the primary), except the instance's own
    # node: nova's ironic driver finds it so right after setting instance_uuid
    listing = (node_obj.list_nodes if filters.get('instance_uuid') is not None
               else node_obj.list_nodes_may_lag)
    if conductor is None:
        nodes = listing(req.context, filters, limit, marker, sort_key, sort_dir)
    else:
        nodes = node_conductor.filter_pages(
            req, lambda lim, mark: listing(req.context, filters, lim, mark, sort_key,
                                           sort_dir), limit, marker, conductor)
    items = [response.node(req, n, fields, detail) for n in nodes]
    return response.send_json(response.collection(req, 'nodes', items, limit))


def _in_chassis(req, detail):
    """The nodes of the path's chassis (404 when it does not exist)."""
    node_fields.check_chassis({'chassis_uuid': req.urlvars['chassis']})
    return _list(req, detail, req.urlvars['chassis'])


@router.endpoint()
def list_chassis_nodes(req):
    return _in_chassis(req, detail=False)


@router.endpoint()
def list_chassis_nodes_detail(req):
    return _in_chassis(req, detail=True)


@router.endpoint()
def list_nodes(req):
    return _list(req, detail=False)


@router.endpoint()
def list_nodes_detail(req):
    return _list(req, detail=True)


@router.endpoint()
def get_node(req):
    node = policy.node_for(req)
    gates.check_fields(req)
    fields = query.fields_param(req, response.node_fields(req))
    return response.send_json(response.node(req, node, fields))


def _check_patched(values):
    validation.check_name(values.get('name'))
    rc = values.get('resource_class')
    if rc is not None and (not isinstance(rc, str) or len(rc) > 80):
        raise fault.BadRequest('Invalid resource_class %s: a string of at most 80 '
                               'characters' % (rc,))
    validation.check_uuid(values.get('instance_uuid'), 'instance_uuid')
    if 'network_data' in values and values['network_data'] is None:
        values['network_data'] = {}         # removed: Ironic's default
    for key in schema.JSON_FIELDS:
        if key in values and not isinstance(values[key], dict):
            raise fault.BadRequest('%s must be an object' % key)
        if key in values and values[key] is None:
            values[key] = {}
    for key in ('owner', 'lessee', 'description', 'shard', 'parent_node'):
        if values.get(key) is not None and not isinstance(values[key], str):
            raise fault.BadRequest('%s must be a string' % key)
    if values.get('shard') is not None and len(values['shard']) > 255:
        raise fault.BadRequest('shard is longer than 255 characters')
    name = values.get('instance_name')
    if name is not None and not (isinstance(name, str) and 1 <= len(name) <= 255):
        raise fault.BadRequest('instance_name must be a string of 1 to 255 characters')


def _instance_name(node, changed):
    """Ironic's sync (1.104): a new ``instance_info`` with a ``display_name``
    names a node that has no ``instance_name`` (nor gets one in this patch)."""
    if 'instance_info' not in changed or changed.get('instance_name', node.instance_name):
        return
    display = (changed['instance_info'] or {}).get('display_name')
    if isinstance(display, str) and 1 <= len(display) <= 255:
        changed['instance_name'] = display


def _patch_rules(patch):
    """Ironic's rules for a JSON patch: by the top-level field each op changes."""
    fields = []
    for op in patch if isinstance(patch, list) else ():
        path = op.get('path') if isinstance(op, dict) else None
        fields.append(path.lstrip('/').split('/')[0] if isinstance(path, str) else None)
    return rules.update_rules(fields)


@router.endpoint()
def update_node(req):
    patch = validation.json_body(req)
    gates.check_patch(req, patch)
    reset = node_fields.reset_param(req, patch)
    names = _patch_rules(patch)
    node = policy.node_for(req, names[0])
    for name in names[1:]:
        policy.authorize(req, name, policy.node_target(node))
    node_fields.patch_gate(req, patch)
    doc = {k: getattr(node, k) for k in schema.PATCHABLE}
    doc.update(node_fields.shown_interfaces(node))
    new = validation.apply_patch(doc, patch, schema.PATCHABLE)
    for key in schema.PATCHABLE:
        new.setdefault(key, None)  # a removed top-level field becomes null
    changed = {k: v for k, v in new.items() if v != doc[k]}
    if changed.get('conductor_group', '') is None and doc['conductor_group'] == '':
        changed.pop('conductor_group')    # removing the default group: no change
    _conductor_group(req, changed)
    _check_patched(changed)
    _instance_name(node, changed)
    node_parent.resolve_parent(req, changed, node.owner)
    _check_json_sizes(req, changed)
    node_fields.on_update(req, node, changed, reset)
    if ('instance_uuid' in changed and changed['instance_uuid'] is None
            and node.allocation_uuid is not None):
        # ends the allocation: the conductor's write
        require_conductor(req).update_node(req.context, backend.holder(req, node), node.uuid,
                                           NodeUpdate.from_primitive(changed))
        node = node_obj.get(req.context, node.uuid)
    elif changed:
        try:
            node = node_obj.update(req.context, node.uuid, changed,
                                   mirror=backend.mirrors(req))
        except exception.ChassisNotFound as exc:
            raise node_fields.chassis_error(exc)
    return response.send_json(response.node(req, node))


@router.endpoint()
def delete_node(req):
    try:
        node = policy.node_for(req, rules.NODE_DELETE)
    except fault.Forbidden:
        if not req.conf.api.project_admin_can_manage_own_nodes:
            raise
        node = policy.node_for(req, rules.NODE_DELETE_SELF_OWNED)
    if node.allocation_uuid is not None:
        # ends the allocation: the conductor's write
        require_conductor(req).destroy_node(req.context, backend.holder(req, node), node.uuid)
    else:
        node_obj.destroy(req.context, node.uuid, mirror=backend.mirrors(req))
    return response.no_content()
