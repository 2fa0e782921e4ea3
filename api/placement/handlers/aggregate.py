"""/resource_providers/{uuid}/aggregates (from 1.1)."""

from api.placement import errors, fault, microversion, policy, response, router, validation
from api.placement.schemas import aggregate as schema
from common import exception
from common.policies.placement import endpoints as rules
from objects.placement import aggregate as agg_obj
from objects.placement import resource_provider as rp_obj


def _body(req, aggregates, generation):
    body = {'aggregates': aggregates}
    if req.version.matches(microversion.AGGREGATES_GENERATION):
        body['resource_provider_generation'] = generation
    return body


@router.endpoint(microversion.AGGREGATES, json_reply=True)
def get_aggregates(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_AGGREGATES_LIST)
    aggregates, generation = agg_obj.get_for_provider(req.context, req.urlvars['uuid'])
    return response.send_json(req, _body(req, aggregates, generation))


@router.endpoint(microversion.AGGREGATES, json_body=True)
def set_aggregates(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_AGGREGATES_UPDATE)
    uuid = req.urlvars['uuid']
    rp_obj.get_by_uuid(req.context, uuid)  # 404 comes before body errors
    data = validation.extract_json(req, schema.put_aggregates(req.version))
    if req.version.matches(microversion.AGGREGATES_GENERATION):
        aggregates = data['aggregates']
        expected = data['resource_provider_generation']
    else:
        aggregates, expected = data, None
    # stored as sent, as Placement does (member_of finds every spelling)
    try:
        generation = agg_obj.set_for_provider(req.context, uuid, set(aggregates),
                                              expected_generation=expected)
    except exception.ConcurrentUpdate:
        # Placement's sentence, as for the provider's traits (osc-placement matches it)
        raise fault.Conflict("Resource provider's generation already changed. Please "
                             "update the generation and try again.",
                             code=errors.CONCURRENT_UPDATE)
    return response.send_json(req, _body(req, aggregates, generation))
