"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}
"""

from alembic import op
import sqlalchemy as sa
${imports if imports else ""}

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = ${repr(branch_labels)}
depends_on = ${repr(depends_on)}
# 'expand' (adds only; "berth-manage db sync" runs it while the previous release
# runs) or 'contract' (removes what the previous release uses; "berth-manage db
# contract" runs it once every service is new).  See db/migration.py.
phase = 'expand'


def upgrade():
    ${upgrades if upgrades else "pass"}
