"""node_history: Ironic's node history events (API 1.78)

Expand only: a new table.  Old services write no events; a node they change
simply has none for that change.  Its rows go with their node (deleted by
new services, and by the foreign key's cascade when an old one deletes it).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 16:30:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    op.create_table(
        'node_history',
        sa.Column('id', sa.Integer, nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('node_id', sa.Integer, nullable=False),
        sa.Column('conductor', sa.String(length=255), nullable=True),
        sa.Column('user', sa.String(length=64), nullable=True),
        sa.Column('project', sa.String(length=64), nullable=True),
        sa.Column('severity', sa.String(length=16), nullable=False),
        sa.Column('event_type', sa.String(length=255), nullable=False),
        sa.Column('event', sa.Text, nullable=False),
        sa.Column('state', sa.String(length=15), nullable=True),
        sa.Column('target_provision_state', sa.String(length=15), nullable=True),
        sa.Column('duration_seconds', sa.Integer, nullable=True),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_node_history'),
        sa.UniqueConstraint('uuid', name='uniq_node_history0uuid'),
        # ON DELETE CASCADE: a node an older service deletes (it knows no history)
        # takes its events along instead of failing on them
        sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name='fk_node_history_node_id_nodes',
                                ondelete='CASCADE'),
    )
    op.create_index('ix_node_history_node_id_id', 'node_history', ['node_id', 'id'])
