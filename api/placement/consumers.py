"""Allocation request bodies as the conductor's claim payloads.

PUT/POST /allocations and POST /reshaper name consumers' allocations in the
same shapes (by microversion); this turns them into the claim contract
(common.claim_contract.ClaimConsumer, the conductor's RPC
payload), so no handler borrows another's.
"""

from api.placement import microversion
from common.claim_contract import ClaimConsumer


def claim_consumer(req, consumer_uuid, entry):
    """The ClaimConsumer of one consumer's write from a 1.12+ style entry.

    ``entry`` holds ``allocations`` ({rp uuid: {'resources': ...}}) and, by
    microversion, project/user, consumer_generation and consumer_type.
    """
    placement = req.conf.placement
    return ClaimConsumer(
        uuid=consumer_uuid,
        allocations={rp: dict(alloc['resources'])
                     for rp, alloc in entry['allocations'].items()},
        project_id=entry.get('project_id', placement.incomplete_consumer_project_id),
        user_id=entry.get('user_id', placement.incomplete_consumer_user_id),
        consumer_type=entry.get('consumer_type'),
        check_generation=req.version.matches(microversion.CONSUMER_GENERATIONS),
        generation=entry.get('consumer_generation'))


def from_list(items):
    """The 1.0-1.11 list shape as the 1.12 dict shape (repeated providers merged)."""
    merged: dict[str, dict[str, dict[str, int]]] = {}
    for item in items:
        resources = merged.setdefault(item['resource_provider']['uuid'],
                                      {'resources': {}})['resources']
        for rc, amount in item['resources'].items():
            resources[rc] = resources.get(rc, 0) + amount
    return merged
