"""/resource_providers/{uuid}/traits."""

from api.placement import fault, microversion, policy, response, router, validation
from api.placement.schemas import trait as schema
from common import exception
from common.policies.placement import endpoints as rules
from objects.placement import provider_trait as rp_trait_obj


def _body(gen, names):
    return {'traits': names, 'resource_provider_generation': gen}


@router.endpoint(microversion.TRAITS, json_reply=True)
def get_provider_traits(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_TRAITS_LIST)
    gen, names = rp_trait_obj.get(req.context, req.urlvars['uuid'])
    return response.send_json(req, _body(gen, names))


@router.endpoint(microversion.TRAITS, json_body=True)
def set_provider_traits(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_TRAITS_UPDATE)
    data = validation.extract_json(req, schema.PUT_PROVIDER_TRAITS)
    try:
        gen, names = rp_trait_obj.set_traits(
            req.context, req.urlvars['uuid'], data['resource_provider_generation'],
            data['traits'])
    except exception.TraitNotFound as exc:
        raise fault.BadRequest(exc.message)
    return response.send_json(req, _body(gen, names))


@router.endpoint(microversion.TRAITS)
def delete_provider_traits(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_TRAITS_DELETE)
    rp_trait_obj.delete_all(req.context, req.urlvars['uuid'])
    return response.no_content()
