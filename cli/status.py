"""``berth-status upgrade check``: oslo.upgradecheck's spelling of ``berth-manage status``.

OpenStack services ship a ``<project>-status upgrade check`` command
(``nova-status``, ``placement-status``, ...) that deployment tools run before
restarting on new code.  This one runs the same checks as ``berth-manage
status`` (:class:`cli.manage_status.Checks`), prints the same table (or JSON
with ``--json``) and exits with the same codes: 0 success, 1 warning, 2
failure, 255 when the command itself crashed (oslo.upgradecheck's code).

oslo.upgradecheck's own ``main()`` parses the command line itself; berth's
configuration is built by :mod:`common.conf.builder` (every option group,
``/etc/berth/berth.conf``, ``--version``), so the ``upgrade check``
sub-command is declared here the way the library declares it.
"""

import sys
import traceback

from oslo_config import cfg

from cli import config, config_spelling, manage_status


def _add_commands(subparsers):
    upgrade = subparsers.add_parser('upgrade', help='upgrade readiness')
    upgrade.add_argument('action', choices=['check'],
                         help='run the upgrade checks (exit 0: success, 1: '
                              'warning, 2: failure)')
    upgrade.add_argument('--json', action='store_true',
                         help='print the results as JSON instead of a table')


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    command = cfg.SubCommandOpt('command', title='Commands', handler=_add_commands)
    try:
        conf = config.make_conf(argv, description='berth upgrade checks',
                                cli_opts=[command])
    except cfg.Error as exc:
        print('berth-status: %s' % exc, file=sys.stderr)
        return 2
    config_spelling.check_or_exit('berth-status', conf)
    checks = manage_status.Checks(conf)
    try:
        return int(checks.check(as_json=conf.command.json))
    except Exception:
        print('Error:\n%s' % traceback.format_exc())
        return 255
    finally:
        checks.close()


if __name__ == '__main__':
    sys.exit(main())
