"""/v1/nodes/{node}/states, its provision and power targets, and maintenance."""

from api.baremetal import backend, fault, policy, response, router, validation
from api.baremetal.schemas import node_state as schema
from api.common import links as common_links
from api.common.conductor import require_conductor
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node as node_obj

_POWER_TARGETS = ('power on', 'power off', 'rebooting', 'soft power off',
                  'soft rebooting')
# the soft targets and a power ``timeout`` need 1.27 (Ironic's 406 before)
_SOFT_POWER = ('soft power off', 'soft rebooting')
SOFT_POWER_VERSION = '1.27'


def _accepted(req, node):
    return response.no_content(202, headers={
        'location': '%s/v1/nodes/%s/states' % (common_links.base_url(req),
                                               node.uuid)})


@router.endpoint()
def get_states(req):
    node = policy.node_for(req, rules.NODE_GET_STATES)
    body = response.node(req, node)
    keys = ('provision_state', 'target_provision_state', 'provision_updated_at',
            'power_state', 'target_power_state', 'last_error', 'console_enabled')
    return response.send_json({k: body[k] for k in keys})


@router.endpoint()
def set_provision_state(req):
    policy.node_for(req, rules.NODE_PROVISION)
    data = validation.json_body(req, schema.TARGET_SCHEMA)
    target = data['target']
    if target not in node_obj.PROVISION_VERBS:
        raise fault.BadRequest('"%s" is not a valid provision state target; this '
                               'service supports: %s'
                               % (target, ', '.join(sorted(node_obj.PROVISION_VERBS))))
    if target in ('manage', 'provide') and not req.version.matches('1.4'):
        raise fault.NotAcceptable('The "%s" target needs API version 1.4' % target)
    node = node_obj.get(req.context, req.urlvars['node'])
    if target in node_obj.DEALLOCATING_VERBS and node.allocation_uuid is not None:
        # ends the allocation: the conductor's write
        require_conductor(req).set_node_provision_state(
            req.context, backend.holder(req, node), node.uuid, target)
    else:
        node = node_obj.set_provision_state(req.context, node.uuid, target,
                                            mirror=backend.mirrors(req))
    return _accepted(req, node)


@router.endpoint()
def set_power_state(req):
    policy.node_for(req, rules.NODE_POWER)
    data = validation.json_body(req, schema.TARGET_SCHEMA)
    if ((data['target'] in _SOFT_POWER or data.get('timeout'))
            and not req.version.matches(SOFT_POWER_VERSION)):
        raise fault.NotAcceptable('Request not acceptable.')
    if data['target'] not in _POWER_TARGETS:
        raise fault.BadRequest('Invalid power state target %s; valid: %s'
                               % (data['target'], ', '.join(_POWER_TARGETS)))
    node = node_obj.set_power_state(req.context, req.urlvars['node'], data['target'],
                                    mirror=backend.mirrors(req))
    return _accepted(req, node)


@router.endpoint()
def set_maintenance(req):
    policy.node_for(req, rules.NODE_MAINTENANCE)
    reason = None
    if req.body:
        data = validation.json_body(req, schema.MAINTENANCE_SCHEMA)
        reason = (data or {}).get('reason')
    node_obj.set_maintenance(req.context, req.urlvars['node'], True, reason,
                             mirror=backend.mirrors(req))
    return response.no_content(202)


@router.endpoint()
def unset_maintenance(req):
    policy.node_for(req, rules.NODE_CLEAR_MAINTENANCE)
    node_obj.set_maintenance(req.context, req.urlvars['node'], False,
                             mirror=backend.mirrors(req))
    return response.no_content(202)
