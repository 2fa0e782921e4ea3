"""Ironic's rules for the node fields of chassis, protection, retirement, fault
and driver interfaces: version gates, values and the states that allow them.

* ``chassis_uuid`` (any version): an unknown chassis is a 400; removing it
  needs 1.25 (406 below);
* ``<kind>_interface`` (1.20 network, 1.31 most, 1.33 storage, 1.38 rescue,
  1.40 bios): an implementation fake-hardware has enabled (400 otherwise),
  changed only in enroll, manageable, available or maintenance (409); a null
  or removed one is the driver's default; ``?reset_interfaces=true`` (1.45)
  with a new ``driver`` sets every interface not given to its default;
* ``protected`` (1.48) only in ``active`` or ``rescue`` (409), a
  ``protected_reason`` only with ``protected`` (400); unprotecting clears it;
* ``retired`` (1.61) never in ``available`` (409), ``retired_reason`` only
  with ``retired`` (400); un-retiring clears it;
* ``fault`` (1.42) is read-only; ``?fault=`` takes Ironic's fault names;
* ``maintenance`` may be PATCHed too; leaving it clears its reason and fault;
* ``network_data`` (1.66) is null, ``{}`` or a network_data.json document
  (schemas/network_data.py; 400 otherwise).
Fields of a newer version than the caller's are a 406, as in Ironic.
"""

import jsonschema
from oslo_utils import strutils, uuidutils

from api.baremetal import fault, query
from api.baremetal.schemas import driver as driver_schema
from api.baremetal.schemas import network_data
from api.baremetal.schemas import node as schema
from api.common import errors as common_errors
from common import exception

REMOVE_CHASSIS = '1.25'
FAULT = '1.42'
RESET_INTERFACES = '1.45'
PROTECTED = '1.48'
RETIRED = '1.61'
VALID_FAULTS = ('power failure', 'clean failure', 'rescue abort failure',
                'service failure')
INTERFACE_FIELDS = tuple(driver_schema.interface_field(k)
                         for k in driver_schema.INTERFACE_VERSIONS)
# the first version of each field set at create or PATCH
FIELD_VERSIONS = dict(
    {driver_schema.interface_field(k): v
     for k, v in driver_schema.INTERFACE_VERSIONS.items()},
    protected=PROTECTED, protected_reason=PROTECTED, retired=RETIRED,
    retired_reason=RETIRED)
# Ironic's states where the interfaces may change (else maintenance)
INTERFACE_STATES = ('enroll', 'inspecting', 'inspect wait', 'manageable', 'available')
PROTECT_STATES = ('active', 'rescue')


def _version_gate(req, fields):
    for field in fields:
        since = FIELD_VERSIONS.get(field)
        if since is not None and not req.version.matches(since):
            raise fault.NotAcceptable('The %s field needs API version %s'
                                      % (field, since))


def _boolean(values, field):
    value = values.get(field)
    if value is None or isinstance(value, bool):
        values[field] = bool(value)
        return
    try:
        values[field] = strutils.bool_from_string(value, strict=True)
    except (ValueError, TypeError):
        raise fault.BadRequest('Invalid boolean value for %s: %s' % (field, value))


def _interface(driver, field, value):
    """Check that ``driver`` has ``value`` enabled for ``field`` (400)."""
    kind = field[:-len('_interface')]
    enabled = driver_schema.HARDWARE_TYPES[driver][kind][0]
    if value not in enabled:
        raise fault.BadRequest(
            "Could not find the following interface in the "
            "'ironic.hardware.interfaces.%s' entrypoint: %s. Valid interfaces are "
            "%s." % (kind, value, list(enabled)))


def check_driver(driver, group=''):
    """400 with Ironic's NoValidHost text for a driver berth does not offer."""
    if driver not in schema.DRIVERS:
        raise fault.BadRequest(
            'No valid host was found. Reason: No conductor service registered which '
            'supports driver %s for conductor group "%s". Ensure the driver is valid '
            'and enabled.' % (driver, group or ''))


def _interfaces(driver, values, reset=()):
    """Validate the interfaces in ``values``; defaults for those null or in ``reset``."""
    defaults = driver_schema.default_interfaces(driver)
    for field in INTERFACE_FIELDS:
        if field in values and values[field] is not None:
            _interface(driver, field, values[field])
        elif field in values or field in reset:
            values[field] = defaults[field]


def on_create(req, values):
    """Check and complete the new fields of a node being created (``values``)."""
    _version_gate(req, [f for f in values if f in FIELD_VERSIONS])
    check_chassis(values)
    check_network_data(values.get('network_data'))
    for flag in ('retired', 'disable_power_off'):
        if flag in values:
            _boolean(values, flag)
    if driver_schema.HARDWARE_TYPES.get(values.get('driver')):
        _interfaces(values['driver'], values, reset=INTERFACE_FIELDS)


def _ops(patch):
    """The operations of a patch (the patch's own checks refuse a non-list later)."""
    return patch if isinstance(patch, list) else []


def patch_gate(req, patch):
    """406 for a PATCH setting a field newer than the caller's version."""
    paths = [op['path'] for op in _ops(patch) if isinstance(op, dict)
             and op.get('op') != 'remove' and isinstance(op.get('path'), str)]
    _version_gate(req, [p.lstrip('/').split('/')[0] for p in paths])


def reset_param(req, patch):
    """``?reset_interfaces`` (1.45): whether to reset the interfaces of a new driver."""
    reset = query.bool_param(req, 'reset_interfaces')
    if reset is None:
        return False
    if not req.version.matches(RESET_INTERFACES):
        raise fault.NotAcceptable('The reset_interfaces parameter needs API version %s'
                                  % RESET_INTERFACES)
    if reset and not any(isinstance(op, dict) and op.get('path') == '/driver'
                         and op.get('op') != 'remove' for op in _ops(patch)):
        raise fault.BadRequest("The reset_interfaces parameter can only be used when "
                               "changing the node's driver.")
    return reset


def on_update(req, node, changed, reset):
    """Apply Ironic's rules to the fields a PATCH ``changed`` on ``node``."""
    if 'chassis_uuid' in changed and changed['chassis_uuid'] is None and (
            not req.version.matches(REMOVE_CHASSIS)):
        raise fault.NotAcceptable('Removing chassis_uuid needs API version %s'
                                  % REMOVE_CHASSIS)
    check_chassis(changed)
    check_network_data(changed.get('network_data'))
    if 'driver' in changed:
        check_driver(changed['driver'], changed.get('conductor_group',
                                                    node.conductor_group))
    driver = changed.get('driver', node.driver)
    ifaces = [f for f in INTERFACE_FIELDS if f in changed]
    if ifaces and not (node.provision_state in INTERFACE_STATES or node.maintenance):
        raise exception.NodeInvalidState(reason=(
            "Node %s can not have %s updated unless it is in one of allowed (%s) "
            "states or in maintenance mode. Current state is '%s'."
            % (node.uuid, ifaces[0], ', '.join(INTERFACE_STATES),
               node.provision_state)))
    if driver in driver_schema.HARDWARE_TYPES:
        _interfaces(driver, changed, reset=INTERFACE_FIELDS if reset else ())
    _flag(node, changed, 'protected')
    _flag(node, changed, 'retired')
    if 'disable_power_off' in changed:      # 1.95; null or removed is false
        _boolean(changed, 'disable_power_off')
    if 'maintenance' in changed:
        _boolean(changed, 'maintenance')
        if not changed['maintenance']:     # as Ironic: leaving clears reason and fault
            changed.update(maintenance_reason=None, fault=None)


def _flag(node, changed, flag):
    """``protected``/``retired`` and their reason, with Ironic's state rules."""
    reason = flag + '_reason'
    if flag in changed:
        _boolean(changed, flag)
        if not changed[flag]:
            changed[reason] = None
        elif flag == 'protected' and node.provision_state not in PROTECT_STATES:
            raise exception.NodeInvalidState(reason=(
                "Node %s can only be made protected in provision states 'active' "
                "or 'rescue', the current state is '%s'"
                % (node.uuid, node.provision_state)))
        elif flag == 'retired' and node.provision_state == 'available':
            raise exception.NodeInvalidState(reason=(
                "Node %s can not have 'retired' set in provision state 'available', "
                "the current state is '%s'" % (node.uuid, node.provision_state)))
    on = changed.get(flag, getattr(node, flag))
    if changed.get(reason) is not None and not isinstance(changed[reason], str):
        raise fault.BadRequest('%s must be a string' % reason)
    if changed.get(reason) and not on:
        raise fault.BadRequest('The %s field can only be set when %s is True'
                               % (reason, flag))


def fault_filter(req):
    """The ``?fault=`` filter (1.42; one of Ironic's faults), or None."""
    value = req.GET.get('fault')
    if value is None:
        return None
    if not req.version.matches(FAULT):
        raise fault.NotAcceptable('Request not acceptable. The minimal required API '
                                  'version should be %s' % FAULT)
    if value not in VALID_FAULTS:
        raise fault.BadRequest('Unrecognized fault "%s" is specified, allowed faults '
                               'are %s' % (value, VALID_FAULTS))
    return value


def check_chassis(values):
    """400 for a ``chassis_uuid`` that is not a UUID (null: no chassis)."""
    value = values.get('chassis_uuid')
    if value is not None and not (isinstance(value, str)
                                  and uuidutils.is_uuid_like(value)):
        raise fault.BadRequest('Expected UUID for chassis_uuid: %s' % (value,))


def chassis_error(exc):
    """A chassis a node names that does not exist: Ironic's 400, not a 404."""
    return fault.BadRequest(exc.message)


def shown_interfaces(node):
    """``{<kind>_interface: implementation}`` of ``node``; a NULL one (a row
    from before the columns existed) is its driver's default."""
    defaults = {}
    if node.driver in driver_schema.HARDWARE_TYPES:
        defaults = driver_schema.default_interfaces(node.driver)
    return {f: getattr(node, f) or defaults.get(f) for f in INTERFACE_FIELDS}


def check_network_data(value):
    """400 with Ironic's text for a ``network_data`` that is not a document."""
    if not value:
        return
    try:
        jsonschema.validate(value, network_data.SCHEMA)
    except jsonschema.ValidationError as exc:
        raise fault.BadRequest('Invalid network_data: %s '
                               % common_errors.cut_repr(exc.message, exc.instance))
