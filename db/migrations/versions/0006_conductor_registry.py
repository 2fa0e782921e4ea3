"""conductors: the conductor registry (Ironic's ``conductors`` table, API 1.49)

Expand only: a new table (on MySQL in the binary collation of 0002, so
hostnames compare exactly as on the other engines).  Each conductor registers itself at start,
heartbeats into ``updated_at`` and turns ``online`` off on a clean stop; a
row stays until an operator forgets it (``berth-manage conductor forget``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27 16:00:00
"""

from alembic import op
import sqlalchemy as sa

from db import dialect

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    op.create_table(
        'conductors',
        sa.Column('id', sa.Integer, nullable=False),
        sa.Column('hostname', sa.String(length=255), nullable=False),
        sa.Column('conductor_group', sa.String(length=255), nullable=False,
                  server_default=''),
        sa.Column('drivers', sa.JSON, nullable=True),
        sa.Column('online', sa.Boolean, nullable=False),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_conductors'),
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    )
    dialect.convert_to_binary_collation(op.get_bind(), ('conductors',))
