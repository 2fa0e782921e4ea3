"""nodes.conductor_group (Ironic API 1.46): settable and filterable

Expand only: a new column with the empty group as its server default, so
rows written by an older release read as the default group.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 08:00:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('conductor_group', sa.String(length=255),
                                   nullable=False, server_default=''))
