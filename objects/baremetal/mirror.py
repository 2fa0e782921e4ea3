"""Bare-metal nodes mirrored as resource providers (``[allocation] backend = placement``).

Each node is one root provider with the node's uuid as uuid and name, an
inventory of one indivisible unit of ``CUSTOM_<RESOURCE_CLASS>`` (normalised
as nova's Ironic driver does) and the node's traits.  The unit is
``reserved`` while the node cannot take a new allocation: maintenance, not
``available``, no power state, an instance, or a parent node (a child node is
never allocated, as in Ironic).  An allocation holding the
node is a Placement consumer (the allocation uuid) with one unit on it.

Every function here runs inside the caller's writer, so the mirror changes
in the same transaction as the node and can never disagree with it.
"""

import dataclasses

import os_resource_classes
import sqlalchemy as sa

from common import exception
from common.claim_contract import ClaimConsumer
from db import api as db_api
from db import models
from objects.placement import allocation as placement_alloc
from objects.placement import generation, provider_trait
from objects.placement import inventory as inv_obj
from objects.placement import resource_class as rc_obj
from objects.placement import resource_provider as rp_obj
from objects.placement import trait as trait_obj

_RP = models.ResourceProvider.__table__
_AVAILABLE = 'available'


def resource_class(node_resource_class):
    """The Placement class of a node resource class.

    ``baremetal-gold`` -> ``CUSTOM_BAREMETAL_GOLD``.
    """
    if not node_resource_class:
        return None
    return os_resource_classes.normalize_name(node_resource_class)


def unusable(node):
    """Whether the node cannot take a new allocation (its unit is reserved)."""
    return (node.maintenance or node.provision_state != _AVAILABLE
            or node.power_state is None or node.instance_uuid is not None
            or getattr(node, 'parent_node', None) is not None)   # a child (API 1.83)


def inventory_of(node):
    """The provider inventory a node should have: [] or one Inventory of one unit."""
    rc = resource_class(node.resource_class)
    if rc is None:
        return []
    return [inv_obj.Inventory(resource_class=rc, total=1,
                              reserved=1 if unusable(node) else 0,
                              min_unit=1, max_unit=1, step_size=1,
                              allocation_ratio=1.0)]


def _provider(ctx, node):
    row = ctx.session.execute(sa.select(_RP).where(_RP.c.uuid == node.uuid)).first()
    if row is None:
        rp_obj.create(ctx, node.uuid, uuid=node.uuid)
        row = generation.provider_by_uuid(ctx, node.uuid)
    return row


def _same(have, want):
    key = lambda i: (i.resource_class, i.total, i.reserved, i.min_unit,  # noqa: E731
                     i.max_unit, i.step_size, float(i.allocation_ratio))
    return sorted(map(key, have)) == sorted(map(key, want))


@db_api.writer
def sync(ctx, node, reserved=None):
    """Make the node's provider match ``node`` (a freshly read objects.baremetal.node.Node).

    Creates the provider on first use.  ``reserved`` overrides the reserved
    unit (a claim opening the unit of a node already in use).  Raises
    InventoryInUse when the node's resource class changes while an
    allocation holds the old one.
    """
    rp = _provider(ctx, node)
    want = inventory_of(node)
    if reserved is not None:
        want = [dataclasses.replace(i, reserved=reserved) for i in want]
    for inv in want:
        rc_obj.ensure(ctx, inv.resource_class)
    gen = rp.generation
    if not _same(inv_obj.get_all(ctx, node.uuid)[1], want):
        gen, _ = inv_obj.replace_all(ctx, node.uuid, gen, want, allow_zero_capacity=True)
    for name in node.traits:
        trait_obj.ensure(ctx, name)
    provider_trait.set_traits(ctx, node.uuid, gen, list(node.traits))


@db_api.writer
def release(ctx, consumer_uuid):
    """Delete the Placement allocations of ``consumer_uuid`` (an allocation uuid), if any."""
    try:
        placement_alloc.delete_consumer(ctx, consumer_uuid)
    except exception.ConsumerAllocationsNotFound:
        pass


@db_api.writer
def remove(ctx, node):
    """Delete the node's provider with whatever allocation it still carried."""
    try:
        rp = generation.provider_by_uuid(ctx, node.uuid)
    except exception.ResourceProviderNotFound:
        return
    for consumer in placement_alloc.get_for_provider(ctx, rp.uuid)[1]:
        release(ctx, consumer)
    rp_obj.destroy(ctx, node.uuid)


class Claimant:
    """Writes the Placement claim of a node allocation: the allocation uuid
    consumes the node's one unit.

    :param project_id: project of allocations without an owner.
    :param user_id: user recorded for every claim (the API has none to give).
    :param enforce_quota: check ``[quota]`` limits in the claim.
    :param quota_source: where limits come from (None: berth's table).

    The claim is written with :func:`objects.placement.allocation.replace`
    in the caller's transaction; the caller (a conductor) holds the lock of
    the node's provider tree (the node's uuid) around that whole transaction,
    as every claim on that tree does.
    """

    def __init__(self, project_id, user_id, enforce_quota=False, quota_source=None):
        self.project_id = project_id
        self.user_id = user_id
        self.enforce_quota = enforce_quota
        self.quota_source = quota_source

    def _replace(self, ctx, alloc, requests):
        if self.enforce_quota and self.quota_source is not None:
            # the limits of Keystone are read (or found cached) once per claim
            self.quota_source.prefetch([alloc.owner or self.project_id])
        placement_alloc.replace(ctx, requests, enforce_quota=self.enforce_quota,
                                quota_source=self.quota_source)

    def requests(self, alloc, node):
        """The claim of ``alloc`` on ``node`` in objects.placement.allocation.replace's form."""
        return [ClaimConsumer(alloc.uuid, {node.uuid: {resource_class(node.resource_class): 1}},
                              alloc.owner or self.project_id, self.user_id)]

    def hold(self, ctx, alloc, node):
        """Claim ``node`` (as read before it was reserved) for ``alloc``, then mirror it.

        Runs in the caller's writer.  A node already in use (a backfill) or
        not mirrored yet has its unit opened first; the final mirror reserves
        it again.  Raises what objects.placement.allocation.replace raises
        (InvalidAllocation, QuotaExceeded, ConcurrentUpdate ...), rolling the
        caller back.
        """
        if not node.resource_class:
            raise exception.InvalidAllocation(
                reason='node %s has no resource class' % node.uuid)
        if unusable(node) or not ctx.session.execute(
                sa.select(_RP.c.id).where(_RP.c.uuid == node.uuid)).first():
            sync(ctx, node, reserved=0)
        self._replace(ctx, alloc, self.requests(alloc, node))
        _reserve_unit(ctx, dataclasses.replace(node, instance_uuid=alloc.uuid,
                                               allocation_id=alloc.id))


def _reserve_unit(ctx, node):
    """After a claim only the reserved unit changes: class and traits are mirrored."""
    rp = generation.provider_by_uuid(ctx, node.uuid)
    for inv in inventory_of(node):
        inv_obj.update_one(ctx, node.uuid, rp.generation, inv, allow_zero_capacity=True)
