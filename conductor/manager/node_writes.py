"""The allocation writes a conductor does for the API besides create and destroy.

A backfill (``POST /v1/allocations`` with ``node``, Ironic 1.58) and the
node writes that end an allocation (a PATCH removing ``instance_uuid``, the
``deleted``/``undeploy`` provision verbs, deleting a node in maintenance)
are allocation writes, so they run here, on the allocation's conductor, never
in the API process (DESIGN.md, routing).  With ``[allocation] backend =
placement`` the Placement claim and the node's provider change in the same
transaction, under this conductor's lock of the node's provider tree
(taken before that transaction, as claims take it).
These node writes send Ironic's node notifications besides the allocation's
(conductor.node_notifications).
"""

import logging
import types

from common import exception
from common.node_allocation_contract import BackfillAnswer
from conductor import node_notifications
from objects.baremetal import allocation as node_alloc
from objects.baremetal import backfill as node_backfill
from objects.baremetal import node as node_obj

LOG = logging.getLogger('berth.' + __name__)


class NodeWrites:
    """Backfills and deallocating node writes of one conductor.

    :param allocator: the conductor's
        :class:`conductor.manager.node_allocations.NodeAllocator` (its host,
        its Placement claimant with that backend).
    """

    def __init__(self, allocator, conf=None):
        self.allocator = allocator
        self.conf = conf

    @property
    def _extra_cap(self):
        """``[allocation] max_extra_bytes_per_project`` (0: no cap)."""
        return self.conf.allocation.max_extra_bytes_per_project if self.conf else 0

    def backfill(self, ctx, new, node):
        """Store an allocation already holding ``node`` (``active``), or ``error``.

        ``new``: a common.node_allocation_contract.NewAllocation with its
        ``uuid``.  Answers a BackfillAnswer: the allocation's uuid and None,
        or the reason the node does not fit (the row is then stored
        ``error``, as Ironic does).  Raises NodeNotFound,
        AllocationAlreadyExists, InstanceAssociated, NodeLocked, or what the
        Placement claim raises.
        """
        host = self.allocator.host
        notifier = self.allocator.notifier
        notify = notifier is not None and notifier.enabled
        if notify:
            notifier.emit(ctx, 'create', 'start', _asked(new, host, node_alloc.ALLOCATING))
        try:
            with self.allocator.tree_locked(ctx, node):
                alloc, error = node_backfill.backfill(ctx, new, node, host,
                                                      claim=self.allocator.claimant,
                                                      extra_cap=self._extra_cap)
        except Exception as exc:
            if notify:
                notifier.emit(ctx, 'create', 'error', _asked(
                    new, host, node_alloc.ERROR, last_error=str(exc)))
            raise
        if error is not None:
            LOG.info('Backfill on node %s refused: %s', node, error)
            if notify:
                notifier.emit(ctx, 'create', 'error', _row(ctx, new.uuid))
            return BackfillAnswer(new.uuid, error)
        if notify:
            notifier.emit(ctx, 'create', 'end', alloc)
        return BackfillAnswer(alloc.uuid, None)

    def update_allocation(self, ctx, allocation, change):
        """PATCH an allocation's ``name`` and/or ``extra`` (an AllocationUpdate)."""
        with self.allocator.notified(ctx, 'update', node_alloc.get(ctx, allocation)):
            node_alloc.update(ctx, allocation, change, extra_cap=self._extra_cap)

    @property
    def _nodes(self):
        return node_notifications.NodeNotifier(self.allocator.notifier)

    def _node_before(self, ctx, node, nodes):
        """The node as it is before a notified write (None when not notifying)."""
        if not nodes.enabled:
            return None
        try:
            return node_obj.get(ctx, node)
        except exception.NodeNotFound:
            return None

    def update_node(self, ctx, node, change):
        """PATCH ``node`` with ``change`` (a NodeUpdate) removing its instance (and
        allocation)."""
        nodes = self._nodes
        before = self._node_before(ctx, node, nodes)
        with self._deleting(ctx, node), nodes.crud(
                ctx, 'update', before, lambda: node_obj.get(ctx, node)):
            node_obj.update(ctx, node, change.columns(), mirror=self.allocator.mirror,
                            deallocate=True)

    def set_provision_state(self, ctx, node, verb):
        """Run ``deleted``/``undeploy`` on ``node``, deleting its allocation."""
        nodes = self._nodes
        before = self._node_before(ctx, node, nodes)
        with self._deleting(ctx, node):
            after = node_obj.set_provision_state(ctx, node, verb,
                                                 mirror=self.allocator.mirror,
                                                 deallocate=True)
        # Ironic's event for both verbs is ``delete`` (its states.VERBS)
        nodes.provision_set(ctx, before, after, 'delete')

    def destroy_node(self, ctx, node):
        """Delete ``node`` (in maintenance) that an allocation holds."""
        nodes = self._nodes
        before = self._node_before(ctx, node, nodes)
        with self._deleting(ctx, node), nodes.crud(ctx, 'delete', before):
            node_obj.destroy(ctx, node, mirror=self.allocator.mirror, deallocate=True)

    def _deleting(self, ctx, node):
        """delete.start/.end/.error around a node write ending the node's allocation."""
        try:
            alloc = node_alloc.get_by_node(ctx, node)
        except (exception.AllocationNotFound, exception.NodeNotFound):
            alloc = None
        return self.allocator.notified(ctx, 'delete', alloc)


def _asked(new, host, state, **more):
    """What a notification shows of an allocation not stored (yet): what was asked."""
    return types.SimpleNamespace(**dict(new.to_primitive(), conductor_affinity=host,
                                        state=state, **more))


def _row(ctx, uuid):
    try:
        return node_alloc.get(ctx, uuid)
    except exception.AllocationNotFound:
        return None
