"""The policy enforcer: Placement's rule names, so operators' policy files work."""

import sys

from oslo_policy import policy as oslo_policy

from api.placement import fault
from common import policy as common_policy
from common.policies import placement as policies
from common.policies import targets


def make_enforcer(conf):
    """Placement's enforcer (policy files looked at once a second, see common.policy)."""
    return common_policy.make_enforcer(conf, policies.list_rules())


def get_enforcer():
    """Entry point for oslopolicy-* tools (``oslo.policy.enforcer``).

    The tools' own ``--config-file``/``--config-dir`` arguments say where the
    operator's configuration (and so ``[oslo_policy] policy_file``) is;
    without them the default locations of project ``berth`` are searched.
    """
    from oslo_config import cfg
    conf = cfg.ConfigOpts()
    conf(_config_args(sys.argv[1:]), project='berth')
    return make_enforcer(conf)


def _config_args(argv):
    """The ``--config-file``/``--config-dir`` arguments of ``argv``, in order."""
    out = []
    for i, arg in enumerate(argv):
        name, eq, _value = arg.partition('=')
        if name in ('--config-file', '--config-dir'):
            if eq:
                out.append(arg)
            elif i + 1 < len(argv):
                out += [arg, argv[i + 1]]
    return out


def authorize(req, rule, target=None):
    """403 unless the caller passes ``rule`` for ``target``.

    The default target is the caller's own project and user, as in Placement.
    """
    ctx = req.context
    if target is None:
        target = targets.placement(ctx)
    try:
        req.environ['berth.enforcer'].authorize(rule, target, ctx, do_raise=True)
    except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
        raise fault.Forbidden('Policy does not allow %s to be performed.' % rule)
