"""``berth-manage import placement``: adopt a running OpenStack Placement's data.

The work is in objects/adoption/placement_import.py; this module parses
the options, shows progress on stderr (on a terminal, or with
``--progress``) and prints the per-table changes and the time taken.
"""

import sys
import time

from oslo_db import exception as db_exc
import prettytable
import sqlalchemy as sa

from common import context as berth_context
from objects import database
from objects.adoption import placement_import, placement_schema
from objects.adoption import source as source_mod

# exit codes: refused input (nothing written), and a failed write (nothing written)
REFUSED = 2
FAILED = 1
SHOWN_PROBLEMS = 50


class _Progress:
    def __init__(self, enabled, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.started = time.monotonic()

    def __call__(self, message):
        if self.enabled:
            self.stream.write('[%6.1fs] %s\n' % (time.monotonic() - self.started, message))
            self.stream.flush()


def _fail(message, code=REFUSED):
    print('berth-manage: import placement: %s' % message, file=sys.stderr)
    return code


def _import_placement(conf):
    args = conf.category
    show = args.progress or sys.stderr.isatty()
    db = database.open_database(conf)
    try:
        ctx = berth_context.admin_context(db)
        try:
            result = placement_import.run(
                ctx, args.connection, allow_existing=args.allow_existing,
                skip_inconsistent=args.skip_inconsistent, progress=_Progress(show),
                full=args.full)
        except (placement_schema.SchemaError, source_mod.SourceError,
                placement_import.Refused) as exc:
            return _fail('%s; nothing was written' % exc)
        except placement_import.Inconsistent as exc:
            for line in exc.problems[:SHOWN_PROBLEMS]:
                print('  %s' % line, file=sys.stderr)
            if len(exc.problems) > SHOWN_PROBLEMS:
                print('  ... and %d more' % (len(exc.problems) - SHOWN_PROBLEMS),
                      file=sys.stderr)
            return _fail('the source has %d inconsistent row(s) (listed above); fix them in '
                         'Placement or pass --skip-inconsistent to leave them out; nothing '
                         'was written' % len(exc.problems))
        except (sa.exc.DBAPIError, db_exc.DBError) as exc:
            return _fail('writing berth\'s database failed (%s); nothing was written'
                         % str(exc).splitlines()[0], FAILED)
    finally:
        db.dispose()
    _report(result)
    return 0


def _report(result):
    table = prettytable.PrettyTable(['Table', 'Source rows', 'Inserted', 'Updated', 'Deleted'])
    table.align = 'r'
    table.align['Table'] = 'l'
    for name, (ins, upd, dele) in result.changes.items():
        table.add_row([name, result.source_counts[name], ins, upd, dele])
    print(table)
    for line in result.skipped:
        print('skipped: %s' % line)
    if result.null_generations:
        print('%d provider(s) with a NULL generation were imported with generation 0'
              % result.null_generations)
    print('import placement: %d change(s) from schema revision %s in %.1f s, %s (%s)' % (
        result.changed, result.revision, result.seconds, result.mode,
        ', '.join('%s %.1f s' % kv for kv in result.phases.items())))


def add_placement_import(imp_sub):
    """``import placement`` in the ``import`` command group."""
    cmd = imp_sub.add_parser(
        'placement',
        help='import (or catch up with) the data of a running OpenStack Placement: '
             'same uuids and generations; read-only on the source; one transaction')
    cmd.add_argument('--connection', required=True, metavar='URL',
                     help='SQLAlchemy URL of Placement\'s database, e.g. '
                          'mysql+pymysql://placement_ro:secret@db/placement '
                          '(a read-only user is enough)')
    cmd.add_argument('--allow-existing', action='store_true', dest='allow_existing',
                     help='write into a berth database that holds Placement data no '
                          'import wrote: afterwards it holds exactly the source\'s')
    cmd.add_argument('--skip-inconsistent', action='store_true', dest='skip_inconsistent',
                     help='leave out (and list) source rows that break Placement\'s rules '
                          'instead of refusing them')
    cmd.add_argument('--full', action='store_true',
                     help='compare every row of both sides, as the first import does, '
                          'instead of what may have changed since the last run (for a '
                          'source written by hand rather than through Placement\'s API)')
    cmd.add_argument('--progress', action='store_true',
                     help='show progress on stderr even when it is not a terminal')
    cmd.set_defaults(func=_import_placement)
