"""/v1/nodes/{node}/traits (API 1.37+): list, replace, add one, remove one or all."""

from api.baremetal import common, policy
from api.baremetal.policies import endpoints as rules
from objects.baremetal import node as node_obj

_SET_SCHEMA = {'type': 'object', 'properties': {
    'traits': {'type': 'array', 'items': {'type': 'string'}, 'maxItems': 50}},
    'required': ['traits'], 'additionalProperties': False}


@common.endpoint('1.37')
def list_traits(req):
    policy.authorize(req, rules.NODE_TRAITS_LIST)
    node = node_obj.get(req.context, req.urlvars['node'])
    return common.send_json({'traits': node.traits})


@common.endpoint('1.37', too_old=405)
def set_traits(req):
    policy.authorize(req, rules.NODE_TRAITS_SET)
    traits = common.json_body(req, _SET_SCHEMA)['traits']
    for trait in traits:
        common.check_trait(trait)
    node_obj.set_traits(req.context, req.urlvars['node'], traits,
                        mirror=common.mirrors(req))
    return common.no_content()


@common.endpoint('1.37', too_old=405)
def add_trait(req):
    policy.authorize(req, rules.NODE_TRAITS_SET)
    common.check_trait(req.urlvars['trait'])
    node_obj.add_trait(req.context, req.urlvars['node'], req.urlvars['trait'],
                       mirror=common.mirrors(req))
    return common.no_content()


@common.endpoint('1.37', too_old=405)
def remove_traits(req):
    policy.authorize(req, rules.NODE_TRAITS_DELETE)
    node_obj.set_traits(req.context, req.urlvars['node'], [], mirror=common.mirrors(req))
    return common.no_content()


@common.endpoint('1.37', too_old=405)
def remove_trait(req):
    policy.authorize(req, rules.NODE_TRAITS_DELETE)
    node_obj.remove_trait(req.context, req.urlvars['node'], req.urlvars['trait'],
                          mirror=common.mirrors(req))
    return common.no_content()
