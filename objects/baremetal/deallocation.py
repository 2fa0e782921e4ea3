"""Ending a node allocation: deleting it and freeing its node under Ironic's rules.

The conductor that owns the allocation calls this (conductor.manager); the
node lock and the state rules decide, in one transaction, whether the node
may lose it now.
"""

from __future__ import annotations

from typing import Any

from common import exception
from db import api as db_api
from db import models
from objects.baremetal import allocation as node_alloc
from objects.baremetal import mirror as node_mirror
from objects.baremetal import node as node_obj

_ALLOC = models.NodeAllocation.__table__


# Ironic's transitional states in which a node may be updated: a node moving
# to a target state may lose its allocation only in one of these
UPDATE_ALLOWED_STATES = (
    'deploy failed', 'inspecting', 'inspect failed', 'inspect wait', 'clean failed',
    'error', 'verifying', 'adopt failed', 'rescue failed', 'unrescue failed',
    'service', 'service hold', 'service failed')


def _check_deallocatable(alloc, node):
    """NodeInvalidState unless ``alloc`` may leave ``node`` (Ironic's rules).

    Always in maintenance; otherwise not while the node is ``active``, nor
    while it moves to a target state from a state that forbids updates.
    """
    if node.maintenance:
        return
    if node.target_provision_state and node.provision_state not in UPDATE_ALLOWED_STATES:
        raise exception.NodeInvalidState(
            reason='Cannot remove allocation %s from node %s: its state %s does not '
                   'allow updates; set maintenance first.'
                   % (alloc.uuid, node.uuid, node.provision_state))
    if node.provision_state == node_obj.ACTIVE:
        raise exception.NodeInvalidState(
            reason='Cannot remove allocation %s from node %s in state %s; '
                   'set maintenance first.'
                   % (alloc.uuid, node.uuid, node.provision_state))


@db_api.writer
def destroy_allocation(ctx: Any, ident: str, host: str, mirror: bool = False) -> None:
    """Delete an allocation; with a node, under the node lock and Ironic's state rules.

    Raises NodeLocked when the node is held, NodeInvalidState when it is
    active and not in maintenance.  The node's instance (and with ``mirror``
    the Placement claim) is cleared in the same transaction.
    """
    alloc = node_alloc.get_for_update(ctx, ident)   # a reservation may be committing
    if alloc.node_id is not None:
        node = node_obj.get_by_id(ctx, alloc.node_id)
        if node.reservation is not None:
            raise exception.NodeLocked(node=node.uuid, host=node.reservation)
        _check_deallocatable(alloc, node)
        values: dict[str, Any] = {'allocation_id': None}
        if node.instance_uuid == alloc.uuid:
            info = dict(node.instance_info or {})
            info.pop('traits', None)
            values.update(instance_uuid=None, instance_info=info)
        node_obj.guarded_update(ctx, node, values,
                                expect=('allocation_id', 'provision_state'))
    ctx.session.execute(_ALLOC.delete().where(_ALLOC.c.id == alloc.id))
    if mirror:
        node_mirror.release(ctx, alloc.uuid)
        if alloc.node_id is not None:
            node_mirror.sync(ctx, node_obj.get_by_id(ctx, alloc.node_id))
