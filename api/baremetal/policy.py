"""The bare-metal policy enforcer: Ironic's rule names (api.baremetal.policies)."""

from oslo_policy import policy as oslo_policy

from api.baremetal import fault, policies
from api.common import policy as common_policy


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
    return common_policy.make_enforcer(conf, policies.list_rules())


def authorize(req, rule):
    """403 unless the caller passes ``rule``."""
    ctx = req.context
    target = {'project_id': ctx.project_id, 'user_id': ctx.user_id}
    try:
        req.environ['berth.baremetal_enforcer'].authorize(rule, target, ctx,
                                                          do_raise=True)
    except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
        raise fault.Forbidden('%s is disallowed by policy' % rule)
