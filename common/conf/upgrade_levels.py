"""Options of the ``[upgrade_levels]`` group: RPC version caps for rolling upgrades."""

from oslo_config import cfg


def _group():
    # a new OptGroup per ConfigOpts: register_group() copies it shallowly, so a
    # shared one would share option overrides between ConfigOpts objects
    return cfg.OptGroup('upgrade_levels', title='RPC version caps')


opts = [
    cfg.StrOpt('conductor',
               help='Highest conductor RPC API version the API and conductors '
                    'send, e.g. "1.0", while older conductors still run. '
                    'Unset: the version of this release.'),
]


def register_opts(conf):
    group = _group()
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return [(_group(), opts)]
