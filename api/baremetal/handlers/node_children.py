"""/v1/nodes/{node}/children (Ironic API 1.83): the UUIDs of a node's children.

``parent_node`` is set by api/baremetal/node_parent.py.  Node listings
leave the children out unless ``include_children=true``
(objects/baremetal/node.py), and allocations never pick them.
"""

from api.baremetal import policy, response, router
from api.baremetal import version as api_version
from api.common import links as common_links
from objects.baremetal import node as node_obj


@router.endpoint(api_version.CHILD_NODES)
def list_children(req):
    """The UUIDs of the node's children the caller may list (404 for a node it
    may not see, and below 1.83)."""
    node = policy.node_for(req)
    project = policy.list_project(req, 'node')
    filters = {'include_children': False, 'parent_node': node.uuid, 'project': project}
    children = node_obj.list_nodes(req.context, filters, None, None, 'id', 'asc')
    return response.send_json({
        'children': [child.uuid for child in children],
        'links': {'href': '%s/v1/nodes?parent_node=%s' % (common_links.base_url(req),
                                                          node.uuid),
                  'rel': 'children'}})
