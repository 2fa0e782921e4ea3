"""node_firmware_interface: Ironic's firmware_interface node field (API 1.86)

Expand only: a nullable column on nodes.  Old services neither read nor
write it; a node they stored has null, shown as its driver's default.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07 20:10:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('firmware_interface', sa.String(length=255),
                                      nullable=True))
