"""/v1/nodes/{node}/states, its provision, power and boot targets, and maintenance."""

from oslo_utils import strutils

from api.baremetal import (
    backend,
    fault,
    policy,
    provision_params,
    response,
    router,
    validation,
)
from api.baremetal import version as api_version
from api.baremetal.schemas import node_state as schema
from api.common import links as common_links
from api.common.conductor import require_conductor
from common import exception
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node as node_obj

_POWER_TARGETS = ('power on', 'power off', 'rebooting', 'soft power off',
                  'soft rebooting')
# the soft targets and a power ``timeout`` need 1.27 (Ironic's 406 before)
_SOFT_POWER = ('soft power off', 'soft rebooting')
SOFT_POWER_VERSION = '1.27'
# refused for a node with disable_power_off (1.95)
_OFF = ('power off', 'soft power off')
# Ironic's boot modes (1.76) and its states in which a node is moving
BOOT_MODES = ('bios', 'uefi')
_UNSTABLE = ('deploying', 'wait call-back', 'cleaning', 'clean wait', 'verifying',
             'deleting', 'inspecting', 'inspect wait', 'adopting', 'rescuing',
             'unrescuing', 'servicing', 'service wait')
_TOO_OLD_BOOT = ('This endpoint is supported starting with the API version %s'
                 % api_version.CHANGE_BOOT_MODE)


def _accepted(req, node):
    return response.no_content(202, headers={
        'location': '%s/v1/nodes/%s/states' % (common_links.base_url(req),
                                               node.uuid)})


@router.endpoint()
def get_states(req):
    node = policy.node_for(req, rules.NODE_GET_STATES)
    body = response.node(req, node)
    keys = ('provision_state', 'target_provision_state', 'provision_updated_at',
            'power_state', 'target_power_state', 'last_error', 'console_enabled',
            'boot_mode', 'secure_boot')       # the last two from 1.75
    return response.send_json({k: body[k] for k in keys if k in body})


@router.endpoint()
def set_provision_state(req):
    node = policy.node_for(req, rules.NODE_PROVISION)
    data = validation.json_body(req, provision_params.PROVISION_SCHEMA)
    target = data['target']
    if target not in node_obj.PROVISION_VERBS:
        raise fault.BadRequest('"%s" is not a valid provision state target; this '
                               'service supports: %s'
                               % (target, ', '.join(sorted(node_obj.PROVISION_VERBS))))
    if target in ('manage', 'provide') and not req.version.matches('1.4'):
        raise fault.NotAcceptable('The "%s" target needs API version 1.4' % target)
    provision_params.check_verb(req, target)
    if data.get('service_steps'):       # Ironic's second rule, before the state
        policy.authorize(req, rules.NODE_PROVISION_SERVICE_STEPS, policy.node_target(node))
    if (target in ('service', 'abort')
            and node.provision_state not in node_obj.PROVISION_VERBS[target][0]):
        # Ironic checks the state before servicing's own parameters and version
        raise exception.InvalidStateRequested(action=target, node=node.uuid,
                                              state=node.provision_state)
    provision_params.check(req, data)
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
    node = policy.node_for(req, rules.NODE_POWER)
    data = validation.json_body(req, schema.TARGET_SCHEMA)
    if ((data['target'] in _SOFT_POWER or data.get('timeout'))
            and not req.version.matches(SOFT_POWER_VERSION)):
        raise fault.NotAcceptable('Request not acceptable.')
    if data['target'] not in _POWER_TARGETS:
        raise fault.BadRequest('Invalid power state target %s; valid: %s'
                               % (data['target'], ', '.join(_POWER_TARGETS)))
    if data['target'] in _OFF and node.disable_power_off:
        # Ironic's PowerStateFailure (an InvalidState) at every version (1.95)
        raise exception.NodeInvalidState(
            reason='Failed to set node power state to %s.' % data['target'])
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


def _boot_node(req, rule):
    """The node a boot setting is for: the policy first (a reader's 403), then the
    1.76 gate (404), as Ironic's states controller checks them."""
    node = policy.node_for(req, rule)
    if not req.version.matches(api_version.CHANGE_BOOT_MODE):
        raise fault.NotFound(_TOO_OLD_BOOT)
    return node


def _set_boot(req, node, values):
    """Store a boot setting (no hardware to ask: the fake management's answer is
    the value set); 409 while the node is moving, as Ironic."""
    if node.provision_state in _UNSTABLE:
        raise exception.Conflict(
            'Node is in %s state. Since node is transitioning, the boot mode will not '
            'be set as this may interfere with ongoing changes and result in '
            'erroneous modification. Try again later.' % node.provision_state)
    node = node_obj.update(req.context, node.uuid, values, mirror=backend.mirrors(req))
    return _accepted(req, node)


@router.endpoint(api_version.CHANGE_BOOT_MODE, message=_TOO_OLD_BOOT, handler_gates=True)
def set_boot_mode(req):
    node = _boot_node(req, rules.NODE_SET_BOOT_MODE)
    data = validation.json_body(req, schema.BOOT_MODE_SCHEMA)
    target = data['target']
    if target not in BOOT_MODES:
        raise fault.BadRequest('Invalid boot mode %s requested for node. Allowed boot '
                               'modes are: %s' % (target, ', '.join(BOOT_MODES)))
    return _set_boot(req, node, {'boot_mode': target})


@router.endpoint(api_version.CHANGE_BOOT_MODE, message=_TOO_OLD_BOOT, handler_gates=True)
def set_secure_boot(req):
    node = _boot_node(req, rules.NODE_SET_SECURE_BOOT)
    data = validation.json_body(req, schema.SECURE_BOOT_SCHEMA)
    target = data['target']
    if not isinstance(target, bool):
        try:
            target = strutils.bool_from_string(target, strict=True)
        except (ValueError, TypeError):
            target = None
    if target is None:
        raise fault.BadRequest('Invalid secure_boot %s requested for node. Allowed '
                               'secure_boot states are: True, False) ' % data['target'])
    return _set_boot(req, node, {'secure_boot': target})
