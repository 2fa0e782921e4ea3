"""The targets the rules are checked on: one definition for the API and the conductors.

A conductor checks the REST API's rules on the context of an RPC message
(conductor.manager.authz); it must build the same target the REST handler
built, or a caller that passed in the API would be refused on the bus (or
the other way round).
"""

from oslo_config import cfg

# the project whose ``service`` role members are treated as system members
# when [DEFAULT] rbac_service_role_elevated_access is on (Ironic's
# rbac_service_project_name default)
SERVICE_PROJECT_NAME = 'service'
# the target key Ironic's ``service_role`` rule reads the project name from
SERVICE_PROJECT_KEY = 'config.service_project_name'


def service_project(conf):
    """The project name the ``service_role`` rule matches, or None (the rule fails).

    Ironic's semantics: only with ``[DEFAULT] rbac_service_role_elevated_access``
    is the name put into the check; without it the ``service`` role is an
    ordinary project role (its own project's nodes), whatever project it is in.
    """
    try:
        if not conf.rbac_service_role_elevated_access:
            return None
        return conf.rbac_service_project_name or None
    except (cfg.NoSuchOptError, AttributeError):
        return None         # a configuration without berth's options: off


def placement(ctx):
    """Placement's default target: the caller's own project and user."""
    return {'project_id': ctx.project_id, 'user_id': ctx.user_id}


def baremetal(ctx, extra=None, service=None):
    """The bare-metal target: the caller, then ``extra``.

    ``service``: what :func:`service_project` answered; when None the target
    has no service project name, so Ironic's ``service_role`` rule fails.
    """
    out = {'project_id': ctx.project_id, 'user_id': ctx.user_id}
    out.update(extra or {})
    out.pop(SERVICE_PROJECT_KEY, None)      # only configuration names it
    if service:
        out[SERVICE_PROJECT_KEY] = service
    return out


def node(row):
    """What a node rule looks at: the node's owner and lessee."""
    return {'node.owner': row.owner, 'node.lessee': row.lessee}


def allocation(row):
    """What an allocation rule looks at: the allocation's owner."""
    return {'allocation.owner': row.owner}


def has_scope(ctx):
    """A system-scoped token, or one with a project (no caller is "all projects" by default)."""
    return ctx.system_scope == 'all' or bool(ctx.project_id)
