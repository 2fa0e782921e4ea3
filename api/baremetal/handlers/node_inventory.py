"""/v1/nodes/{node}/inventory (Ironic API 1.81): a node's inspection data.

berth runs no inspection and stores no inspection data, so it answers as
Ironic does for a node without any (or with ``[inventory] data_backend =
none``): 404 ``Node inventory record for node <uuid> could not be found.``,
after the rule ``baremetal:node:inventory:get`` (Ironic's default: a system
reader or a reader of the owning project; a lessee sees the node but gets
403; another project's node is a 404 for the node).  404 below 1.81.
"""

from api.baremetal import policy, router
from api.baremetal import version as api_version
from common import exception
from common.policies.baremetal import endpoints as rules


@router.endpoint(api_version.NODE_INVENTORY)
def get_inventory(req):
    node = policy.node_for(req, rules.NODE_INVENTORY_GET)
    raise exception.NodeInventoryNotFound(node=node.uuid)
