"""GET /usages: a project's (and optionally a user's) usage totals."""

from api.placement import microversion, policy, response, router, validation
from api.placement.schemas import allocation as allocation_schema
from api.placement.schemas import usage as schema
from common.policies.placement import endpoints as rules
from objects.placement import project_usage as usage_obj


@router.endpoint(microversion.USAGES, json_reply=True)
def get_usages(req):
    # the target is the project asked about, checked before the query
    project_id = req.GET.get('project_id')
    policy.authorize(req, rules.USAGES, {'project_id': project_id})
    query = validation.validate_query(
        req, allocation_schema.for_version(schema.GET_USAGES, req.version))
    usages: dict[str, int] | dict[str, dict[str, int]]
    if req.version.matches(microversion.CONSUMER_TYPES):
        usages = usage_obj.get_by_consumer_type(
            req.context, query['project_id'], query.get('user_id'),
            query.get('consumer_type'))
    else:
        usages = usage_obj.get_totals(req.context, query['project_id'],
                                      query.get('user_id'))
    return response.send_json(req, {'usages': usages})
