"""POST /reshaper: move inventory and allocations between providers atomically."""

from api.common.conductor import require_conductor
from api.placement import (
    consumers,
    errors,
    fault,
    microversion,
    policy,
    response,
    router,
    validation,
)
from api.placement.schemas import allocation as allocation_schema
from api.placement.schemas import reshaper as schema
from common import exception, inventory_contract
from common.policies.placement import endpoints as rules
from conductor.rpcapi import payloads


@router.endpoint(microversion.RESHAPER, json_body=True)
def reshape(req):
    policy.authorize(req, rules.RESHAPER_RESHAPE)
    data = validation.extract_json(
        req, allocation_schema.for_version(schema.POST_RESHAPER, req.version))
    body = payloads.ReshapeBody(
        inventory_contract.from_primitives(data['inventories']),
        [consumers.claim_consumer(req, uuid, entry)
                              for uuid, entry in sorted(data['allocations'].items())])
    try:
        require_conductor(req).reshape(req.context, body)
    except exception.ReshapeProviderNotFound as exc:
        raise fault.BadRequest(exc.message, code=errors.RESOURCE_PROVIDER_NOT_FOUND)
    except exception.InventoryInUse as exc:
        raise fault.inventory_in_use(exc)
    return response.no_content()
