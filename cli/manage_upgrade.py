"""The expand/contract split of a rolling upgrade: ``db sync`` and ``db contract``.

``berth-manage db sync`` applies the expand migrations only (safe while
the previous release runs); ``berth-manage db contract`` applies the
contract ones and refuses while a conductor of an older release is a
member of the ring (their releases: :mod:`conductor.service_versions`).
``berth-manage status`` shows the same answer as its "Contract step" check.
"""

import sys

from common import context as berth_context
from objects import bootstrap, database

EXPAND, CONTRACT = 'expand', 'contract'


def _ring_reader(conf):
    from conductor import ring
    return ring.Ring(conf).start(retry_for=0)     # answers at once


def older_services(conf, ring_factory=None):
    """``(this release, [(host, version)] of the conductors running an older one)``.

    Raises whatever the coordination backend raises when it cannot be read.
    """
    from conductor import service_versions
    ring = (ring_factory or _ring_reader)(conf)
    try:
        described = ring.describe()
    finally:
        ring.stop()
    mine = service_versions.this_release()
    return mine, service_versions.older_than(described, mine)


def describe_older(older):
    return ', '.join('%s (%s)' % pair for pair in older)


def pending_contract(pending):
    return [rev for rev, phase in pending if phase == CONTRACT]


def db_sync(conf):
    db = database.open_database(conf)
    try:
        database.expand(db)
        added = bootstrap.sync_standards(berth_context.admin_context(db))
        left = pending_contract(database.pending_migrations(db))
        print('Database is at revision %s (%d standard classes/traits added).'
              % (database.schema_version(db), added))
        if left:
            print('Contract migration(s) pending: %s. Run "berth-manage db contract" '
                  'once every berth service runs this release ("berth-manage status" '
                  'says when).' % ', '.join(left))
    finally:
        db.dispose()
    return 0


def db_contract(conf, ring_factory=None):
    """Exit 0 after contracting (or with nothing to do), 2 when refused."""
    db = database.open_database(conf)
    try:
        if database.schema_version(db) is None:
            print('berth-manage db contract: the database is empty: run "berth-manage '
                  'db sync".', file=sys.stderr)
            return 2
        pending = database.pending_migrations(db)
        expands = [rev for rev, phase in pending[:1] if phase == EXPAND]
        if expands:
            print('berth-manage db contract: expand migration %s is not applied: run '
                  '"berth-manage db sync" first.' % expands[0], file=sys.stderr)
            return 2
        try:
            mine, older = older_services(conf, ring_factory)
        except Exception as exc:      # any coordination error: cannot tell, so refuse
            print('berth-manage db contract: refused: cannot read the conductor group to '
                  'check the services\' releases: %s' % exc, file=sys.stderr)
            return 2
        if older:
            print('berth-manage db contract: refused: conductor(s) older than %s are '
                  'running: %s. Upgrade them first; "berth-manage status" says when '
                  'the contract step is safe.' % (mine, describe_older(older)),
                  file=sys.stderr)
            return 2
        if not pending:
            print('Nothing to contract: the database is at revision %s.'
                  % database.schema_version(db))
            return 0
        database.contract(db)
        print('Database contracted to revision %s (%s applied).'
              % (database.schema_version(db), ', '.join(rev for rev, _ in pending)))
    finally:
        db.dispose()
    return 0


def add_db_commands(db_sub):
    """``db sync`` (expand) and ``db contract``."""
    db_sub.add_parser(
        'sync', help='create the schema, or apply the expand migrations (safe while '
                     'the previous release runs)').set_defaults(func=db_sync)
    db_sub.add_parser(
        'contract', help='apply the contract migrations once every service runs this '
                         'release (refused while older conductors are running)'
    ).set_defaults(func=db_contract)
