"""/v1/nodes/{node}/states, its provision and power targets, and maintenance."""

from api.baremetal import common, fault, policy
from api.baremetal.handlers import node as node_handler
from api.baremetal.policies import endpoints as rules
from objects.baremetal import node as node_obj

_POWER_TARGETS = ('power on', 'power off', 'rebooting', 'soft power off',
                  'soft rebooting')
_TARGET_SCHEMA = {'type': 'object', 'properties': {'target': {'type': 'string'}},
                  'required': ['target']}


def _accepted(req, node):
    return common.no_content(202, headers={
        'location': '%s%s/v1/nodes/%s/states' % (req.host_url, req.script_name,
                                                 node.uuid)})


@common.endpoint()
def get_states(req):
    policy.authorize(req, rules.NODE_GET)
    node = node_obj.get(req.context, req.urlvars['node'])
    body = node_handler.represent(req, node)
    keys = ('provision_state', 'target_provision_state', 'provision_updated_at',
            'power_state', 'target_power_state', 'last_error', 'console_enabled')
    return common.send_json({k: body[k] for k in keys})


@common.endpoint()
def set_provision_state(req):
    policy.authorize(req, rules.NODE_PROVISION)
    data = common.json_body(req, _TARGET_SCHEMA)
    target = data['target']
    if target not in node_obj.PROVISION_VERBS:
        raise fault.BadRequest('"%s" is not a valid provision state target; this '
                               'service supports: %s'
                               % (target, ', '.join(sorted(node_obj.PROVISION_VERBS))))
    if target in ('manage', 'provide') and not req.version.matches('1.4'):
        raise fault.NotAcceptable('The "%s" target needs API version 1.4' % target)
    node = node_obj.set_provision_state(req.context, req.urlvars['node'], target,
                                        mirror=common.mirrors(req))
    return _accepted(req, node)


@common.endpoint()
def set_power_state(req):
    policy.authorize(req, rules.NODE_POWER)
    data = common.json_body(req, _TARGET_SCHEMA)
    if data['target'] not in _POWER_TARGETS:
        raise fault.BadRequest('Invalid power state target %s; valid: %s'
                               % (data['target'], ', '.join(_POWER_TARGETS)))
    node = node_obj.set_power_state(req.context, req.urlvars['node'], data['target'],
                                    mirror=common.mirrors(req))
    return _accepted(req, node)


_MAINTENANCE_SCHEMA = {'type': ['object', 'null'], 'properties': {
    'reason': {'type': ['string', 'null']}}}


@common.endpoint()
def set_maintenance(req):
    policy.authorize(req, rules.NODE_MAINTENANCE)
    reason = None
    if req.body:
        data = common.json_body(req, _MAINTENANCE_SCHEMA)
        reason = (data or {}).get('reason')
    node_obj.set_maintenance(req.context, req.urlvars['node'], True, reason,
                             mirror=common.mirrors(req))
    return common.no_content(202)


@common.endpoint()
def unset_maintenance(req):
    policy.authorize(req, rules.NODE_MAINTENANCE)
    node_obj.set_maintenance(req.context, req.urlvars['node'], False,
                             mirror=common.mirrors(req))
    return common.no_content(202)
