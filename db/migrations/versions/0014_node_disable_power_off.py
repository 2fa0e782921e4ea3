"""node_disable_power_off: Ironic's disable_power_off node field (API 1.95)

Expand only: a boolean column on nodes, false by the server's default, so
the nodes old services store (they do not know it) may be powered off.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07 22:40:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('disable_power_off', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
