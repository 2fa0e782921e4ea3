"""Opening the database for a process; upper layers never import ``db`` directly."""

from db import api as db_api
from db import migration


def open_database(conf):
    """The process's db.api.Database for ``[database] connection``."""
    return db_api.Database.from_conf(conf)


def upgrade(database):
    migration.upgrade(database)


def schema_version(database):
    return migration.version(database)


def schema_head():
    """The newest schema revision this code knows."""
    return migration.head()
