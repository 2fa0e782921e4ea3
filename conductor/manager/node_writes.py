"""The allocation writes a conductor does for the API besides create and destroy.

A backfill (``POST /v1/allocations`` with ``node``, Ironic 1.58) and the
node writes that end an allocation (a PATCH removing ``instance_uuid``, the
``deleted``/``undeploy`` provision verbs, deleting a node in maintenance)
are allocation writes, so they run here, on the allocation's conductor, never
in the API process (DESIGN.md, routing).  With ``[allocation] backend =
placement`` the Placement claim and the node's provider change in the same
transaction, through this conductor's claims path (its per-tree lock).
"""

import logging

from objects.baremetal import backfill as node_backfill
from objects.baremetal import node as node_obj

LOG = logging.getLogger(__name__)


class NodeWrites:
    """Backfills and deallocating node writes of one conductor.

    :param allocator: the conductor's
        :class:`conductor.manager.node_allocations.NodeAllocator` (its host,
        its Placement claimant with that backend).
    """

    def __init__(self, allocator):
        self.allocator = allocator

    def backfill(self, ctx, values, node):
        """Store an allocation already holding ``node`` (``active``), or ``error``.

        Answers ``{'uuid', 'error'}``: the allocation's uuid and None, or the
        reason the node does not fit (the row is then stored ``error``, as
        Ironic does).  Raises NodeNotFound, AllocationAlreadyExists,
        InstanceAssociated, NodeLocked, or what the Placement claim raises.
        """
        values = dict(values, conductor_affinity=self.allocator.host)
        alloc, error = node_backfill.backfill(ctx, values, node,
                                              claim=self.allocator.claimant)
        if error is not None:
            LOG.info('Backfill on node %s refused: %s', node, error)
            return {'uuid': values.get('uuid'), 'error': error}
        return {'uuid': alloc.uuid, 'error': None}

    def update_node(self, ctx, node, values):
        """PATCH ``node`` with ``values`` that remove its instance (and allocation)."""
        node_obj.update(ctx, node, values, mirror=self.allocator.mirror,
                        deallocate=True)

    def set_provision_state(self, ctx, node, verb):
        """Run ``deleted``/``undeploy`` on ``node``, deleting its allocation."""
        node_obj.set_provision_state(ctx, node, verb, mirror=self.allocator.mirror,
                                     deallocate=True)

    def destroy_node(self, ctx, node):
        """Delete ``node`` (in maintenance) that an allocation holds."""
        node_obj.destroy(ctx, node, mirror=self.allocator.mirror, deallocate=True)
