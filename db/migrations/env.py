"""alembic environment: runs on the connection handed over by db.migration."""

from alembic import context

from db import models

config = context.config
connection = config.attributes.get('connection')
if connection is None:
    raise RuntimeError('run migrations through "berth-manage db sync"')

context.configure(connection=connection, target_metadata=models.Base.metadata,
                  render_as_batch=connection.dialect.name == 'sqlite',
                  compare_type=True, transaction_per_migration=True)
with context.begin_transaction():
    context.run_migrations()
