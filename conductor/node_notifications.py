"""Versioned node notifications for the node writes an allocation causes.

Which ones Ironic sends (read from its code, not copied): reserving a node
for an allocation, and deleting an allocation, change ``instance_uuid`` and
``allocation_id`` without any node notification; the node writes that end an
allocation do send theirs:

* a PATCH removing ``instance_uuid``: ``baremetal.node.update.start`` /
  ``.end`` / ``.error`` with ``NodeCRUDPayload`` (1.15);
* deleting a node: ``baremetal.node.delete.start`` / ``.end`` / ``.error``
  with ``NodeCRUDPayload``;
* the ``deleted``/``undeploy`` verbs: ``baremetal.node.provision_set.<status>``
  with ``NodeSetProvisionStatePayload`` (1.18: ``event``,
  ``previous_provision_state``, ``previous_target_provision_state``), the
  status chosen as Ironic's task manager does from the states before and
  after: stable to unstable ``start``, unstable to stable ``end``, else
  ``success``.  berth moves ``active`` straight to ``available`` (no
  ``deleting``/``cleaning`` in between), so it is one ``success``.

No allocation changes a node's maintenance in berth (or in Ironic), so no
``maintenance_set`` is sent from here.  Fields berth does not keep (steps,
console, ...) are sent as null, and so is a driver interface a node stored
before berth kept them; the envelope is the one conductor.notifications uses
for allocations.
"""

import contextlib

from conductor import notifications

# Ironic's NodePayload fields (its SCHEMA, plus traits)
NODE_FIELDS = (
    'clean_step', 'conductor_group', 'console_enabled', 'created_at', 'deploy_step',
    'description', 'disable_power_off', 'driver', 'extra', 'boot_mode', 'secure_boot',
    'inspection_finished_at', 'inspection_started_at', 'instance_uuid', 'last_error',
    'maintenance', 'maintenance_reason', 'fault', 'name', 'bios_interface',
    'boot_interface', 'console_interface', 'deploy_interface', 'inspect_interface',
    'management_interface', 'network_interface', 'power_interface', 'raid_interface',
    'rescue_interface', 'storage_interface', 'vendor_interface', 'owner', 'lessee',
    'power_state', 'properties', 'protected', 'protected_reason', 'provision_state',
    'provision_updated_at', 'resource_class', 'retired', 'retired_reason',
    'target_power_state', 'target_provision_state', 'traits', 'updated_at', 'uuid')
_TIMES = ('created_at', 'updated_at', 'provision_updated_at', 'inspection_started_at',
          'inspection_finished_at')
CRUD = ('NodeCRUDPayload', '1.15')
PROVISION_SET = ('NodeSetProvisionStatePayload', '1.18')
# Ironic's unstable provision states (the ones a conductor is working in)
UNSTABLE_STATES = frozenset((
    'deploying', 'wait call-back', 'deleting', 'cleaning', 'clean wait', 'inspecting',
    'inspect wait', 'rescuing', 'rescue wait', 'unrescuing', 'adopting', 'verifying',
    'servicing', 'service wait', 'deploy hold', 'clean hold', 'service hold'))
_PRIORITY = {'start': 'info', 'end': 'info', 'success': 'info', 'error': 'error'}


def _data(node, extra_fields):
    data = {f: getattr(node, f, None) for f in NODE_FIELDS + extra_fields}
    for name in _TIMES:
        data[name] = notifications.iso(data[name])
    data['traits'] = list(data['traits'] or [])
    return data


def _envelope(kind, data):
    name, version = kind
    return {'ironic_object.name': name, 'ironic_object.namespace': 'ironic',
            'ironic_object.version': version, 'ironic_object.data': data}


def crud_payload(node):
    """Ironic's NodeCRUDPayload of ``node``."""
    data = _data(node, ('instance_info', 'driver_info', 'chassis_uuid'))
    return _envelope(CRUD, data)


def provision_payload(node, before, event):
    """Ironic's NodeSetProvisionStatePayload of ``node`` after ``event`` from ``before``."""
    data = _data(node, ('instance_info',))
    data.update(driver_internal_info=None, event=event,
                previous_provision_state=before.provision_state,
                previous_target_provision_state=before.target_provision_state)
    return _envelope(PROVISION_SET, data)


def provision_status(before, after):
    """start, end or success, as Ironic's task manager decides from the two states."""
    was, now = before in UNSTABLE_STATES, after in UNSTABLE_STATES
    if (was, now) == (False, True):
        return 'start'
    if (was, now) == (True, False):
        return 'end'
    return 'success'


class NodeNotifier:
    """Node events through an AllocationNotifier's transport (or nothing)."""

    def __init__(self, notifier):
        self.notifier = notifier

    @property
    def enabled(self):
        return self.notifier is not None and self.notifier.enabled

    def _send(self, ctx, action, status, body, node):
        self.notifier.send(ctx, 'baremetal.node.%s.%s' % (action, status),
                           _PRIORITY[status], body, getattr(node, 'uuid', None))

    @contextlib.contextmanager
    def crud(self, ctx, action, before, after=None):
        """``baremetal.node.<action>.start``, then ``.end`` (``after()``'s node) or ``.error``."""
        if not self.enabled or before is None:
            yield
            return
        self._send(ctx, action, 'start', crud_payload(before), before)
        try:
            yield
        except Exception:
            self._send(ctx, action, 'error', crud_payload(before), before)
            raise
        node = after() if after is not None else before
        self._send(ctx, action, 'end', crud_payload(node or before), before)

    def provision_set(self, ctx, before, after, event):
        """One ``baremetal.node.provision_set.<status>`` for a change already written."""
        if not self.enabled or before is None or after is None:
            return
        status = provision_status(before.provision_state, after.provision_state)
        self._send(ctx, 'provision_set', status, provision_payload(after, before, event),
                   after)
