"""``berth-manage conductor list|forget``, and the status check of the conductor registry.

A conductor that registered stays listed, alive or dead, until an operator
forgets it here (objects/baremetal/conductor.py); ``forget`` refuses a live
one, so only a conductor that stopped or stopped heartbeating can go.
Exit codes of ``forget``: 0 forgotten, 1 refused (alive), 2 no such
conductor.
"""

import sys

from oslo_upgradecheck import upgradecheck
import prettytable

from cli import config
from common import context as berth_context
from objects import database
from objects.baremetal import conductor as conductor_obj

Code = upgradecheck.Code
Result = upgradecheck.Result


def _state(conductor, timeout, at):
    if conductor.alive(timeout, at):
        return 'alive'
    return 'dead' if conductor.online else 'stopped'


def registry_result(conf, db):
    """The ``Registered conductors`` check: a Warning while any of them is not alive."""
    timeout = conf.conductor.heartbeat_timeout
    found = conductor_obj.list_conductors(berth_context.admin_context(db),
                                          sort_key='hostname')
    if not found:
        return Result(Code.WARNING, 'No conductor has registered: start '
                                    'berth-conductor (or berth serve).')
    at = conductor_obj.now()
    down = [c for c in found if not c.alive(timeout, at)]
    if down:
        return Result(Code.WARNING, '%d of %d registered conductor(s) not alive: %s. '
                                    'Start them again, or run "berth-manage '
                                    'conductor forget <hostname>" for those that are '
                                    'gone for good.'
                      % (len(down), len(found), ', '.join(
                          '%s (%s, last heartbeat %.0fs ago)'
                          % (c.hostname, _state(c, timeout, at), c.heartbeat_age(at))
                          for c in down)))
    return Result(Code.SUCCESS, 'All %d registered conductor(s) are alive.' % len(found))


def _list(conf):
    db = database.open_database(conf)
    try:
        found = conductor_obj.list_conductors(berth_context.admin_context(db),
                                              sort_key='hostname')
    finally:
        db.dispose()
    at, timeout = conductor_obj.now(), conf.conductor.heartbeat_timeout
    table = prettytable.PrettyTable(['Hostname', 'Group', 'State', 'Last heartbeat',
                                     'Registered'])
    table.align = 'l'
    for c in found:
        table.add_row([c.hostname, c.conductor_group, _state(c, timeout, at),
                       '%.0fs ago' % c.heartbeat_age(at),
                       c.created_at.strftime('%Y-%m-%dT%H:%M:%SZ')])
    print(table)
    return 0


def _forget(conf):
    hostname = conf.category.hostname
    db = database.open_database(conf)
    try:
        conductor_obj.forget(berth_context.admin_context(db), hostname,
                             conf.conductor.heartbeat_timeout)
    except conductor_obj.ConductorAlive as exc:
        print('berth-manage: %s' % exc, file=sys.stderr)
        return 1
    except conductor_obj.ConductorNotFound as exc:
        print('berth-manage: %s' % exc, file=sys.stderr)
        return 2
    finally:
        db.dispose()
    print('Conductor %s forgotten.' % hostname)
    return 0


def add_conductor_commands(subparsers):
    """The ``conductor`` command group."""
    sub = config.command_group(subparsers, 'conductor', 'the conductor registry')
    sub.add_parser('list', help='every registered conductor, alive or dead'
                   ).set_defaults(func=_list)
    forget = sub.add_parser(
        'forget', help='remove a dead or stopped conductor from the registry '
                       '(refused while it is alive)')
    forget.add_argument('hostname', help='the conductor\'s host name ([DEFAULT] host)')
    forget.set_defaults(func=_forget)

