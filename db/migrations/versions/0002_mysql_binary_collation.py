"""MySQL/MariaDB: every table in utf8mb4 with a binary collation

MySQL's default collations compare case- and trailing-space-insensitively, so
provider names "rack1" and "RACK1" (or consumer uuids in upper and lower case)
would clash in unique constraints and match in lookups, unlike on PostgreSQL
and SQLite.  A no-op on the other engines.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 09:05:00
"""

from alembic import op

from db import dialect

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'

TABLES = (
    'resource_classes', 'traits', 'resource_providers', 'inventories',
    'placement_aggregates', 'resource_provider_aggregates', 'resource_provider_traits',
    'projects', 'users', 'consumer_types', 'consumers', 'allocations', 'quota_limits',
    'nodes', 'node_traits', 'node_allocations', 'compute_nodes',
)


def upgrade():
    dialect.convert_to_binary_collation(op.get_bind(), TABLES)
