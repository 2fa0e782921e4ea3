"""Opening the database for a process; upper layers never import ``db`` directly."""

from __future__ import annotations

from oslo_config import cfg

from db import api as db_api
from db import migration


def open_database(conf: cfg.ConfigOpts) -> db_api.Database:
    """The process's db.api.Database for ``[database] connection``."""
    return db_api.Database.from_conf(conf)


def upgrade(database: db_api.Database) -> None:
    """Every revision (expand and contract): a fresh database of the embedded berth."""
    migration.upgrade(database)


def expand(database: db_api.Database) -> str | None:
    """``db sync``: the pending expand revisions; the revision reached."""
    return migration.expand(database)


def contract(database: db_api.Database) -> str | None:
    """``db contract``: the rest (contract revisions first); the revision reached."""
    return migration.contract(database)


def pending_migrations(database: db_api.Database) -> list[tuple[str, str]]:
    """``[(revision, 'expand'|'contract')]`` not yet applied, oldest first."""
    return migration.pending(database)


def migration_phases() -> list[tuple[str, str]]:
    """``[(revision, phase)]`` of every revision the code knows, oldest first."""
    return migration.phases()


def schema_version(database: db_api.Database) -> str | None:
    return migration.version(database)


def schema_head() -> str:
    """The newest schema revision this code knows."""
    return migration.head()
