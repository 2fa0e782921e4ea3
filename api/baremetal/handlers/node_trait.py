"""/v1/nodes/{node}/traits (API 1.37+): list, replace, add one, remove one or all.

Older versions answer as Ironic's do, whose routing then reaches other
handlers: a GET is a node's ``fields=traits`` (406), a PUT has no handler
(405) and a DELETE names a node with a path left over (404).
"""

from api.baremetal import backend, fault, gates, policy, response, router, validation
from api.baremetal.schemas import node_trait as schema
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node as node_obj

# Ironic's texts for a PUT that is neither "one trait, no body" nor "a list"
_ONE_OR_ALL = ('A single node trait may be added via PUT /v1/nodes/<node identifier>'
               '/traits/<trait> with no body, or all node traits may be replaced via '
               'PUT /v1/nodes/<node identifier>/traits with the list of traits '
               'specified in the request body.')
_NO_BODY = 'No body should be provided when adding a trait'


@router.endpoint()
def list_traits(req):
    if not req.version.matches(gates.TRAITS):
        policy.node_for(req)
        raise fault.NotAcceptable(gates.NOT_ACCEPTABLE)
    node = policy.node_for(req, rules.NODE_TRAITS_LIST)
    return response.send_json({'traits': node.traits})


@router.endpoint(gates.TRAITS, too_old=405)
def set_traits(req):
    policy.node_for(req, rules.NODE_TRAITS_SET)
    data = validation.json_body(req)
    if data is not None:
        validation.check_schema(schema.SET_SCHEMA, data, 'body')
    if not data or data.get('traits') is None:
        raise fault.BadRequest(_ONE_OR_ALL)
    node_obj.set_traits(req.context, req.urlvars['node'], data['traits'],
                        mirror=backend.mirrors(req))
    return response.no_content()


@router.endpoint(gates.TRAITS, too_old=405)
def add_trait(req):
    policy.node_for(req, rules.NODE_TRAITS_SET)
    validation.check_schema(validation.TRAIT_SCHEMA, req.urlvars['trait'], 'trait')
    if req.body and validation.json_body(req):
        raise fault.BadRequest(_NO_BODY)
    node_obj.add_trait(req.context, req.urlvars['node'], req.urlvars['trait'],
                       mirror=backend.mirrors(req))
    return response.no_content()


@router.endpoint(gates.TRAITS)
def remove_traits(req):
    policy.node_for(req, rules.NODE_TRAITS_DELETE)
    node_obj.set_traits(req.context, req.urlvars['node'], [], mirror=backend.mirrors(req))
    return response.no_content()


@router.endpoint(gates.TRAITS)
def remove_trait(req):
    policy.node_for(req, rules.NODE_TRAITS_DELETE)
    node_obj.remove_trait(req.context, req.urlvars['node'], req.urlvars['trait'],
                          mirror=backend.mirrors(req))
    return response.no_content()
