"""The bare-metal policy enforcer and the visibility rules built on it.

Rules are Ironic's (common.policies.baremetal).  On top of oslo.policy's scope
check (a domain-scoped token fails every rule) a token with neither system
nor project scope is refused before any rule is looked at, so no caller is
ever treated as "all projects" for lack of a project.

Visibility: a node the caller may not ``baremetal:node:get`` and an
allocation it may not ``baremetal:allocation:get`` are answered exactly as
if they did not exist (the same exception, built from the caller's own
input), before any other rule is checked.
"""

from oslo_policy import policy as oslo_policy

from api.baremetal import fault, json_suffix
from common import exception
from common import policy as common_policy
from common.policies import baremetal as policies
from common.policies import targets
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node as node_obj

SERVICE_PROJECT_NAME = targets.SERVICE_PROJECT_NAME
_DENIED = '%s is disallowed by policy'


def make_enforcer(conf):
    """The bare-metal enforcer (policy files looked at once a second, see common.policy)."""
    return common_policy.make_enforcer(conf, policies.list_rules())


def is_system(req):
    return req.context.system_scope == 'all'


def _require_scope(req, rule):
    if not targets.has_scope(req.context):
        raise fault.Forbidden(_DENIED % rule)


def _target(req, target):
    return targets.baremetal(req.context, target,
                             targets.service_project(req.environ.get('berth.conf')))


def check(req, rule, target=None):
    """Whether the caller passes ``rule`` on ``target`` (no exception)."""
    try:
        authorize(req, rule, target)
    except fault.Forbidden:
        return False
    return True


def authorize(req, rule, target=None):
    """403 unless the caller passes ``rule`` on ``target``."""
    _require_scope(req, rule)
    try:
        req.environ['berth.baremetal_enforcer'].authorize(
            rule, _target(req, target), req.context, do_raise=True)
    except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
        raise fault.Forbidden(_DENIED % rule)


node_target = targets.node
allocation_target = targets.allocation


def can_see_node(req, node):
    return check(req, rules.NODE_GET, node_target(node))


def visible_node(req, node, ident, rule=None):
    """``node`` if the caller may see it (else NodeNotFound for ``ident``), then ``rule``."""
    _require_scope(req, rule or rules.NODE_GET)
    if not can_see_node(req, node):
        raise exception.NodeNotFound(node=ident)
    if rule is not None:
        authorize(req, rule, node_target(node))
    return node


def node_for(req, rule=None):
    """The node of the path (``{node}``) if the caller may see it, then ``rule``."""
    ident = req.urlvars['node']
    _require_scope(req, rule or rules.NODE_GET)
    node = json_suffix.lookup(req, ident, lambda i: node_obj.get(req.context, i))
    return visible_node(req, node, ident, rule)


def visible_allocation(req, alloc, ident, rule=None):
    """``alloc`` if the caller may see it (else AllocationNotFound), then ``rule``."""
    _require_scope(req, rule or rules.ALLOCATION_GET)
    if not check(req, rules.ALLOCATION_GET, allocation_target(alloc)):
        raise exception.AllocationNotFound(allocation=ident)
    if rule is not None:
        authorize(req, rule, allocation_target(alloc))
    return alloc


def list_project(req, kind, owner=None):
    """The project a listing of ``kind`` is limited to (None: everything).

    ``baremetal:<kind>:list_all`` sees everything; else ``<kind>:list`` sees
    its project's rows, and asking for another ``owner`` is a 403.
    """
    if check(req, 'baremetal:%s:list_all' % kind):
        return None
    authorize(req, 'baremetal:%s:list' % kind)
    project = req.context.project_id
    if owner is not None and owner != project:
        raise fault.Forbidden(_DENIED % ('baremetal:%s:list_all' % kind))
    return project


def check_marker(req, fetch, visible):
    """A ``marker`` the caller may not see is answered as one that does not exist."""
    marker = req.GET.get('marker')
    if marker is None:
        return
    try:
        row = fetch(req.context, marker)
    except exception.NotFound:
        return                  # the listing answers it
    if not visible(row):
        raise exception.Invalid(reason='Marker %s could not be found.' % marker)


def project_scope(req):
    """The project a caller without ``create_restricted`` works in, else None."""
    if check(req, rules.ALLOCATION_CREATE_RESTRICTED):
        return None
    return req.context.project_id
