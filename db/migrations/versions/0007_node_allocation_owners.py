"""node_allocation_owners: the per-owner lock of the per-project ``extra`` cap

Expand only: a new table (on MySQL in the binary collation of 0002, so
owners compare exactly as on the other engines), a nullable
node_allocations.extra_bytes (the size of ``extra``, written with it) and an
index on (owner, extra_bytes) for the per-owner sum.  Old services neither
read nor write them; a row they store (extra_bytes NULL) is measured from
its ``extra`` when summed, so it counts towards the cap all the same.

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
    op.add_column('node_allocations', sa.Column('extra_bytes', sa.Integer, nullable=True))
    op.create_index('ix_node_allocations_owner_extra_bytes', 'node_allocations',
                    ['owner', 'extra_bytes'])
