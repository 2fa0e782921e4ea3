"""GET /resource_providers/{uuid}/allocations: who holds what on one provider."""

from api.placement import microversion, policy, response, router
from common.policies.placement import endpoints as rules
from objects.placement import allocation as placement_alloc


@router.endpoint(json_reply=True)
def list_provider_allocations(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_ALLOCATIONS_LIST)
    provider, allocations, last_modified = placement_alloc.get_for_provider(
        req.context, req.urlvars['uuid'])
    if not req.version.matches(microversion.CONSUMER_GENERATIONS):
        for entry in allocations.values():
            del entry['consumer_generation']
    return response.send_json(
        req, {'resource_provider_generation': provider.generation,
              'allocations': allocations},
        last_modified=last_modified)
