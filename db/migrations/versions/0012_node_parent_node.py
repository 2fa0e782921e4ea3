"""node_parent_node: Ironic's child nodes (API 1.83)

Expand only: a nullable column on nodes (the parent's UUID) and its index
(``GET /v1/nodes/{node}/children`` and ``?parent_node=`` read by it).  Old
services neither read nor write it; their nodes have no parent.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07 19:25:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('parent_node', sa.String(length=36), nullable=True))
        batch_op.create_index('ix_nodes_parent_node', ['parent_node'], unique=False)
