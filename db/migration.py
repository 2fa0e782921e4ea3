"""Schema migrations (alembic), driven by ``berth-manage db sync/contract/version``.

Every revision says which phase of a rolling upgrade it belongs to, in a
module attribute ``phase``:

* ``'expand'``: only adds (tables, nullable or defaulted columns, indexes,
  wider types, data conversions both releases read).  Code of the previous
  release keeps working on the result, so it runs while old services run:
  ``berth-manage db sync``.
* ``'contract'``: removes or tightens what the previous release still uses
  (drops a column, adds NOT NULL to a column it does not fill).  It runs
  once every service runs the new release: ``berth-manage db contract``.

The chain stays linear: ``db sync`` applies the pending revisions in order
up to the first pending contract one; ``db contract`` applies the rest.  A
release's contract revisions therefore come after its expand ones, and a
database that has never been contracted stops the next release's
``db sync`` before its first pending contract revision (contract first).
An empty database has no old code reading it: ``db sync`` builds all of it.
"""

import os

import alembic.command
import alembic.config
import alembic.migration
import alembic.script

_HERE = os.path.dirname(os.path.abspath(__file__))
EXPAND, CONTRACT = 'expand', 'contract'
PHASES = (EXPAND, CONTRACT)
# the alembic script directory (a test points it at a copy with more revisions)
SCRIPT_LOCATION = os.path.join(_HERE, 'migrations')


def _config(connection=None):
    cfg = alembic.config.Config()
    cfg.set_main_option('script_location', SCRIPT_LOCATION)
    cfg.attributes['connection'] = connection
    return cfg


def upgrade(database, revision='head'):
    """Bring the schema of ``database`` (a db.api.Database) up to ``revision``.

    Each revision commits on its own (db/migrations/env.py), so a revision's
    locks are released before the next takes its own: run as one transaction,
    an expand that altered ``nodes`` and then ``node_allocations`` held the
    first while waiting for the second, and deadlocked the old conductors
    still serving, which read them in the other order.
    """
    with database.engine.connect() as connection:
        alembic.command.upgrade(_config(connection), revision)
        connection.commit()


def version(database):
    """The current revision of the schema, or None for an empty database."""
    with database.engine.connect() as connection:
        return alembic.migration.MigrationContext.configure(
            connection).get_current_revision()


def head():
    """The newest revision the code knows."""
    return alembic.script.ScriptDirectory.from_config(_config()).get_current_head()


def _script():
    return alembic.script.ScriptDirectory.from_config(_config())


def phases():
    """``[(revision, phase)]`` of every revision, oldest first.

    Raises ValueError for a revision without a valid ``phase``.
    """
    found = []
    for script in reversed(list(_script().walk_revisions())):
        phase = getattr(script.module, 'phase', None)
        if phase not in PHASES:
            raise ValueError('migration %s has no phase (set phase = %r or %r)'
                             % (script.revision, EXPAND, CONTRACT))
        found.append((script.revision, phase))
    return found


def pending(database):
    """``[(revision, phase)]`` not yet applied to ``database``, oldest first."""
    chain = phases()
    current = version(database)
    if current is None:
        return chain
    revisions = [rev for rev, _ in chain]
    return chain[revisions.index(current) + 1:]


def expand_target(database):
    """The revision ``db sync`` brings ``database`` to (None: nothing to apply).

    The last pending revision before the first pending contract one; every
    pending revision for an empty database.
    """
    target = None
    empty = version(database) is None
    for rev, phase in pending(database):
        if phase == CONTRACT and not empty:
            break
        target = rev
    return target


def expand(database):
    """Apply the pending expand revisions (all of them to an empty database)."""
    target = expand_target(database)
    if target is not None:
        upgrade(database, target)
    return version(database)


def contract(database):
    """Apply every pending revision (the contract ones and what follows)."""
    upgrade(database)
    return version(database)
