"""``berth-manage``: schema migrations and operator tasks."""

import os
import sys

from oslo_config import cfg

from cli import (
    config,
    config_spelling,
    manage_capacity,
    manage_conductor,
    manage_migrations,
    manage_policy,
    manage_quota,
    manage_rpc,
    manage_status,
    manage_upgrade,
    manage_verify_export,
    start_errors,
)
from objects import database


def _db_version(conf):
    db = database.open_database(conf)
    try:
        current = database.schema_version(db)
    finally:
        db.dispose()
    print(current or 'None (empty database)')
    return 0


def _add_db_commands(subparsers):
    db_sub = config.command_group(subparsers, 'db', 'database schema')
    manage_upgrade.add_db_commands(db_sub)
    db_sub.add_parser('version', help='print the schema revision').set_defaults(
        func=_db_version)
    manage_migrations.add_db_commands(db_sub)


# Other modules add their command groups here (quota, import, status, ...).
COMMAND_GROUPS = [_add_db_commands, manage_migrations.add_import_commands,
                  manage_status.add_status_command,
                  manage_quota.add_quota_commands,
                  manage_policy.add_policy_commands,
                  manage_conductor.add_conductor_commands,
                  manage_capacity.add_capacity_command,
                  manage_rpc.add_rpc_commands,
                  manage_verify_export.add_verify_commands,
                  manage_verify_export.add_export_commands]


def _add_commands(subparsers):
    for add in COMMAND_GROUPS:
        add(subparsers)


# command groups that never open the database
NO_DATABASE = frozenset(('policy', 'rpc', 'verify'))


def _unconfigured(conf):
    """Why berth-manage must not go on: no file read and no database to find, or None.

    Without a configuration file, ``[database] connection`` falls back to the
    embedded SQLite file in ``state_path`` (``./berth-data``); opening it would
    create an empty database in whatever directory the operator stood in.
    """
    if conf.config_file or conf.database.connection:
        return None
    if conf.category.name in NO_DATABASE:
        return None
    embedded = os.path.abspath(os.path.join(conf.state_path, 'berth.sqlite'))
    if os.path.exists(embedded):
        return None
    return ('no configuration: no --config-file given, %s not found, and no embedded '
            'database at %s; pass --config-file with [database] connection '
            '(berth-manage creates no database by itself)'
            % (config.DEFAULT_CONFIG_FILE, embedded))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    category = cfg.SubCommandOpt('category', title='Commands',
                                 handler=_add_commands)
    try:
        conf = config.make_conf(argv, description='berth management',
                                cli_opts=[category])
    except cfg.Error as exc:
        print('berth-manage: %s' % exc, file=sys.stderr)
        return 2
    config_spelling.check_or_exit('berth-manage', conf)
    refusal = _unconfigured(conf)
    if refusal:
        print('berth-manage: %s' % refusal, file=sys.stderr)
        return 2
    try:
        return conf.category.func(conf)
    except Exception as exc:
        line = start_errors.describe(exc, conf)
        if line is None:
            raise
        print('berth-manage: %s' % line, file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
