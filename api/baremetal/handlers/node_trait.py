"""/v1/nodes/{node}/traits (API 1.37+): list, replace, add one, remove one or all."""

from api.baremetal import backend, policy, response, router, validation
from api.baremetal.schemas import node_trait as schema
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node as node_obj


@router.endpoint('1.37')
def list_traits(req):
    node = policy.node_for(req, rules.NODE_TRAITS_LIST)
    return response.send_json({'traits': node.traits})


@router.endpoint('1.37', too_old=405)
def set_traits(req):
    policy.node_for(req, rules.NODE_TRAITS_SET)
    traits = validation.json_body(req, schema.SET_SCHEMA)['traits']
    for trait in traits:
        validation.check_trait(trait)
    node_obj.set_traits(req.context, req.urlvars['node'], traits,
                        mirror=backend.mirrors(req))
    return response.no_content()


@router.endpoint('1.37', too_old=405)
def add_trait(req):
    policy.node_for(req, rules.NODE_TRAITS_SET)
    validation.check_trait(req.urlvars['trait'])
    node_obj.add_trait(req.context, req.urlvars['node'], req.urlvars['trait'],
                       mirror=backend.mirrors(req))
    return response.no_content()


@router.endpoint('1.37', too_old=405)
def remove_traits(req):
    policy.node_for(req, rules.NODE_TRAITS_DELETE)
    node_obj.set_traits(req.context, req.urlvars['node'], [], mirror=backend.mirrors(req))
    return response.no_content()


@router.endpoint('1.37', too_old=405)
def remove_trait(req):
    policy.node_for(req, rules.NODE_TRAITS_DELETE)
    node_obj.remove_trait(req.context, req.urlvars['node'], req.urlvars['trait'],
                          mirror=backend.mirrors(req))
    return response.no_content()
