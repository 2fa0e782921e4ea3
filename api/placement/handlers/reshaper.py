"""POST /reshaper: move inventory and allocations between providers atomically."""

from api.placement import consumer_form, errors, fault, policy, response, router, validation
from api.placement.handlers import allocation as allocation_handler
from api.placement.policies import endpoints as rules
from api.placement.schemas import allocation as allocation_schema
from api.placement.schemas import reshaper as schema
from common import exception


@router.endpoint('1.30', json_body=True)
def reshape(req):
    policy.authorize(req, rules.RESHAPER_RESHAPE)
    data = validation.extract_json(
        req, allocation_schema.for_version(schema.POST_RESHAPER, req.version))
    consumers = [consumer_form.consumer_request(req, uuid, entry)
                 for uuid, entry in sorted(data['allocations'].items())]
    tree = allocation_handler.routing_tree(
        req, set(data['inventories']) | {rp for c in consumers for rp in c['allocations']},
        [c['uuid'] for c in consumers])
    try:
        allocation_handler.conductor(req).reshape(req.context, tree, data['inventories'],
                                                  consumers)
    except exception.ReshapeProviderNotFound as exc:
        raise fault.BadRequest(exc.message, code=errors.RESOURCE_PROVIDER_NOT_FOUND)
    return response.no_content()
