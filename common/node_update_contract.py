"""The node update contract: one typed value for a PATCH /v1/nodes/{node} that a
conductor writes.

A node PATCH that removes the instance of a node an allocation holds ends
that allocation, so the conductor of the allocation writes it (DESIGN.md,
routing): the REST handler (api/baremetal/handlers/node.py) builds one
:class:`NodeUpdate` of the fields the patch changed, the RPC client
(``update_node``) sends its primitive, and the conductor, once
conductor.manager.write_checks has bounded the untrusted message, reads it
again once (``from_primitive``) and hands it through its policy check and
notifications to the row writer (objects.baremetal.node.update).

The primitive is the dict sent before this class existed, key for key and in
the same order (the order the patch left the fields in, which the value
keeps: tests/unit/test_node_allocation_wire.py pins its bytes).  Change it
only with an RPC version bump (conductor/rpcapi/version.py).  It lives in
common/ for the reason common.claim_contract does: the published RPC client
sends it, and another service's process imports that client and common only.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from common import exception, field_checks

# the <kind>_interface fields (Ironic's hardware interfaces)
INTERFACES = tuple('%s_interface' % k for k in (
    'bios', 'boot', 'console', 'deploy', 'inspect', 'management', 'network', 'power',
    'raid', 'rescue', 'storage', 'vendor', 'firmware'))


@dataclasses.dataclass(frozen=True, slots=True)
class NodeUpdate:
    """The fields a node PATCH changes, with their new values.

    Only the fields named in ``changed`` are written (in that order on the
    wire); the others are left as they are, whatever their value here.
    Objects (``instance_info`` ...) are whole; None clears a field.
    """
    changed: tuple[str, ...] = ()
    name: str | None = None
    resource_class: str | None = None
    instance_uuid: str | None = None
    instance_info: dict[str, Any] | None = None
    properties: dict[str, Any] | None = None
    extra: dict[str, Any] | None = None
    description: str | None = None
    driver_info: dict[str, Any] | None = None
    network_data: dict[str, Any] | None = None
    owner: str | None = None
    lessee: str | None = None
    conductor_group: str | None = None
    chassis_uuid: str | None = None
    driver: str | None = None
    protected: bool | None = None
    protected_reason: str | None = None
    retired: bool | None = None
    retired_reason: str | None = None
    maintenance: bool | None = None
    # cleared (None) when the same PATCH leaves maintenance, as Ironic does;
    # never set to a value by an update (CLEARED_ONLY)
    maintenance_reason: None = None
    fault: None = None
    disable_power_off: bool | None = None
    shard: str | None = None
    parent_node: str | None = None
    instance_name: str | None = None
    bios_interface: str | None = None
    boot_interface: str | None = None
    console_interface: str | None = None
    deploy_interface: str | None = None
    inspect_interface: str | None = None
    management_interface: str | None = None
    network_interface: str | None = None
    power_interface: str | None = None
    raid_interface: str | None = None
    rescue_interface: str | None = None
    storage_interface: str | None = None
    vendor_interface: str | None = None
    firmware_interface: str | None = None

    @property
    def removes_instance(self) -> bool:
        """Whether it clears ``instance_uuid`` (the only update a conductor takes)."""
        return 'instance_uuid' in self.changed and self.instance_uuid is None

    def to_primitive(self) -> dict[str, Any]:
        """``update_node``'s ``values``: each changed field and its new value."""
        return {field: getattr(self, field) for field in self.changed}

    def columns(self) -> dict[str, Any]:
        """The node's fields to write (objects.baremetal.node.update's ``values``)."""
        return self.to_primitive()

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> NodeUpdate:
        """The update ``data`` (``{field: new value}``) asks for; Invalid for a key
        that is not a patchable field of a node."""
        field_checks.only(data, FIELDS, 'a node update')
        kept = sorted(k for k in CLEARED_ONLY if data.get(k) is not None)
        if kept:
            raise exception.Invalid(reason='a node update may only clear %s'
                                           % ', '.join(kept))
        return cls(tuple(data), **data)


# every field a node update may change (all but ``changed``)
FIELDS = frozenset(f.name for f in dataclasses.fields(NodeUpdate)) - {'changed'}
# fields an update may only clear: leaving maintenance clears its reason and fault
CLEARED_ONLY = ('maintenance_reason', 'fault')
