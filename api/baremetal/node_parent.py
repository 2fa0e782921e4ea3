"""Ironic's ``parent_node`` (API 1.83): a node's parent, given by name or UUID.

Stored as the parent's UUID.  As Ironic's ``authorize_node_link``: a parent
the caller may not see (``baremetal:node:get``), that does not exist, or
whose owner is not the node's owner is the same 400, so the answer tells
nothing of other projects' nodes.
"""

from api.baremetal import fault, policy
from common import exception
from objects.baremetal import node as node_obj

_INVALID = "Unable to apply the requested parent_node '%s'. Requested value was invalid."


def resolve_parent(req, values, owner):
    """Replace a ``parent_node`` being set by its parent's UUID (400 as Ironic)."""
    ident = values.get('parent_node')
    if ident == '':
        values['parent_node'] = None
    if not ident:
        return
    if len(ident) > 36:
        raise fault.BadRequest(_INVALID % ident)
    try:
        parent = node_obj.get(req.context, ident)
    except (exception.NotFound, exception.Invalid):
        raise fault.BadRequest(_INVALID % ident)
    if not policy.can_see_node(req, parent) or parent.owner != owner:
        raise fault.BadRequest(_INVALID % ident)
    values['parent_node'] = parent.uuid
