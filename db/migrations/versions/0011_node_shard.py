"""node_shard: Ironic's node shard (API 1.82)

Expand only: a nullable column on nodes and its index (``GET /v1/nodes?shard=``
and ``GET /v1/shards`` read by it).  Old services neither read nor write it;
their nodes have no shard, which is what a new node has.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07 19:10:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('shard', sa.String(length=255), nullable=True))
        batch_op.create_index('ix_nodes_shard', ['shard'], unique=False)
