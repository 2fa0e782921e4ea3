"""Options of the ``[quota]`` group: limits counted from allocations and consumers."""

from oslo_config import cfg

from common.conf import group

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


GROUP = group.OptionGroup(
    'quota', 'Quota options', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
