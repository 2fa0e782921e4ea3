"""Endpoint rules of the bare-metal API: Ironic's names, defaults and scope types."""

from oslo_policy import policy as oslo_policy

from common.policies.baremetal import base

NODE_GET = 'baremetal:node:get'
NODE_LIST = 'baremetal:node:list'
NODE_LIST_ALL = 'baremetal:node:list_all'
NODE_FILTER_THRESHOLD = 'baremetal:node:get:filter_threshold'
NODE_GET_LAST_ERROR = 'baremetal:node:get:last_error'
NODE_GET_RESERVATION = 'baremetal:node:get:reservation'
NODE_GET_DRIVER_INTERNAL_INFO = 'baremetal:node:get:driver_internal_info'
NODE_GET_DRIVER_INFO = 'baremetal:node:get:driver_info'
NODE_GET_STATES = 'baremetal:node:get_states'
NODE_CREATE = 'baremetal:node:create'
NODE_UPDATE = 'baremetal:node:update'
NODE_DELETE = 'baremetal:node:delete'
# Ironic's project-admin rules, used when [api] project_admin_can_manage_own_nodes
NODE_CREATE_SELF_OWNED = 'baremetal:node:create:self_owned_node'
NODE_DELETE_SELF_OWNED = 'baremetal:node:delete:self_owned_node'
NODE_PROVISION = 'baremetal:node:set_provision_state'
NODE_PROVISION_SERVICE_STEPS = 'baremetal:node:set_provision_state:service_steps'
NODE_POWER = 'baremetal:node:set_power_state'
NODE_MAINTENANCE = 'baremetal:node:set_maintenance'
NODE_CLEAR_MAINTENANCE = 'baremetal:node:clear_maintenance'
NODE_TRAITS_LIST = 'baremetal:node:traits:list'
NODE_TRAITS_SET = 'baremetal:node:traits:set'
NODE_TRAITS_DELETE = 'baremetal:node:traits:delete'
ALLOCATION_GET = 'baremetal:allocation:get'
ALLOCATION_LIST = 'baremetal:allocation:list'
ALLOCATION_LIST_ALL = 'baremetal:allocation:list_all'
ALLOCATION_CREATE = 'baremetal:allocation:create'
ALLOCATION_CREATE_RESTRICTED = 'baremetal:allocation:create_restricted'
ALLOCATION_UPDATE = 'baremetal:allocation:update'
ALLOCATION_DELETE = 'baremetal:allocation:delete'
CHASSIS_GET = 'baremetal:chassis:get'
CHASSIS_CREATE = 'baremetal:chassis:create'
CHASSIS_UPDATE = 'baremetal:chassis:update'
CHASSIS_DELETE = 'baremetal:chassis:delete'
DRIVER_GET = 'baremetal:driver:get'
NODE_UPDATE_DRIVER_INTERFACES = 'baremetal:node:update:driver_interfaces'
NODE_SET_BOOT_MODE = 'baremetal:node:set_boot_mode'
NODE_SET_SECURE_BOOT = 'baremetal:node:set_secure_boot'
NODE_HISTORY_GET = 'baremetal:node:history:get'
NODE_INVENTORY_GET = 'baremetal:node:inventory:get'
SHARDS_GET = 'baremetal:shards:get'

# PATCH /v1/nodes/{node}: the rule of each changed field (after NODE_UPDATE)
NODE_UPDATE_FIELDS = {
    'owner': 'baremetal:node:update:owner',
    'lessee': 'baremetal:node:update:lessee',
    'driver_info': 'baremetal:node:update:driver_info',
    'properties': 'baremetal:node:update:properties',
    'instance_uuid': 'baremetal:node:update:instance_uuid',
    'name': 'baremetal:node:update:name',
    'extra': 'baremetal:node:update_extra',
    'instance_info': 'baremetal:node:update_instance_info',
    'conductor_group': 'baremetal:node:update:conductor_group',
    'chassis_uuid': 'baremetal:node:update:chassis_uuid',
    'retired': 'baremetal:node:update:retired',
    'retired_reason': 'baremetal:node:update:retired',
    'network_data': 'baremetal:node:update:network_data',
    'shard': 'baremetal:node:update:shard',
    'parent_node': 'baremetal:node:update:parent_node',
    'disable_power_off': 'baremetal:node:update:disable_power_off',
    # Ironic's rule of /instance_name (1.104) is instance_info's
    'instance_name': 'baremetal:node:update_instance_info',
    'driver': NODE_UPDATE_DRIVER_INTERFACES,
    **{'%s_interface' % kind: NODE_UPDATE_DRIVER_INTERFACES for kind in (
        'bios', 'boot', 'console', 'deploy', 'inspect', 'management', 'network',
        'power', 'raid', 'rescue', 'storage', 'vendor', 'firmware')},
}



def update_rules(fields):
    """Ironic's rules for a node update changing ``fields``: one per field with
    its own rule, and NODE_UPDATE first when any field has none (or none changed)."""
    names, generic = [], False
    for field in fields:
        rule = NODE_UPDATE_FIELDS.get(field)
        if rule is None:
            generic = True
        elif rule not in names:
            names.append(rule)
    if generic or not names:
        names.insert(0, NODE_UPDATE)
    return names


_NODE = '/v1/nodes/{node_ident}'
_ALLOC = '/v1/allocations/{allocation_id}'

# (name, check string, description, [(method, path)])
_RULES = [
    (NODE_CREATE, base._any(base.SYSTEM_ADMIN, base.SYSTEM_SERVICE), 'Create a node',
     [('POST', '/v1/nodes')]),
    (NODE_CREATE_SELF_OWNED, '(role:admin) or (role:service)',
     'Create a node owned by the caller\'s project (a project-scoped caller; '
     'with [api] project_admin_can_manage_own_nodes)', [('POST', '/v1/nodes')]),
    (NODE_LIST, base.API_READER, 'List the nodes the caller may see',
     [('GET', '/v1/nodes'), ('GET', '/v1/nodes/detail')]),
    (NODE_LIST_ALL, base.SYSTEM_READER, 'List every node, whoever owns it',
     [('GET', '/v1/nodes'), ('GET', '/v1/nodes/detail')]),
    (NODE_GET, base.SYSTEM_OR_PROJECT_READER, 'Show a node',
     [('GET', _NODE)]),
    (NODE_FILTER_THRESHOLD, base.SYSTEM_READER,
     'Callers failing this rule see node fields restricted by the '
     'baremetal:node:get:<field> rules', [('GET', _NODE)]),
    (NODE_GET_LAST_ERROR, base.SYSTEM_OR_OWNER_READER,
     'See last_error (else redacted)', [('GET', _NODE)]),
    (NODE_GET_RESERVATION, base.SYSTEM_OR_OWNER_READER,
     'See reservation (else redacted)', [('GET', _NODE)]),
    (NODE_GET_DRIVER_INTERNAL_INFO, base.SYSTEM_OR_OWNER_READER,
     'See driver_internal_info (else redacted)', [('GET', _NODE)]),
    (NODE_GET_DRIVER_INFO, base.SYSTEM_OR_OWNER_READER,
     'See driver_info (else redacted)', [('GET', _NODE)]),
    (NODE_UPDATE, base.SYSTEM_OR_PROJECT_MEMBER, 'Update a node',
     [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['owner'], base.SYSTEM_MEMBER, 'Change a node owner',
     [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['conductor_group'], base.SYSTEM_MEMBER,
     'Change a node conductor group', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['lessee'], base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
     'Change a node lessee', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['driver_info'], base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
     'Change a node driver_info', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['properties'], base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
     'Change a node properties', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['instance_uuid'], base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
     'Change a node instance_uuid', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['name'], base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
     'Change a node name', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['extra'], base.SYSTEM_OR_PROJECT_MEMBER,
     'Change a node extra', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['instance_info'],
     base.SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN, 'Change a node instance_info',
     [('PATCH', _NODE)]),
    (NODE_DELETE, base.SYSTEM_ADMIN, 'Delete a node', [('DELETE', _NODE)]),
    (NODE_DELETE_SELF_OWNED, base.PROJECT_ADMIN,
     'Delete a node the caller\'s project owns (with [api] '
     'project_admin_can_manage_own_nodes)', [('DELETE', _NODE)]),
    (NODE_GET_STATES, base.SYSTEM_OR_PROJECT_READER, 'Show node states',
     [('GET', _NODE + '/states')]),
    (NODE_PROVISION, base.SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
     'Change a node provision state', [('PUT', _NODE + '/states/provision')]),
    (NODE_PROVISION_SERVICE_STEPS, base.SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
     'Run service steps on a node (the service verb, API 1.87)',
     [('PUT', _NODE + '/states/provision')]),
    (NODE_POWER, base.SYSTEM_OR_PROJECT_MEMBER, 'Change a node power state',
     [('PUT', _NODE + '/states/power')]),
    (NODE_MAINTENANCE, base.SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
     'Put a node in maintenance', [('PUT', _NODE + '/maintenance')]),
    (NODE_CLEAR_MAINTENANCE, base.SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
     'Take a node out of maintenance', [('DELETE', _NODE + '/maintenance')]),
    (NODE_TRAITS_LIST, base.SYSTEM_OR_PROJECT_READER, 'List node traits',
     [('GET', _NODE + '/traits')]),
    (NODE_TRAITS_SET, base.SYSTEM_MEMBER_OR_OWNER_ADMIN, 'Set node traits',
     [('PUT', _NODE + '/traits'), ('PUT', _NODE + '/traits/{trait}')]),
    (NODE_TRAITS_DELETE, base.SYSTEM_MEMBER_OR_OWNER_ADMIN, 'Remove node traits',
     [('DELETE', _NODE + '/traits'), ('DELETE', _NODE + '/traits/{trait}')]),
    (ALLOCATION_GET, base.ALLOCATION_READER, 'Show an allocation',
     [('GET', _ALLOC), ('GET', _NODE + '/allocation')]),
    (ALLOCATION_LIST, base.API_READER, 'List the allocations of the caller',
     [('GET', '/v1/allocations')]),
    (ALLOCATION_LIST_ALL, base.SYSTEM_READER, 'List every allocation',
     [('GET', '/v1/allocations')]),
    (ALLOCATION_CREATE, base.ALLOCATION_CREATOR, 'Create an allocation',
     [('POST', '/v1/allocations')]),
    (ALLOCATION_CREATE_RESTRICTED, base.SYSTEM_MEMBER,
     'Create an allocation with any owner, from any node', [('POST', '/v1/allocations')]),
    (ALLOCATION_UPDATE, base.ALLOCATION_MEMBER, 'Change an allocation',
     [('PATCH', _ALLOC)]),
    (ALLOCATION_DELETE, base.ALLOCATION_MEMBER, 'Delete an allocation',
     [('DELETE', _ALLOC), ('DELETE', _NODE + '/allocation')]),
]

_CHASSIS = '/v1/chassis/{chassis_id}'
# Ironic's chassis and driver rules: system scope only
_SYSTEM_RULES = [
    (CHASSIS_GET, base.SYSTEM_READER, 'Retrieve Chassis records',
     [('GET', '/v1/chassis'), ('GET', '/v1/chassis/detail'), ('GET', _CHASSIS)]),
    (CHASSIS_CREATE, base.SYSTEM_ADMIN, 'Create Chassis records',
     [('POST', '/v1/chassis')]),
    (CHASSIS_DELETE, base.SYSTEM_ADMIN, 'Delete Chassis records',
     [('DELETE', _CHASSIS)]),
    (CHASSIS_UPDATE, base.SYSTEM_MEMBER, 'Update Chassis records',
     [('PATCH', _CHASSIS)]),
    (DRIVER_GET, base.SYSTEM_READER, 'View list of available drivers',
     [('GET', '/v1/drivers'), ('GET', '/v1/drivers/{driver_name}')]),
]
_RULES += [
    (NODE_UPDATE_FIELDS['chassis_uuid'], base.SYSTEM_ADMIN,
     'Change a node chassis_uuid', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['retired'], base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
     'Change a node retired and retired_reason', [('PATCH', _NODE)]),
    (NODE_UPDATE_DRIVER_INTERFACES, base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
     'Change a node driver and driver interfaces', [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['network_data'], base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
     'Change a node network_data', [('PATCH', _NODE)]),
    (NODE_SET_BOOT_MODE, base.SYSTEM_OR_PROJECT_MEMBER, 'Change a node boot mode',
     [('PUT', _NODE + '/states/boot_mode')]),
    (NODE_SET_SECURE_BOOT, base.SYSTEM_OR_PROJECT_MEMBER,
     'Change a node secure boot state', [('PUT', _NODE + '/states/secure_boot')]),
    (NODE_HISTORY_GET, base.SYSTEM_OR_OWNER_READER, 'Show the history of a node',
     [('GET', _NODE + '/history'), ('GET', _NODE + '/history/{event_uuid}')]),
    (NODE_INVENTORY_GET, base.SYSTEM_OR_OWNER_READER,
     'Show the inspection data of a node (berth inspects nothing: always 404)',
     [('GET', _NODE + '/inventory')]),
    (NODE_UPDATE_FIELDS['shard'], base.SYSTEM_ADMIN, 'Change a node shard',
     [('PATCH', _NODE)]),
    (SHARDS_GET, base.SYSTEM_READER, 'List the shards and their node counts',
     [('GET', '/v1/shards')]),
    (NODE_UPDATE_FIELDS['parent_node'], base.SYSTEM_MEMBER, 'Change a node parent_node',
     [('PATCH', _NODE)]),
    (NODE_UPDATE_FIELDS['disable_power_off'], base.SYSTEM_ADMIN,
     'Disable or enable powering a node off', [('PATCH', _NODE)]),
]

rules = base.rules + [
    oslo_policy.DocumentedRuleDefault(
        name=name, check_str=check, description=desc, scope_types=base.SCOPES,
        operations=[{'method': m, 'path': p} for m, p in ops])
    for name, check, desc, ops in _RULES]
rules += [
    oslo_policy.DocumentedRuleDefault(
        name=name, check_str=check, description=desc, scope_types=['system'],
        operations=[{'method': m, 'path': p} for m, p in ops])
    for name, check, desc, ops in _SYSTEM_RULES]
