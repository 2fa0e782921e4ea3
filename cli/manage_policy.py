"""``berth-manage policy list|check``: the effective policy of both APIs, as configured.

``list`` prints every rule with the check string in force (defaults merged
with ``[oslo_policy] policy_file``); ``check`` says which rules a caller with
the given roles passes, so an operator can verify an override before
deploying it.
"""

from api.baremetal import policy as baremetal_policy
from api.placement import policy as placement_policy
from cli import config
from common import context as berth_context
from common.policies import targets


def _enforcers(conf):
    return (placement_policy.make_enforcer(conf), baremetal_policy.make_enforcer(conf))


def _rules(conf):
    """``[(name, check string in force, enforcer)]`` of both APIs, sorted by name."""
    out = []
    for enforcer in _enforcers(conf):
        for name in enforcer.registered_rules:
            out.append((name, str(enforcer.rules[name]), enforcer))
    return sorted(out, key=lambda rule: rule[0])


# Keystone's default role inference (keystone-manage bootstrap)
_IMPLIED = (('admin', 'member'), ('member', 'reader'), ('manager', 'member'))


def _list(conf):
    for name, check, _enforcer in _rules(conf):
        print('%s: %s' % (name, check))
    return 0


def _check(conf):
    args = conf.category
    roles = [r for role in args.role or () for r in role.split(',') if r]
    # as a Keystone token carries them: its default implied roles added
    for role, implied in _IMPLIED:
        if role in roles and implied not in roles:
            roles.append(implied)
    ctx = berth_context.RequestContext(
        user_id=args.user_id, project_id=args.project_id, roles=roles,
        system_scope=args.system_scope, is_admin='admin' in roles, overwrite=False)
    project = args.target_project_id or args.project_id
    # the bare-metal rules look at the owner/lessee of the node or allocation
    # the request is about: here the target project owns both
    target = {'project_id': project, 'user_id': args.user_id,
              'node.owner': project, 'node.lessee': None, 'allocation.owner': project}
    service = targets.service_project(conf)   # [DEFAULT] rbac_service_role_elevated_access
    if service:
        target[targets.SERVICE_PROJECT_KEY] = service
    for name, _check_str, enforcer in _rules(conf):
        allowed = enforcer.enforce(name, target, ctx)
        print('%-7s %s' % ('allow' if allowed else 'deny', name))
    return 0


def add_policy_commands(subparsers):
    """The ``policy`` command group."""
    sub = config.command_group(subparsers, 'policy', 'the effective API policy')
    sub.add_parser('list', help='every rule with the check string in force'
                   ).set_defaults(func=_list)
    check = sub.add_parser('check', help='which rules a caller with these roles passes')
    check.add_argument('--role', action='append', metavar='ROLE[,ROLE]',
                       help='a role of the caller (repeatable)')
    check.add_argument('--project-id', default='project', help="the caller's project")
    check.add_argument('--user-id', default='user', help="the caller's user")
    check.add_argument('--system-scope', default=None, help="e.g. 'all'")
    check.add_argument('--target-project-id', default=None,
                       help='the project the request is about (default: the '
                            "caller's)")
    check.set_defaults(func=_check)
