"""Backfilling a node allocation (Ironic 1.58): an allocation for a node already ``active``.

Decided by the API at once, in one transaction: the node is checked against
the request, then the allocation is stored ``active`` on it (or ``error``
with the reason, as Ironic does).
"""

from typing import Any, NamedTuple

from oslo_utils import uuidutils

from common.node_allocation_contract import NewAllocation
from db import api as db_api
from objects.baremetal import allocation as node_alloc
from objects.baremetal import extra_usage
from objects.baremetal import node as node_obj


def _backfill_error(alloc_uuid, node, values):
    reasons = []
    if node.provision_state != node_obj.ACTIVE:
        reasons.append('Node must be in the "active" state, but it is in "%s"'
                       % node.provision_state)
    if values.get('resource_class') not in (None, node.resource_class):
        reasons.append('Resource class %s does not match the node\'s %s'
                       % (values['resource_class'], node.resource_class))
    if values.get('traits') and not set(values['traits']) <= set(node.traits):
        reasons.append('List of traits %s does not match the node\'s traits %s'
                       % (values['traits'], node.traits))
    if values.get('candidate_nodes') and node.uuid not in values['candidate_nodes']:
        reasons.append('Candidate nodes must be empty or contain the target node, '
                       'but got %s' % values['candidate_nodes'])
    if node.instance_uuid not in (None, alloc_uuid):
        reasons.append('Node is associated with instance %s' % node.instance_uuid)
    if not reasons:
        return None
    return 'Failed to process allocation %s: Cannot backfill an allocation for node ' \
           '%s: %s.' % (alloc_uuid, node.uuid, '; '.join(reasons))


class Backfill(NamedTuple):
    """The allocation a backfill created, or None and why the node did not fit."""
    alloc: Any
    error: str | None


@db_api.writer
def backfill(ctx: Any, new: NewAllocation, node_ident: str, conductor_affinity: str | None,
             claim: Any = None, extra_cap: int = 0) -> Backfill:
    """Create an allocation already holding an ``active`` node (Ironic 1.58).

    Returns a :class:`Backfill`.  A node that does not fit stores the
    allocation in ``error`` (as Ironic does; the row is committed) and
    answers ``Backfill(None, reason)``, raising nothing; the API turns the
    reason into a 400.  Raises NodeNotFound for an unknown node.  ``claim``
    (placement backend) is a :class:`objects.baremetal.mirror.Claimant`
    writing the Placement claim in this transaction.  ``extra_cap``:
    ``[allocation] max_extra_bytes_per_project`` (the row, ``error`` or not,
    stores its ``extra``).
    """
    node = node_obj.get_in_txn(ctx, node_ident)
    extra_usage.check(ctx, new.owner, new.extra, extra_cap)
    values = dict(new.columns(), conductor_affinity=conductor_affinity)
    if values.get('uuid') is None:
        values['uuid'] = node.instance_uuid or uuidutils.generate_uuid()
    if values.get('resource_class') is None:
        values['resource_class'] = node.resource_class
    error = _backfill_error(values['uuid'], node, values)
    if error is not None:
        node_alloc.insert_in_txn(ctx, dict(values, state=node_alloc.ERROR, last_error=error))
        return Backfill(None, error)
    alloc_id = node_alloc.insert_in_txn(ctx, dict(values, state=node_alloc.ACTIVE,
                                                  node_id=node.id))
    info = dict(node.instance_info or {}, traits=list(values.get('traits') or []))
    node_obj.guarded_update(ctx, node, {'instance_uuid': values['uuid'],
                                        'allocation_id': alloc_id,
                                        'instance_info': info},
                            expect=('instance_uuid', 'allocation_id', 'provision_state'))
    if claim is not None:
        claim.hold(ctx, node_alloc.get_by_id(ctx, alloc_id), node)
    return Backfill(node_alloc.get_by_id(ctx, alloc_id), None)
