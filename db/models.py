"""SQLAlchemy models: every table of berth, with named constraints.

Names follow oslo.db's convention (``uniq_<table>0<col>[0<col>]``) so that a
``DBDuplicateEntry`` tells which columns clashed on every engine.
"""

import datetime
from typing import TYPE_CHECKING, ClassVar

import sqlalchemy as sa
from sqlalchemy import orm

NAMING = {
    'ix': 'ix_%(table_name)s_%(column_0_N_name)s',
    'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s',
    'pk': 'pk_%(table_name)s',
    'ck': 'ck_%(table_name)s_%(constraint_name)s',
}


def _now():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class Base(orm.DeclarativeBase):
    metadata = sa.MetaData(naming_convention=NAMING)

    if TYPE_CHECKING:
        # every model here maps one Table (SQLAlchemy types it as any FromClause,
        # which has no insert/update/delete)
        __table__: ClassVar[sa.Table]


class TimestampMixin:
    created_at = sa.Column(sa.DateTime, nullable=False, default=_now)
    updated_at = sa.Column(sa.DateTime, nullable=True, onupdate=_now)


def _uniq(table, *cols):
    return sa.UniqueConstraint(*cols, name='uniq_%s0%s' % (table, '0'.join(cols)))


# --- Placement -----------------------------------------------------------------------

class ResourceClass(TimestampMixin, Base):
    """Standard classes are synced from os-resource-classes at start; custom ones are CUSTOM_*."""
    __tablename__ = 'resource_classes'
    __table_args__ = (_uniq('resource_classes', 'name'),)
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)


class Trait(TimestampMixin, Base):
    """Standard traits are synced from os-traits at start; custom ones are CUSTOM_*."""
    __tablename__ = 'traits'
    __table_args__ = (_uniq('traits', 'name'),)
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)


class ResourceProvider(TimestampMixin, Base):
    __tablename__ = 'resource_providers'
    __table_args__ = (
        _uniq('resource_providers', 'uuid'),
        _uniq('resource_providers', 'name'),
        sa.Index('ix_resource_providers_root_provider_id', 'root_provider_id'),
        sa.Index('ix_resource_providers_parent_provider_id', 'parent_provider_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.Unicode(200), nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    # NULL only transiently while a new root is inserted; a root points at itself.
    root_provider_id = sa.Column(sa.Integer, sa.ForeignKey('resource_providers.id'),
                                 nullable=True)
    parent_provider_id = sa.Column(sa.Integer, sa.ForeignKey('resource_providers.id'),
                                   nullable=True)


class Inventory(TimestampMixin, Base):
    __tablename__ = 'inventories'
    __table_args__ = (
        _uniq('inventories', 'resource_provider_id', 'resource_class_id'),
        # candidate searches start from the class and walk to the providers
        sa.Index('ix_inventories_resource_class_id_resource_provider_id',
                 'resource_class_id', 'resource_provider_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    resource_provider_id = sa.Column(sa.Integer, sa.ForeignKey('resource_providers.id'),
                                     nullable=False)
    resource_class_id = sa.Column(sa.Integer, sa.ForeignKey('resource_classes.id'),
                                  nullable=False)
    total = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False, default=0)
    min_unit = sa.Column(sa.Integer, nullable=False, default=1)
    max_unit = sa.Column(sa.Integer, nullable=False, default=2147483647)
    step_size = sa.Column(sa.Integer, nullable=False, default=1)
    allocation_ratio = sa.Column(sa.Float, nullable=False, default=1.0)


class PlacementAggregate(TimestampMixin, Base):
    __tablename__ = 'placement_aggregates'
    __table_args__ = (_uniq('placement_aggregates', 'uuid'),)
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)


class ResourceProviderAggregate(TimestampMixin, Base):
    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        sa.Index('ix_resource_provider_aggregates_aggregate_id', 'aggregate_id'),
    )
    resource_provider_id = sa.Column(sa.Integer, sa.ForeignKey('resource_providers.id'),
                                     primary_key=True)
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey('placement_aggregates.id'),
                             primary_key=True)


class ResourceProviderTrait(TimestampMixin, Base):
    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        sa.Index('ix_resource_provider_traits_trait_id', 'trait_id'),
    )
    resource_provider_id = sa.Column(sa.Integer, sa.ForeignKey('resource_providers.id'),
                                     primary_key=True)
    trait_id = sa.Column(sa.Integer, sa.ForeignKey('traits.id'), primary_key=True)


class Project(TimestampMixin, Base):
    __tablename__ = 'projects'
    __table_args__ = (_uniq('projects', 'external_id'),)
    id = sa.Column(sa.Integer, primary_key=True)
    external_id = sa.Column(sa.String(255), nullable=False)


class User(TimestampMixin, Base):
    __tablename__ = 'users'
    __table_args__ = (_uniq('users', 'external_id'),)
    id = sa.Column(sa.Integer, primary_key=True)
    external_id = sa.Column(sa.String(255), nullable=False)


class ConsumerType(TimestampMixin, Base):
    __tablename__ = 'consumer_types'
    __table_args__ = (_uniq('consumer_types', 'name'),)
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.Unicode(255), nullable=False)


class Consumer(TimestampMixin, Base):
    __tablename__ = 'consumers'
    __table_args__ = (
        _uniq('consumers', 'uuid'),
        sa.Index('ix_consumers_project_id_user_id_uuid', 'project_id', 'user_id', 'uuid'),
        sa.Index('ix_consumers_project_id_uuid', 'project_id', 'uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    project_id = sa.Column(sa.Integer, sa.ForeignKey('projects.id'), nullable=False)
    user_id = sa.Column(sa.Integer, sa.ForeignKey('users.id'), nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    consumer_type_id = sa.Column(sa.Integer, sa.ForeignKey('consumer_types.id'),
                                 nullable=True)


class Allocation(TimestampMixin, Base):
    """One consumer's claim of ``used`` units of a class on a provider.

    ``consumer_id`` is the consumer's uuid (as in Placement), so allocations
    written before consumer records existed can be found and completed.
    """
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.Index('ix_allocations_resource_provider_id_resource_class_id_used',
                 'resource_provider_id', 'resource_class_id', 'used'),
        sa.Index('ix_allocations_resource_class_id', 'resource_class_id'),
        sa.Index('ix_allocations_consumer_id', 'consumer_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    resource_provider_id = sa.Column(sa.Integer, sa.ForeignKey('resource_providers.id'),
                                     nullable=False)
    consumer_id = sa.Column(sa.String(36), nullable=False)
    resource_class_id = sa.Column(sa.Integer, sa.ForeignKey('resource_classes.id'),
                                  nullable=False)
    used = sa.Column(sa.Integer, nullable=False)


class QuotaLimit(TimestampMixin, Base):
    """A hard limit for a project (optionally one user of it).

    Exactly one of ``resource_class`` (units of a class) or ``consumer_type``
    (number of consumers of that type) is non-empty; '' means "not set" so the
    unique constraint holds on every engine.
    """
    __tablename__ = 'quota_limits'
    __table_args__ = (
        # spelled out: the conventional name is longer than PostgreSQL's 63 characters
        sa.UniqueConstraint('project_id', 'user_id', 'resource_class', 'consumer_type',
                            name='uniq_quota_limits0project_id0user_id0rc0consumer_type'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False, default='')
    resource_class = sa.Column(sa.String(255), nullable=False, default='')
    consumer_type = sa.Column(sa.String(255), nullable=False, default='')
    hard_limit = sa.Column(sa.BigInteger, nullable=False)


# --- Bare metal ------------------------------------------------------------------------

class Chassis(TimestampMixin, Base):
    """Ironic's chassis (API /v1/chassis): a group of nodes; no hardware meaning."""
    __tablename__ = 'chassis'
    __table_args__ = (_uniq('chassis', 'uuid'),)
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    description = sa.Column(sa.String(255), nullable=True)
    extra = sa.Column(sa.JSON, nullable=True)


# Ironic's driver interfaces of a node, each a ``<name>_interface`` column
NODE_INTERFACES = ('bios', 'boot', 'console', 'deploy', 'inspect', 'management',
                   'network', 'power', 'raid', 'rescue', 'storage', 'vendor')


class Node(TimestampMixin, Base):
    __tablename__ = 'nodes'
    __table_args__ = (
        _uniq('nodes', 'uuid'),
        _uniq('nodes', 'name'),
        _uniq('nodes', 'instance_uuid'),
        _uniq('nodes', 'allocation_id'),
        sa.Index('ix_nodes_resource_class_provision_state', 'resource_class',
                 'provision_state'),
        sa.Index('ix_nodes_conductor_affinity', 'conductor_affinity'),
        # the nodes a project owns or leases (tenancy on /v1)
        sa.Index('ix_nodes_owner', 'owner'),
        sa.Index('ix_nodes_lessee', 'lessee'),
        # Ironic's shard (API 1.82): the ?shard= filter and GET /v1/shards
        sa.Index('ix_nodes_shard', 'shard'),
        # Ironic's child nodes (API 1.83): a parent's children
        sa.Index('ix_nodes_parent_node', 'parent_node'),
        sa.Index('ix_nodes_chassis_id', 'chassis_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    driver = sa.Column(sa.String(255), nullable=False)
    resource_class = sa.Column(sa.String(80), nullable=True)
    provision_state = sa.Column(sa.String(15), nullable=False)
    target_provision_state = sa.Column(sa.String(15), nullable=True)
    provision_updated_at = sa.Column(sa.DateTime, nullable=True)
    power_state = sa.Column(sa.String(15), nullable=True)
    target_power_state = sa.Column(sa.String(15), nullable=True)
    maintenance = sa.Column(sa.Boolean, nullable=False, default=False)
    maintenance_reason = sa.Column(sa.Text, nullable=True)
    fault = sa.Column(sa.String(255), nullable=True)
    instance_uuid = sa.Column(sa.String(36), nullable=True)
    instance_info = sa.Column(sa.JSON, nullable=True)
    properties = sa.Column(sa.JSON, nullable=True)
    driver_info = sa.Column(sa.JSON, nullable=True)
    extra = sa.Column(sa.JSON, nullable=True)
    owner = sa.Column(sa.String(255), nullable=True)
    lessee = sa.Column(sa.String(255), nullable=True)
    description = sa.Column(sa.Text, nullable=True)
    last_error = sa.Column(sa.Text, nullable=True)
    # the conductor that holds the node's lock while it works on it (NULL = free)
    reservation = sa.Column(sa.String(255), nullable=True)
    conductor_affinity = sa.Column(sa.String(255), nullable=True)
    # Ironic's conductor group (API 1.46), lower case; '' is the default group
    conductor_group = sa.Column(sa.String(255), nullable=False, server_default='')
    # the node_allocations row holding this node (no FK: the two tables point
    # at each other; both sides are written in one transaction)
    allocation_id = sa.Column(sa.Integer, nullable=True)
    # Ironic's chassis (API 1.1), protection (1.48) and retirement (1.61)
    chassis_id = sa.Column(sa.Integer, sa.ForeignKey('chassis.id'), nullable=True)
    protected = sa.Column(sa.Boolean, nullable=False, default=False,
                          server_default=sa.false())
    protected_reason = sa.Column(sa.Text, nullable=True)
    retired = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())
    retired_reason = sa.Column(sa.Text, nullable=True)
    # Ironic's disable_power_off (API 1.95): power off and soft power off refused
    disable_power_off = sa.Column(sa.Boolean, nullable=False, default=False,
                                  server_default=sa.false())
    # Ironic's instance_name (API 1.104), kept from instance_info's display_name
    instance_name = sa.Column(sa.String(255), nullable=True)
    bios_interface = sa.Column(sa.String(255), nullable=True)
    boot_interface = sa.Column(sa.String(255), nullable=True)
    console_interface = sa.Column(sa.String(255), nullable=True)
    deploy_interface = sa.Column(sa.String(255), nullable=True)
    inspect_interface = sa.Column(sa.String(255), nullable=True)
    management_interface = sa.Column(sa.String(255), nullable=True)
    network_interface = sa.Column(sa.String(255), nullable=True)
    power_interface = sa.Column(sa.String(255), nullable=True)
    raid_interface = sa.Column(sa.String(255), nullable=True)
    rescue_interface = sa.Column(sa.String(255), nullable=True)
    storage_interface = sa.Column(sa.String(255), nullable=True)
    vendor_interface = sa.Column(sa.String(255), nullable=True)
    # Ironic's firmware_interface (API 1.86); null on a node stored before it
    firmware_interface = sa.Column(sa.String(255), nullable=True)
    # Ironic's network_data (API 1.66), boot_mode and secure_boot (1.75)
    network_data = sa.Column(sa.JSON, nullable=True)
    boot_mode = sa.Column(sa.String(16), nullable=True)
    secure_boot = sa.Column(sa.Boolean, nullable=True)
    # Ironic's shard (API 1.82): a free-form name, null when unset
    shard = sa.Column(sa.String(255), nullable=True)
    # Ironic's parent_node (API 1.83): the parent's UUID, null for a node without one
    parent_node = sa.Column(sa.String(36), nullable=True)


class NodeHistory(TimestampMixin, Base):
    """Ironic's node history events (API 1.78); deleted with their node."""
    __tablename__ = 'node_history'
    __table_args__ = (_uniq('node_history', 'uuid'),
                      sa.Index('ix_node_history_node_id_id', 'node_id', 'id'))
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                        nullable=False)
    conductor = sa.Column(sa.String(255), nullable=True)
    user = sa.Column(sa.String(64), nullable=True)
    project = sa.Column(sa.String(64), nullable=True)
    severity = sa.Column(sa.String(16), nullable=False)
    event_type = sa.Column(sa.String(255), nullable=False)
    event = sa.Column(sa.Text, nullable=False)
    state = sa.Column(sa.String(15), nullable=True)
    target_provision_state = sa.Column(sa.String(15), nullable=True)
    duration_seconds = sa.Column(sa.Integer, nullable=True)


class NodeTrait(TimestampMixin, Base):
    __tablename__ = 'node_traits'
    __table_args__ = (sa.Index('ix_node_traits_trait', 'trait'),)
    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id'), primary_key=True)
    trait = sa.Column(sa.String(255), primary_key=True)


class NodeAllocation(TimestampMixin, Base):
    """An Ironic-style request for a whole node; at most one per node (unique node_id)."""
    __tablename__ = 'node_allocations'
    __table_args__ = (
        _uniq('node_allocations', 'uuid'),
        _uniq('node_allocations', 'name'),
        _uniq('node_allocations', 'node_id'),
        sa.Index('ix_node_allocations_state_conductor_affinity', 'state',
                 'conductor_affinity'),
        # the per-project sum of stored ``extra`` (objects/baremetal/extra_usage.py)
        sa.Index('ix_node_allocations_owner_extra_bytes', 'owner', 'extra_bytes'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id'), nullable=True)
    state = sa.Column(sa.String(15), nullable=False)
    last_error = sa.Column(sa.Text, nullable=True)
    resource_class = sa.Column(sa.String(80), nullable=True)
    traits = sa.Column(sa.JSON, nullable=True)
    candidate_nodes = sa.Column(sa.JSON, nullable=True)
    extra = sa.Column(sa.JSON, nullable=True)
    owner = sa.Column(sa.String(255), nullable=True)
    conductor_affinity = sa.Column(sa.String(255), nullable=True)
    # bytes of JSON ``extra`` takes, written with it (NULL: a row an older
    # release wrote, measured from ``extra`` itself when summed)
    extra_bytes = sa.Column(sa.Integer, nullable=True)


class NodeAllocationOwner(Base):
    """One row per allocation owner: the lock a write growing its ``extra`` takes.

    ``[allocation] max_extra_bytes_per_project``: a writer locks its owner's
    row, sums the owner's stored ``extra`` and writes only under the cap, so
    two writers for one owner are serialised by the database.  ``owner`` is
    '' for allocations without an owner.  The row holds no count: the sum is
    read from node_allocations, so every delete gives its bytes back.
    """
    __tablename__ = 'node_allocation_owners'
    owner = sa.Column(sa.String(255), primary_key=True)


class Conductor(Base):
    """A conductor process that registered itself (Ironic's ``conductors`` table).

    A row outlives its process: ``online`` turns false on a clean stop, and a
    conductor whose ``updated_at`` (its last heartbeat) is older than
    ``[conductor] heartbeat_timeout`` is dead.  Only ``berth-manage conductor
    forget`` deletes a row (objects/baremetal/conductor.py).
    """
    __tablename__ = 'conductors'
    __table_args__ = (_uniq('conductors', 'hostname'),)
    id = sa.Column(sa.Integer, primary_key=True)
    hostname = sa.Column(sa.String(255), nullable=False)
    conductor_group = sa.Column(sa.String(255), nullable=False, server_default='')
    drivers = sa.Column(sa.JSON, nullable=True)
    online = sa.Column(sa.Boolean, nullable=False, default=True)
    created_at = sa.Column(sa.DateTime, nullable=False, default=_now)
    # the last heartbeat (set by every registration and heartbeat)
    updated_at = sa.Column(sa.DateTime, nullable=False, default=_now)


class PlacementImport(Base):
    """One run of ``berth-manage import placement`` (objects/adoption), written with its data.

    ``changes`` is JSON: table -> [inserted, updated, deleted].  Placement
    data in a database with no row here was not written by an import.
    """
    __tablename__ = 'placement_imports'
    id = sa.Column(sa.Integer, primary_key=True)
    source = sa.Column(sa.String(255), nullable=False)
    revision = sa.Column(sa.String(32), nullable=False)
    started_at = sa.Column(sa.DateTime, nullable=False)
    finished_at = sa.Column(sa.DateTime, nullable=False)
    changes = sa.Column(sa.Text, nullable=False)


# --- Legacy ---------------------------------------------------------------------------

class ComputeNode(TimestampMixin, Base):
    """A Nova-style compute node row whose capacity predates resource providers."""
    __tablename__ = 'compute_nodes'
    __table_args__ = (
        _uniq('compute_nodes', 'uuid'),
        sa.Index('ix_compute_nodes_host', 'host'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    hypervisor_hostname = sa.Column(sa.String(255), nullable=True)
    vcpus = sa.Column(sa.Integer, nullable=False, default=0)
    memory_mb = sa.Column(sa.Integer, nullable=False, default=0)
    local_gb = sa.Column(sa.Integer, nullable=False, default=0)
    vcpus_used = sa.Column(sa.Integer, nullable=False, default=0)
    memory_mb_used = sa.Column(sa.Integer, nullable=False, default=0)
    local_gb_used = sa.Column(sa.Integer, nullable=False, default=0)
    cpu_allocation_ratio = sa.Column(sa.Float, nullable=True)
    ram_allocation_ratio = sa.Column(sa.Float, nullable=True)
    disk_allocation_ratio = sa.Column(sa.Float, nullable=True)
    disk_available_least = sa.Column(sa.Integer, nullable=True)
    pci_stats = sa.Column(sa.Text, nullable=True)
    numa_topology = sa.Column(sa.Text, nullable=True)
    deleted = sa.Column(sa.Integer, nullable=False, default=0)
    deleted_at = sa.Column(sa.DateTime, nullable=True)
