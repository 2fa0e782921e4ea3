"""node_allocation_owners: the per-owner lock of the per-project ``extra`` cap

Expand only: a new table (on MySQL in the binary collation of 0002, so
owners compare exactly as on the other engines) and an index on
node_allocations.owner (the per-owner sum of stored ``extra``).  Old services
neither read nor write the table; allocations they store count towards the
cap as soon as a new service sums them.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 20:00:00
"""

from alembic import op
import sqlalchemy as sa

from db import dialect

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    op.create_table(
        'node_allocation_owners',
        sa.Column('owner', sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint('owner', name='pk_node_allocation_owners'),
    )
    dialect.convert_to_binary_collation(op.get_bind(), ('node_allocation_owners',))
    op.create_index('ix_node_allocations_owner', 'node_allocations', ['owner'])
