"""placement_imports: what ``berth-manage import placement`` wrote, run by run

Expand only: a new table.  Each import or catch-up from a running
OpenStack Placement adds one row in the same transaction as its writes:
the source (password hidden), its schema revision, the times and the
per-table counts.  A target holding Placement data but no row here was
written by something else, and the import refuses it unless told
(``--allow-existing``).  Old services never read it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07 12:40:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None
# rolling upgrades: runs with "berth-manage db sync" while old services run (db/migration.py)
phase = 'expand'


def upgrade():
    op.create_table(
        'placement_imports',
        sa.Column('id', sa.Integer, nullable=False),
        sa.Column('source', sa.String(length=255), nullable=False),
        sa.Column('revision', sa.String(length=32), nullable=False),
        sa.Column('started_at', sa.DateTime, nullable=False),
        sa.Column('finished_at', sa.DateTime, nullable=False),
        sa.Column('changes', sa.Text, nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_placement_imports'),
    )
