"""node_instance_name: Ironic's instance_name node field (API 1.104)

Expand only: a nullable column on nodes.  Old services neither read nor
write it; a node they deploy has none until its instance_info is patched.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 22:50:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('instance_name', sa.String(length=255), nullable=True))
