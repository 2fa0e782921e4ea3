"""The targets the rules are checked on: one definition for the API and the conductors.

A conductor checks the REST API's rules on the context of an RPC message
(conductor.manager.authz); it must build the same target the REST handler
built, or a caller that passed in the API would be refused on the bus (or
the other way round).
"""

# the project whose ``service`` role members are treated as system members
# (Ironic's [DEFAULT] rbac_service_project_name default)
SERVICE_PROJECT_NAME = 'service'


def placement(ctx):
    """Placement's default target: the caller's own project and user."""
    return {'project_id': ctx.project_id, 'user_id': ctx.user_id}


def baremetal(ctx, extra=None):
    """The bare-metal target: the caller, the service project's name, then ``extra``."""
    out = {'project_id': ctx.project_id, 'user_id': ctx.user_id,
           'config.service_project_name': SERVICE_PROJECT_NAME}
    out.update(extra or {})
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
