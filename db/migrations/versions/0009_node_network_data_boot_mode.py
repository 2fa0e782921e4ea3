"""node_network_data_boot_mode: Ironic's node network_data (1.66), boot_mode
and secure_boot (1.75)

Expand only: three nullable columns on nodes.  Old services neither read nor
write them; a row without them shows ``network_data`` as ``{}`` and the boot
fields as null, which is what a new node has.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07 16:20:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    op.add_column('nodes', sa.Column('network_data', sa.JSON, nullable=True))
    op.add_column('nodes', sa.Column('boot_mode', sa.String(length=16), nullable=True))
    op.add_column('nodes', sa.Column('secure_boot', sa.Boolean, nullable=True))
