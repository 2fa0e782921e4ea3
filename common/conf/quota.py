"""Options of the ``[quota]`` group: limits counted from allocations and consumers."""

from oslo_config import cfg


def _group():
    return cfg.OptGroup('quota', title='Quota options')


opts = [
    cfg.BoolOpt('enforce', default=False,
                help='When true every allocation write (PUT/POST '
                     '/allocations, POST /claims) is checked against the '
                     'limits of its projects and users in the '
                     'transaction that writes it; a write over a limit is '
                     'refused with 403 berth.quota.exceeded. Limits are set '
                     'with PUT /quotas/{project_id} or "berth-manage quota '
                     'set".'),
]


def register_opts(conf):
    group = _group()
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return [(_group(), opts)]
