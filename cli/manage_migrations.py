"""``berth-manage db online_data_migrations`` and ``berth-manage import compute-nodes``."""

import collections
import re
import sys

import prettytable

from cli import config, manage_import_placement
from common import context as berth_context
from common import exception
from objects import database
from objects.legacy import compute_node_import, online_migrations

# exit code of a command whose input or configuration is unusable
BAD_INPUT = 2


class Progress:
    """A plain-text progress bar: redrawn in place on a terminal, one line per 10% otherwise."""

    WIDTH = 30

    def __init__(self, label, total, stream=None):
        self.label = label
        self.total = max(total, 0)
        self.stream = stream or sys.stdout
        self.tty = getattr(self.stream, 'isatty', lambda: False)()
        self._last_step = -1

    def update(self, done):
        frac = 1.0 if not self.total else min(done / self.total, 1.0)
        step = int(frac * 10)
        if not self.tty and step == self._last_step:
            return
        self._last_step = step
        bar = '#' * int(frac * self.WIDTH)
        line = '%s [%-*s] %d/%d' % (self.label, self.WIDTH, bar, done, self.total)
        self.stream.write(('\r' + line) if self.tty else line + '\n')
        self.stream.flush()

    def finish(self):
        if self.tty:
            self.stream.write('\n')
            self.stream.flush()


# ids shown per reason in the summary of skipped rows
SHOWN_IDS = 5
_PARENTHESES = re.compile(r'\s*\([^()]*\)')
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r'-?\d+(?:\.\d+)?(?:e[-+]?\d+)?')


def reason_kind(reason):
    """A skipped row's reason without its values: what the summary groups by.

    ``vcpus is negative (-4)`` and ``vcpus is negative (-9)`` are one kind,
    ``vcpus is negative``; quoted values and numbers become ``…`` and ``N``.
    """
    kind, previous = reason, None
    while kind != previous:            # nested parentheses, innermost first
        kind, previous = _PARENTHESES.sub('', kind), kind
    kind = _QUOTED.sub('…', kind)
    return _NUMBER.sub('N', kind).strip()


def _report_failures(failed, what, verbose=False):
    """Skipped rows by reason, most frequent first; every row with ``verbose``."""
    groups = collections.defaultdict(list)
    for row_id, reason in failed:
        groups[reason_kind(reason)].append(row_id)
    for kind, ids in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        shown = ', '.join(str(i) for i in ids[:SHOWN_IDS])
        more = len(ids) - SHOWN_IDS
        print('  %5d x %s (%s %s%s)' % (len(ids), kind, what, shown,
                                        ' and %d more' % more if more > 0 else ''))
    if verbose:
        for row_id, reason in failed:
            print('  %s %s skipped: %s' % (what, row_id, reason))
    else:
        print('  (every row with its values: run again with --verbose)')


def _online_data_migrations(conf):
    max_count = conf.category.max_count
    if max_count is not None and max_count < 1:
        print('--max-count must be at least 1', file=sys.stderr)
        return BAD_INPUT
    db = database.open_database(conf)
    try:
        ctx = berth_context.admin_context(db)
        bars: dict[str, Progress] = {}

        def progress(summary):
            bar = bars.get(summary.name)
            if bar is None:
                bar = bars[summary.name] = Progress(summary.name, summary.pending)
            bar.update(summary.found)

        try:
            code, summaries = online_migrations.run(ctx, conf, max_count, progress)
        except ValueError as exc:   # the rules' configuration
            print('berth-manage: %s' % exc, file=sys.stderr)
            return BAD_INPUT
        for bar in bars.values():
            bar.finish()
    finally:
        db.dispose()
    table = prettytable.PrettyTable(['Migration', 'Total Found', 'Completed', 'Skipped'])
    table.align = 'l'
    for s in summaries:
        table.add_row([s.name, s.found, s.done, len(s.failed)])
    print(table)
    for s in summaries:
        if s.failed:
            print('%s: %d row(s) could not be migrated:' % (s.name, len(s.failed)))
            _report_failures(s.failed, 'row', conf.category.verbose)
    if code == online_migrations.MORE:
        print('More rows remain: run the command again.')
    elif code == online_migrations.FAILED_ROWS:
        print('Fix the rows above and run the command again.')
    else:
        print('All online data migrations are complete.')
    return code


def _import_compute_nodes(conf):
    try:
        source = compute_node_import.Source(conf.category.source).check()
    except exception.NotNovaCellDatabase as exc:
        print('berth-manage: %s' % exc, file=sys.stderr)
        return BAD_INPUT
    db = database.open_database(conf)
    try:
        ctx = berth_context.admin_context(db)
        bar = Progress('import compute nodes', 0)

        def progress(done, total):
            bar.total = total
            bar.update(done)

        try:
            totals = compute_node_import.run(ctx, conf, source, progress)
        except ValueError as exc:
            print('berth-manage: %s' % exc, file=sys.stderr)
            return BAD_INPUT
        bar.finish()
    finally:
        source.close()
        db.dispose()
    table = prettytable.PrettyTable(['Source', 'Found', 'Created', 'Updated',
                                     'Unchanged', 'Skipped'])
    table.align = 'l'
    table.add_row([source.shown_url, totals.found, totals.created, totals.updated,
                   totals.unchanged, len(totals.failed)])
    print(table)
    if totals.failed:
        print('%d compute node(s) were not imported:' % len(totals.failed))
        _report_failures(totals.failed, 'nova compute node', conf.category.verbose)
        return online_migrations.FAILED_ROWS
    return 0


def add_db_commands(db_subparsers):
    """Add ``online_data_migrations`` to the ``db`` command group."""
    odm = db_subparsers.add_parser(
        'online_data_migrations',
        help='migrate data in batches while the service runs (exit 0: all done, '
             '1: more to do, 2: some rows could not be migrated)')
    odm.add_argument('--max-count', type=int, default=None, dest='max_count',
                     help='look at no more than this many rows in this run')
    odm.add_argument('--verbose', action='store_true',
                     help='list every skipped row with its reason (default: '
                          'counts by reason)')
    odm.set_defaults(func=_online_data_migrations)


def add_import_commands(subparsers):
    """The ``import`` command group."""
    imp_sub = config.command_group(subparsers, 'import', 'bring data in from other services')
    nodes = imp_sub.add_parser(
        'compute-nodes',
        help='import the compute nodes of a Nova cell database as resource '
             'providers with inventories (read-only on the source; re-running updates)')
    nodes.add_argument('--from', required=True, dest='source', metavar='URL',
                       help='SQLAlchemy URL of the Nova cell database, e.g. '
                            'postgresql+psycopg2://nova:secret@db/nova_cell1')
    nodes.add_argument('--verbose', action='store_true',
                       help='list every skipped row with its reason (default: '
                            'counts by reason)')
    nodes.set_defaults(func=_import_compute_nodes)
    manage_import_placement.add_placement_import(imp_sub)
