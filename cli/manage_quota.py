"""``berth-manage quota set|show|delete``: quota limits, straight on the database."""

import json
import sys

from cli import config
from common import context as berth_context
from common import exception
from objects import database
from objects.placement import quota as quota_obj
from objects.placement import quota_keystone


def _with_ctx(conf, fn):
    db = database.open_database(conf)
    try:
        return fn(berth_context.admin_context(db))
    finally:
        db.dispose()


def _parse_pairs(pairs, what):
    """``NAME=N`` arguments -> {NAME: N}; a non-integer N is an InvalidQuota."""
    out = {}
    for pair in pairs or ():
        name, sep, value = pair.partition('=')
        if not sep or not name:
            raise exception.InvalidQuota(reason='expected %s=N, got %r' % (what, pair))
        try:
            out[name] = int(value)
        except ValueError:
            raise exception.InvalidQuota(
                reason='%s: the limit must be a non-negative integer, got %r'
                       % (name, value))
    return out


def _print(ctx, project_id, user_id, conf):
    body = {'project_id': project_id, 'user_id': user_id}
    body.update(_show_body(ctx, project_id, user_id, conf))
    body['enforced'] = conf.quota.enforce
    print(json.dumps(body, indent=2, sort_keys=True))


def _show_body(ctx, project_id, user_id, conf):
    source = quota_keystone.source_for(conf)
    views = ('cores',) if source is not quota_obj.TABLE else ()
    return quota_obj.show(ctx, project_id, user_id, source=source, views=views)


def _keystone_refusal(conf, action):
    """The refusal of a write while limits come from Keystone, or None."""
    if conf.quota.limits_source != 'keystone':
        return None
    print('berth-manage quota %s: %s' % (action, exception.QuotaLimitsReadOnly().message))
    return 1


def _set(conf):
    args = conf.category
    refused = _keystone_refusal(conf, 'set')
    if refused:
        return refused
    try:
        limits = quota_obj.Limits(resources=_parse_pairs(args.resource, 'CLASS'),
                                  consumers=_parse_pairs(args.consumers, 'TYPE'))

        def run(ctx):
            quota_obj.set_limits(ctx, args.project_id, limits, args.user_id)
            _print(ctx, args.project_id, args.user_id, conf)
            if not conf.quota.enforce:
                print('berth-manage quota set: warning: %s' % quota_obj.NOT_ENFORCED,
                      file=sys.stderr)
        _with_ctx(conf, run)
    except exception.InvalidQuota as exc:
        print('berth-manage quota set: %s' % exc.message)
        return 1
    return 0


def _show(conf):
    args = conf.category
    try:
        _with_ctx(conf, lambda ctx: _print(ctx, args.project_id, args.user_id, conf))
    except exception.QuotaLimitsUnavailable as exc:
        print('berth-manage quota show: %s' % exc.message)
        return 1
    return 0


def _delete(conf):
    args = conf.category
    refused = _keystone_refusal(conf, 'delete')
    if refused:
        return refused
    removed = _with_ctx(conf, lambda ctx: quota_obj.delete_limits(
        ctx, args.project_id, args.user_id))
    print('Removed %d limit(s).' % removed)
    return 0


def add_quota_commands(subparsers):
    """The ``quota`` command group."""
    sub = config.command_group(subparsers, 'quota', 'quota limits of projects and users')
    for name, func, helptext in (
            ('set', _set, 'replace the limits of a project (or one user of it)'),
            ('show', _show, 'show the limits with the usage counted beside them'),
            ('delete', _delete, 'remove the limits of a project (or one user)')):
        cmd = sub.add_parser(name, help=helptext)
        cmd.add_argument('project_id')
        cmd.add_argument('--user', dest='user_id', default=None,
                         help='the limits of this user inside the project')
        if name == 'set':
            cmd.add_argument('--resource', action='append', metavar='CLASS=N',
                             help='limit the units of a resource class (repeatable)')
            cmd.add_argument('--consumers', action='append', metavar='TYPE=N',
                             help='limit the consumers of a consumer type, e.g. '
                                  'INSTANCE=10 (repeatable)')
        cmd.set_defaults(func=func)
