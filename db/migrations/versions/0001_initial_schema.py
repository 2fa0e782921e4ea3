"""initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-11-22 05:46:09.150242
"""

from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    op.create_table('compute_nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('hypervisor_hostname', sa.String(length=255), nullable=True),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('local_gb', sa.Integer(), nullable=False),
    sa.Column('vcpus_used', sa.Integer(), nullable=False),
    sa.Column('memory_mb_used', sa.Integer(), nullable=False),
    sa.Column('local_gb_used', sa.Integer(), nullable=False),
    sa.Column('cpu_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('ram_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('disk_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('disk_available_least', sa.Integer(), nullable=True),
    sa.Column('pci_stats', sa.Text(), nullable=True),
    sa.Column('numa_topology', sa.Text(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_compute_nodes')),
    sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid')
    )
    with op.batch_alter_table('compute_nodes', schema=None) as batch_op:
        batch_op.create_index('ix_compute_nodes_host', ['host'], unique=False)

    op.create_table('consumer_types',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.Unicode(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_consumer_types')),
    sa.UniqueConstraint('name', name='uniq_consumer_types0name')
    )
    op.create_table('nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('driver', sa.String(length=255), nullable=False),
    sa.Column('resource_class', sa.String(length=80), nullable=True),
    sa.Column('provision_state', sa.String(length=15), nullable=False),
    sa.Column('target_provision_state', sa.String(length=15), nullable=True),
    sa.Column('provision_updated_at', sa.DateTime(), nullable=True),
    sa.Column('power_state', sa.String(length=15), nullable=True),
    sa.Column('target_power_state', sa.String(length=15), nullable=True),
    sa.Column('maintenance', sa.Boolean(), nullable=False),
    sa.Column('maintenance_reason', sa.Text(), nullable=True),
    sa.Column('fault', sa.String(length=255), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('instance_info', sa.JSON(), nullable=True),
    sa.Column('properties', sa.JSON(), nullable=True),
    sa.Column('driver_info', sa.JSON(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('lessee', sa.String(length=255), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('reservation', sa.String(length=255), nullable=True),
    sa.Column('conductor_affinity', sa.String(length=255), nullable=True),
    sa.Column('allocation_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_nodes')),
    sa.UniqueConstraint('allocation_id', name='uniq_nodes0allocation_id'),
    sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
    sa.UniqueConstraint('name', name='uniq_nodes0name'),
    sa.UniqueConstraint('uuid', name='uniq_nodes0uuid')
    )
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.create_index('ix_nodes_conductor_affinity', ['conductor_affinity'], unique=False)
        batch_op.create_index('ix_nodes_resource_class_provision_state', ['resource_class', 'provision_state'], unique=False)

    op.create_table('placement_aggregates',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_placement_aggregates')),
    sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid')
    )
    op.create_table('projects',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('external_id', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_projects')),
    sa.UniqueConstraint('external_id', name='uniq_projects0external_id')
    )
    op.create_table('quota_limits',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=False),
    sa.Column('resource_class', sa.String(length=255), nullable=False),
    sa.Column('consumer_type', sa.String(length=255), nullable=False),
    sa.Column('hard_limit', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_quota_limits')),
    sa.UniqueConstraint('project_id', 'user_id', 'resource_class', 'consumer_type', name='uniq_quota_limits0project_id0user_id0rc0consumer_type')
    )
    op.create_table('resource_classes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_resource_classes')),
    sa.UniqueConstraint('name', name='uniq_resource_classes0name')
    )
    op.create_table('resource_providers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.Unicode(length=200), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('root_provider_id', sa.Integer(), nullable=True),
    sa.Column('parent_provider_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['parent_provider_id'], ['resource_providers.id'], name=op.f('fk_resource_providers_parent_provider_id_resource_providers')),
    sa.ForeignKeyConstraint(['root_provider_id'], ['resource_providers.id'], name=op.f('fk_resource_providers_root_provider_id_resource_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_resource_providers')),
    sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid')
    )
    with op.batch_alter_table('resource_providers', schema=None) as batch_op:
        batch_op.create_index('ix_resource_providers_parent_provider_id', ['parent_provider_id'], unique=False)
        batch_op.create_index('ix_resource_providers_root_provider_id', ['root_provider_id'], unique=False)

    op.create_table('traits',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_traits')),
    sa.UniqueConstraint('name', name='uniq_traits0name')
    )
    op.create_table('users',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('external_id', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('external_id', name='uniq_users0external_id')
    )
    op.create_table('allocations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('consumer_id', sa.String(length=36), nullable=False),
    sa.Column('resource_class_id', sa.Integer(), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['resource_class_id'], ['resource_classes.id'], name=op.f('fk_allocations_resource_class_id_resource_classes')),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], name=op.f('fk_allocations_resource_provider_id_resource_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_allocations'))
    )
    with op.batch_alter_table('allocations', schema=None) as batch_op:
        batch_op.create_index('ix_allocations_consumer_id', ['consumer_id'], unique=False)
        batch_op.create_index('ix_allocations_resource_class_id', ['resource_class_id'], unique=False)
        batch_op.create_index('ix_allocations_resource_provider_id_resource_class_id_used', ['resource_provider_id', 'resource_class_id', 'used'], unique=False)

    op.create_table('consumers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('consumer_type_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['consumer_type_id'], ['consumer_types.id'], name=op.f('fk_consumers_consumer_type_id_consumer_types')),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_consumers_project_id_projects')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_consumers_user_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_consumers')),
    sa.UniqueConstraint('uuid', name='uniq_consumers0uuid')
    )
    with op.batch_alter_table('consumers', schema=None) as batch_op:
        batch_op.create_index('ix_consumers_project_id_user_id_uuid', ['project_id', 'user_id', 'uuid'], unique=False)
        batch_op.create_index('ix_consumers_project_id_uuid', ['project_id', 'uuid'], unique=False)

    op.create_table('inventories',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('resource_class_id', sa.Integer(), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('reserved', sa.Integer(), nullable=False),
    sa.Column('min_unit', sa.Integer(), nullable=False),
    sa.Column('max_unit', sa.Integer(), nullable=False),
    sa.Column('step_size', sa.Integer(), nullable=False),
    sa.Column('allocation_ratio', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['resource_class_id'], ['resource_classes.id'], name=op.f('fk_inventories_resource_class_id_resource_classes')),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], name=op.f('fk_inventories_resource_provider_id_resource_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inventories')),
    sa.UniqueConstraint('resource_provider_id', 'resource_class_id', name='uniq_inventories0resource_provider_id0resource_class_id')
    )
    with op.batch_alter_table('inventories', schema=None) as batch_op:
        batch_op.create_index('ix_inventories_resource_class_id_resource_provider_id', ['resource_class_id', 'resource_provider_id'], unique=False)

    op.create_table('node_allocations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('node_id', sa.Integer(), nullable=True),
    sa.Column('state', sa.String(length=15), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('resource_class', sa.String(length=80), nullable=True),
    sa.Column('traits', sa.JSON(), nullable=True),
    sa.Column('candidate_nodes', sa.JSON(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('conductor_affinity', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name=op.f('fk_node_allocations_node_id_nodes')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_node_allocations')),
    sa.UniqueConstraint('name', name='uniq_node_allocations0name'),
    sa.UniqueConstraint('node_id', name='uniq_node_allocations0node_id'),
    sa.UniqueConstraint('uuid', name='uniq_node_allocations0uuid')
    )
    with op.batch_alter_table('node_allocations', schema=None) as batch_op:
        batch_op.create_index('ix_node_allocations_state_conductor_affinity', ['state', 'conductor_affinity'], unique=False)

    op.create_table('node_traits',
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('trait', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name=op.f('fk_node_traits_node_id_nodes')),
    sa.PrimaryKeyConstraint('node_id', 'trait', name=op.f('pk_node_traits'))
    )
    with op.batch_alter_table('node_traits', schema=None) as batch_op:
        batch_op.create_index('ix_node_traits_trait', ['trait'], unique=False)

    op.create_table('resource_provider_aggregates',
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('aggregate_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['aggregate_id'], ['placement_aggregates.id'], name=op.f('fk_resource_provider_aggregates_aggregate_id_placement_aggregates')),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], name=op.f('fk_resource_provider_aggregates_resource_provider_id_resource_providers')),
    sa.PrimaryKeyConstraint('resource_provider_id', 'aggregate_id', name=op.f('pk_resource_provider_aggregates'))
    )
    with op.batch_alter_table('resource_provider_aggregates', schema=None) as batch_op:
        batch_op.create_index('ix_resource_provider_aggregates_aggregate_id', ['aggregate_id'], unique=False)

    op.create_table('resource_provider_traits',
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('trait_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], name=op.f('fk_resource_provider_traits_resource_provider_id_resource_providers')),
    sa.ForeignKeyConstraint(['trait_id'], ['traits.id'], name=op.f('fk_resource_provider_traits_trait_id_traits')),
    sa.PrimaryKeyConstraint('resource_provider_id', 'trait_id', name=op.f('pk_resource_provider_traits'))
    )
    with op.batch_alter_table('resource_provider_traits', schema=None) as batch_op:
        batch_op.create_index('ix_resource_provider_traits_trait_id', ['trait_id'], unique=False)

