"""The reshaper: replace some providers' inventories and some consumers' allocations at once.

Everything happens in one transaction (Placement 2.13): the client's provider
generations are checked, each provider whose new inventory is non-empty
first gets the union of its old and new inventory (so allocations may move
onto classes that are about to appear), then the allocations are replaced,
then each provider's inventory is set to exactly the new set; removing a
class that still has allocations fails with InventoryInUse.
"""

from __future__ import annotations

from collections.abc import Mapping

from common import exception
from common.claim_contract import ClaimConsumer
from common.context import RequestContext
from common.inventory_contract import InventoryRecord, ProviderInventories
from db import api as db_api
from objects.placement import allocation as placement_alloc
from objects.placement import generation as gen_obj
from objects.placement import inventory as inv_obj


def _new_inventories(records: Mapping[str, InventoryRecord]) -> dict[str, inv_obj.Inventory]:
    return {rc: inv_obj.from_record(rc, rec.to_primitive()) for rc, rec in records.items()}


def _replace(ctx, rp_uuid, expected, inventories):
    try:
        return inv_obj.replace_all(ctx, rp_uuid, expected, inventories,
                                   allow_zero_capacity=True)[0]
    except exception.ResourceClassNotFound as exc:
        raise exception.Invalid(reason=exc.message)


@db_api.writer
def reshape(ctx: RequestContext, inventories: Mapping[str, ProviderInventories],
            consumers: list[ClaimConsumer]) -> None:
    """Apply a reshape.

    ``inventories`` is ``{rp uuid: ProviderInventories}``
    (common.inventory_contract: the provider generation the client read and
    its new records); ``consumers`` the claims that
    :func:`objects.placement.allocation.replace` takes.  Raises
    ReshapeProviderNotFound, ConcurrentUpdate (a provider generation),
    ConsumerGenerationConflict, InvalidInventory, InventoryInUse and the
    allocation errors; nothing is written then.
    """
    wanted = {}
    for rp_uuid in sorted(inventories):
        entry = inventories[rp_uuid]
        try:
            rp = gen_obj.provider_by_uuid(ctx, rp_uuid)
        except exception.ResourceProviderNotFound:
            raise exception.ReshapeProviderNotFound(uuid=rp_uuid)
        given = entry.generation
        if rp.generation != given:
            raise exception.ConcurrentUpdate(
                what='resource provider',
                reason='actual: %d, given: %d (provider %s)'
                       % (rp.generation, given, rp_uuid))
        wanted[rp_uuid] = _new_inventories(entry.inventories)
    # interim: old and new classes together, new values win
    for rp_uuid, new in wanted.items():
        if not new:
            continue
        gen, old = inv_obj.get_all(ctx, rp_uuid)
        union = {inv.resource_class: inv for inv in old}
        union.update(new)
        _replace(ctx, rp_uuid, gen, list(union.values()))
    if consumers:
        placement_alloc.replace(ctx, consumers)
    # final: exactly the new inventory
    for rp_uuid, new in wanted.items():
        _replace(ctx, rp_uuid, inv_obj.provider_generation(ctx, rp_uuid),
                 list(new.values()))
