"""Policy rules of the bare-metal API (Ironic's rule names) and their enforcement."""

from oslo_policy import policy as oslo_policy

from api.baremetal import fault
from api.common import policy as common_policy

ADMIN = 'role:admin or role:service or is_admin:True'
# project members work on their own project's allocations (owner = project)
PROJECT_MEMBER = ADMIN + ' or role:member'
PROJECT_READER = PROJECT_MEMBER + ' or role:reader'

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
    ALLOCATION_GET: PROJECT_READER, ALLOCATION_LIST: PROJECT_READER,
    ALLOCATION_CREATE: PROJECT_MEMBER, ALLOCATION_UPDATE: PROJECT_MEMBER,
    ALLOCATION_DELETE: PROJECT_MEMBER}
_EXTRA = [
    (ALLOCATION_CREATE_RESTRICTED, 'POST /v1/allocations with another owner or '
                                   'nodes of another project'),
    (ALLOCATION_LIST_ALL, 'GET /v1/allocations of every owner'),
]


def list_rules():
    return [oslo_policy.RuleDefault(name, _PROJECT_RULES.get(name, ADMIN),
                                    description=desc)
            for name, desc in _RULES + _EXTRA]


def project_scope(req):
    """The caller's project when it is a project-scoped non-admin caller, else None."""
    ctx = req.context
    if ctx.is_admin or ctx.system_scope or {'admin', 'service'} & set(ctx.roles):
        return None
    return ctx.project_id


def allowed(req, rule):
    """Whether the caller passes ``rule`` (no exception)."""
    try:
        authorize(req, rule)
    except fault.Forbidden:
        return False
    return True


def make_enforcer(conf):
    """The bare-metal enforcer (policy files looked at once a second, see api.common.policy)."""
    return common_policy.make_enforcer(conf, list_rules())


def authorize(req, rule):
    """403 unless the caller passes ``rule``."""
    ctx = req.context
    target = {'project_id': ctx.project_id, 'user_id': ctx.user_id}
    try:
        req.environ['berth.baremetal_enforcer'].authorize(rule, target, ctx,
                                                          do_raise=True)
    except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
        raise fault.Forbidden('%s is disallowed by policy' % rule)
