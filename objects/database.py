"""Opening the database for a process; upper layers never import ``db`` directly."""

from __future__ import annotations

from oslo_config import cfg

from db import api as db_api
from db import migration


def open_database(conf: cfg.ConfigOpts) -> db_api.Database:
    """The process's db.api.Database for ``[database] connection``."""
    return db_api.Database.from_conf(conf)


def upgrade(database: db_api.Database) -> None:
    migration.upgrade(database)


def schema_version(database: db_api.Database) -> str | None:
    return migration.version(database)


def schema_head() -> str:
    """The newest schema revision this code knows."""
    return migration.head()
