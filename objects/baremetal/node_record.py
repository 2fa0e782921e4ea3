"""Bare-metal node records: the Node dataclass, its states and the row mapping.

The shapes every node query shares (objects/baremetal/node.py holds the
queries and the guarded writes): the provision-state machine's constants,
the ``Node`` dataclass, the SELECT joining a node's allocation and chassis
uuids, and the mapping of those rows (with the node's traits) to ``Node``.
"""

import dataclasses
import datetime

import sqlalchemy as sa

from db import models

_NODE = models.Node.__table__
_TRAIT = models.NodeTrait.__table__
_ALLOC = models.NodeAllocation.__table__
_CHASSIS = models.Chassis.__table__

ENROLL = 'enroll'
MANAGEABLE = 'manageable'
AVAILABLE = 'available'
ACTIVE = 'active'
ERROR = 'error'
POWER_ON = 'power on'
POWER_OFF = 'power off'

# verb -> (states it may start from, state it ends in)
PROVISION_VERBS = {
    'manage': ((ENROLL, AVAILABLE), MANAGEABLE),
    'provide': ((MANAGEABLE,), AVAILABLE),
    'active': ((AVAILABLE,), ACTIVE),
    'deploy': ((AVAILABLE,), ACTIVE),
    'rebuild': ((ACTIVE, ERROR), ACTIVE),
    'deleted': ((ACTIVE, ERROR), AVAILABLE),
    'undeploy': ((ACTIVE, ERROR), AVAILABLE),
    # API 1.85: leaves Ironic's ``clean hold``/``deploy hold``, states berth's nodes
    # never enter, so it is Ironic's InvalidStateRequested from every state
    'unhold': ((), AVAILABLE),
    # API 1.87: Ironic services an active node with the steps given; berth runs
    # no steps, so the node is back in active at once (as after its deploy steps)
    'service': ((ACTIVE,), ACTIVE),
    # Ironic aborts its wait and hold states (``wait call-back`` from API 1.110),
    # which berth's nodes never enter: InvalidStateRequested from every state
    'abort': ((), AVAILABLE),
}
# provision verbs that end the node's allocation
DEALLOCATING_VERBS = ('deleted', 'undeploy')
# a node may be deleted in these states (or in maintenance)
DELETE_ALLOWED = (ENROLL, MANAGEABLE, AVAILABLE)
MAX_TRAITS = 50    # Ironic's limit of traits on one node
SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'updated_at', 'provision_state',
             'power_state', 'resource_class', 'maintenance', 'owner', 'driver',
             'instance_uuid', 'provision_updated_at')


@dataclasses.dataclass
class Node:
    id: int
    uuid: str
    name: str
    driver: str
    resource_class: str
    provision_state: str
    target_provision_state: str
    provision_updated_at: datetime.datetime
    power_state: str
    target_power_state: str
    maintenance: bool
    maintenance_reason: str
    fault: str
    instance_uuid: str
    instance_info: dict
    properties: dict
    driver_info: dict
    extra: dict
    owner: str
    lessee: str
    description: str
    last_error: str
    reservation: str
    conductor_affinity: str
    allocation_id: int
    created_at: datetime.datetime
    updated_at: datetime.datetime
    traits: list = dataclasses.field(default_factory=list)
    allocation_uuid: str | None = None
    conductor_group: str = ''
    chassis_id: int | None = None
    chassis_uuid: str | None = None
    protected: bool = False
    protected_reason: str | None = None
    retired: bool = False
    retired_reason: str | None = None
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
    firmware_interface: str | None = None    # API 1.86
    network_data: dict | None = None
    boot_mode: str | None = None
    secure_boot: bool | None = None
    shard: str | None = None
    parent_node: str | None = None
    disable_power_off: bool = False     # API 1.95
    instance_name: str | None = None    # API 1.104


_JOINED = ('traits', 'allocation_uuid', 'chassis_uuid')
_COLUMNS = [f.name for f in dataclasses.fields(Node) if f.name not in _JOINED]
_JSON = ('instance_info', 'properties', 'driver_info', 'extra', 'network_data')
# the rules of Ironic's provision verbs on protected and retired nodes
PROTECTED_VERBS = ('deleted', 'undeploy', 'rebuild')
RETIRED_VERBS = ('provide',)


def _from_row(row, traits=(), allocation_uuid=None):
    values = {c: getattr(row, c) for c in _COLUMNS}
    for c in _JSON:
        values[c] = values[c] or {}
    for c in ('protected', 'retired', 'disable_power_off'):
        values[c] = bool(values[c])
    return Node(traits=sorted(traits), allocation_uuid=allocation_uuid,
                chassis_uuid=row.chassis_uuid, **values)


def _select():
    return sa.select(_NODE, _ALLOC.c.uuid.label('allocation_uuid'),
                     _CHASSIS.c.uuid.label('chassis_uuid')).select_from(
        _NODE.outerjoin(_ALLOC, _ALLOC.c.id == _NODE.c.allocation_id)
        .outerjoin(_CHASSIS, _CHASSIS.c.id == _NODE.c.chassis_id))


def _traits_of(ctx, node_ids):
    out: dict[int, list[str]] = {i: [] for i in node_ids}
    if node_ids:
        rows = ctx.session.execute(sa.select(_TRAIT.c.node_id, _TRAIT.c.trait)
                                   .where(_TRAIT.c.node_id.in_(node_ids)))
        for node_id, trait in rows:
            out[node_id].append(trait)
    return out


def _build(ctx, rows):
    traits = _traits_of(ctx, [r.id for r in rows])
    return [_from_row(r, traits[r.id], r.allocation_uuid) for r in rows]
