"""Chassis and the node fields of Ironic's API berth now serves

The ``chassis`` table (/v1/chassis) and, on ``nodes``: ``chassis_id``,
``protected``/``protected_reason`` (API 1.48), ``retired``/``retired_reason``
(1.61) and the twelve driver interface columns.  Expand only: new nullable
columns, or booleans with ``false`` as their server default, so rows written
by an older release read as unprotected, not retired, in no chassis, with
the default interfaces (the API shows a NULL interface as its default).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27 16:00:00
"""

from alembic import op
import sqlalchemy as sa

from db import dialect

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'

INTERFACES = ('bios', 'boot', 'console', 'deploy', 'inspect', 'management',
              'network', 'power', 'raid', 'rescue', 'storage', 'vendor')


def upgrade():
    op.create_table(
        'chassis',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('description', sa.String(length=255), nullable=True),
        sa.Column('extra', sa.JSON(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_chassis')),
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'))
    # MySQL/MariaDB: the binary collation of every other table (0002)
    dialect.convert_to_binary_collation(op.get_bind(), ('chassis',))
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('chassis_id', sa.Integer(), nullable=True))
        batch.create_foreign_key('fk_nodes_chassis_id_chassis', 'chassis',
                                 ['chassis_id'], ['id'])
        batch.create_index('ix_nodes_chassis_id', ['chassis_id'], unique=False)
        for flag in ('protected', 'retired'):
            batch.add_column(sa.Column(flag, sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
            batch.add_column(sa.Column(flag + '_reason', sa.Text(), nullable=True))
        for iface in INTERFACES:
            batch.add_column(sa.Column(iface + '_interface', sa.String(length=255),
                                       nullable=True))
