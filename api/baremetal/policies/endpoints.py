"""Endpoint rules of the bare-metal API: one per method and path, Ironic's names."""

from oslo_policy import policy as oslo_policy

from api.baremetal.policies import base

NODE_GET = 'baremetal:node:get'
NODE_LIST = 'baremetal:node:list'
NODE_CREATE = 'baremetal:node:create'
NODE_UPDATE = 'baremetal:node:update'
NODE_DELETE = 'baremetal:node:delete'
NODE_PROVISION = 'baremetal:node:set_provision_state'
NODE_POWER = 'baremetal:node:set_power_state'
NODE_MAINTENANCE = 'baremetal:node:set_maintenance'
NODE_TRAITS_LIST = 'baremetal:node:traits:list'
NODE_TRAITS_SET = 'baremetal:node:traits:set'
NODE_TRAITS_DELETE = 'baremetal:node:traits:delete'
ALLOCATION_GET = 'baremetal:allocation:get'
ALLOCATION_LIST = 'baremetal:allocation:list'
ALLOCATION_CREATE = 'baremetal:allocation:create'
ALLOCATION_UPDATE = 'baremetal:allocation:update'
ALLOCATION_DELETE = 'baremetal:allocation:delete'
ALLOCATION_CREATE_RESTRICTED = 'baremetal:allocation:create_restricted'
ALLOCATION_LIST_ALL = 'baremetal:allocation:list_all'

_RULES = [
    (NODE_GET, 'GET /v1/nodes/{node}'), (NODE_LIST, 'GET /v1/nodes'),
    (NODE_CREATE, 'POST /v1/nodes'), (NODE_UPDATE, 'PATCH /v1/nodes/{node}'),
    (NODE_DELETE, 'DELETE /v1/nodes/{node}'),
    (NODE_PROVISION, 'PUT /v1/nodes/{node}/states/provision'),
    (NODE_POWER, 'PUT /v1/nodes/{node}/states/power'),
    (NODE_MAINTENANCE, 'PUT /v1/nodes/{node}/maintenance'),
    (NODE_TRAITS_LIST, 'GET /v1/nodes/{node}/traits'),
    (NODE_TRAITS_SET, 'PUT /v1/nodes/{node}/traits'),
    (NODE_TRAITS_DELETE, 'DELETE /v1/nodes/{node}/traits'),
    (ALLOCATION_GET, 'GET /v1/allocations/{allocation}'),
    (ALLOCATION_LIST, 'GET /v1/allocations'),
    (ALLOCATION_CREATE, 'POST /v1/allocations'),
    (ALLOCATION_UPDATE, 'PATCH /v1/allocations/{allocation}'),
    (ALLOCATION_DELETE, 'DELETE /v1/allocations/{allocation}'),
]


_PROJECT_RULES = {
    ALLOCATION_GET: base.PROJECT_READER, ALLOCATION_LIST: base.PROJECT_READER,
    ALLOCATION_CREATE: base.PROJECT_MEMBER, ALLOCATION_UPDATE: base.PROJECT_MEMBER,
    ALLOCATION_DELETE: base.PROJECT_MEMBER}
_EXTRA = [
    (ALLOCATION_CREATE_RESTRICTED, 'POST /v1/allocations with another owner or '
                                   'nodes of another project'),
    (ALLOCATION_LIST_ALL, 'GET /v1/allocations of every owner'),
]


rules = [oslo_policy.RuleDefault(name, _PROJECT_RULES.get(name, base.ADMIN),
                                 description=desc)
         for name, desc in _RULES + _EXTRA]

