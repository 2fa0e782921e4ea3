"""/resource_providers/{uuid}/usages (GET /usages is handlers/project_usage.py)."""

from api.placement import policy, response, router
from common.policies.placement import endpoints as rules
from objects.placement import usage as usage_obj


@router.endpoint(json_reply=True)
def get_provider_usages(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_USAGES)
    gen, usages = usage_obj.get_provider_usages(req.context, req.urlvars['uuid'])
    return response.send_json(req, {'resource_provider_generation': gen,
                                    'usages': usages})
