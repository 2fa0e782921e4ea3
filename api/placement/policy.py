"""The policy enforcer: Placement's rule names, so operators' policy files work."""

from oslo_policy import policy as oslo_policy

from api.placement import fault
from api.placement import policies


def make_enforcer(conf):
    enforcer = oslo_policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    enforcer.load_rules()
    return enforcer


def get_enforcer():
    """Entry point for oslopolicy-* tools (``oslo.policy.enforcer``)."""
    from oslo_config import cfg
    conf = cfg.ConfigOpts()
    conf([], project='berth')
    return make_enforcer(conf)


def authorize(req, rule, target=None):
    """403 unless the caller passes ``rule`` for ``target``.

    The default target is the caller's own project and user, as in Placement.
    """
    ctx = req.context
    if target is None:
        target = {'project_id': ctx.project_id, 'user_id': ctx.user_id}
    try:
        req.environ['berth.enforcer'].authorize(rule, target, ctx, do_raise=True)
    except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
        raise fault.Forbidden('Policy does not allow %s to be performed.' % rule)
