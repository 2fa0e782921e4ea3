"""Options of the ``[upgrade_levels]`` group: RPC version caps for rolling upgrades."""

from oslo_config import cfg

from common.conf import group

opts = [
    cfg.StrOpt('conductor',
               help='Highest conductor RPC API version the API and conductors '
                    'send, e.g. "1.0", while older conductors still run. '
                    'Unset: the version of this release.'),
]


GROUP = group.OptionGroup(
    'upgrade_levels', 'RPC version caps', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
