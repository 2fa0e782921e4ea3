"""Schema migrations (alembic), driven by ``berth-manage db sync/version``."""

import os

import alembic.command
import alembic.config
import alembic.migration
import alembic.script

_HERE = os.path.dirname(os.path.abspath(__file__))


def _config(connection=None):
    cfg = alembic.config.Config()
    cfg.set_main_option('script_location', os.path.join(_HERE, 'migrations'))
    cfg.attributes['connection'] = connection
    return cfg


def upgrade(database, revision='head'):
    """Bring the schema of ``database`` (a db.api.Database) up to ``revision``."""
    with database.engine.begin() as connection:
        alembic.command.upgrade(_config(connection), revision)


def version(database):
    """The current revision of the schema, or None for an empty database."""
    with database.engine.connect() as connection:
        return alembic.migration.MigrationContext.configure(
            connection).get_current_revision()


def head():
    """The newest revision the code knows."""
    return alembic.script.ScriptDirectory.from_config(_config()).get_current_head()
