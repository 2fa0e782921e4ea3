"""Indexes on nodes.owner and nodes.lessee (expand only)

A project-scoped caller lists and allocates only the nodes its project owns
or leases (``owner = :p OR lessee = :p``); without these every such request
scans the nodes table.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 08:00:00
"""

from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.create_index('ix_nodes_owner', ['owner'], unique=False)
        batch_op.create_index('ix_nodes_lessee', ['lessee'], unique=False)
