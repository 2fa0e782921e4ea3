"""``berth-manage verify placement`` and ``berth-manage export placement``."""

from __future__ import annotations

import os
import sys
import time

from cli import adoption_verify, config
from common import context as berth_context
from objects import database
from objects.adoption import placement_export

# exit codes: 1 = differences found, 2 = cannot compare / bad input
DIFFERENT = 1
BAD_INPUT = 2


def berth_url(conf) -> str:
    """Where this host's berth serves the Placement API, from ``[api]``."""
    host = conf.api.host
    if host in ('0.0.0.0', '::', ''):
        host = '127.0.0.1'
    if ':' in host:
        host = '[%s]' % host
    return 'http://%s:%d' % (host, conf.api.placement_port)


def _verify_placement(conf) -> int:
    args = conf.category
    token = args.token or os.environ.get('OS_TOKEN')
    berth_token = args.berth_token or token
    placement = adoption_verify.Endpoint('placement', args.endpoint, token,
                                         timeout=args.timeout)
    berth = adoption_verify.Endpoint('berth', args.berth_endpoint or berth_url(conf),
                                     berth_token, timeout=args.timeout)
    verifier = adoption_verify.Verifier(
        placement, berth, workers=args.workers,
        emit=lambda d: print('DIFFERENT ' + d.line(), flush=True),
        microversion=args.microversion,
        progress=lambda line: print(line, flush=True), sample=args.sample)
    started = time.monotonic()
    try:
        report = verifier.run()
    except adoption_verify.VerifyError as exc:
        print('berth-manage: %s' % exc, file=sys.stderr)
        return BAD_INPUT
    print('%d reads compared at microversion %s (placement %s, berth %s) in %.1f s: '
          '%d difference(s)' % (report.reads, placement.version, placement.url,
                                berth.url, time.monotonic() - started,
                                len(report.differences)))
    return DIFFERENT if report.differences else 0


def add_verify_commands(subparsers) -> None:
    """The ``verify`` command group."""
    ver_sub = config.command_group(subparsers, 'verify', 'compare berth with another service')
    p = ver_sub.add_parser(
        'placement',
        help='read the same things from a running Placement and from berth and print '
             'every difference (exit 0: identical, 1: differences, 2: cannot compare)')
    p.add_argument('--endpoint', required=True, metavar='URL',
                   help='the Placement API, e.g. http://controller:8778')
    p.add_argument('--token', default=None,
                   help='X-Auth-Token for Placement (default: $OS_TOKEN)')
    p.add_argument('--berth-endpoint', default=None, dest='berth_endpoint', metavar='URL',
                   help='berth\'s Placement API (default: http://[api] host:[api] '
                        'placement_port of this configuration)')
    p.add_argument('--berth-token', default=None, dest='berth_token',
                   help='X-Auth-Token for berth (default: the --token)')
    p.add_argument('--microversion', default=None,
                   help='ask both sides at this microversion (default: the newest both '
                        'offer, at most 1.39)')
    p.add_argument('--sample', type=int, default=0, metavar='N',
                   help='read at most N providers one by one (with their consumers), '
                        'spread evenly over the uuids; the lists, filters, usages and '
                        'candidates are still compared (default 0: every provider)')
    p.add_argument('--workers', type=int, default=8,
                   help='reads in flight per side (default 8)')
    p.add_argument('--timeout', type=float, default=60.0,
                   help='seconds one read may take (default 60)')
    p.set_defaults(func=_verify_placement)


def _export_placement(conf) -> int:
    target = conf.category.connection
    db = database.open_database(conf)
    started = time.monotonic()
    try:
        ctx = berth_context.admin_context(db)
        counts = placement_export.run(ctx, target)
    except placement_export.ExportRefused as exc:
        print('berth-manage: %s' % exc, file=sys.stderr)
        return BAD_INPUT
    finally:
        db.dispose()
    print('exported to %s in %.1f s:' % (placement_export.shown_url(target),
                                         time.monotonic() - started))
    for table, count in counts.items():
        print('  %-28s %d' % (table, count))
    return 0


def add_export_commands(subparsers) -> None:
    """The ``export`` command group."""
    exp_sub = config.command_group(subparsers, 'export',
                                   'write berth\'s data for another service')
    p = exp_sub.add_parser(
        'placement',
        help='write berth\'s providers, inventories, traits, aggregates, consumers and '
             'allocations into an empty Placement database (after placement-manage db '
             'sync), same uuids and generations: the way back')
    p.add_argument('--connection', required=True, metavar='URL',
                   help='SQLAlchemy URL of the empty Placement database, e.g. '
                        'mysql+pymysql://placement:secret@db/placement')
    p.set_defaults(func=_export_placement)
