"""berth's configuration options: one module per option group.

Nothing is registered at import time.  A process builds its own
``cfg.ConfigOpts``, calls :func:`register_opts` on it and passes it down.
"""

from common.conf import (
    allocation,
    api,
    compute,
    conductor,
    coordination,
    database,
    default,
    metrics,
    node,
    notifications,
    oslo_limit,
    placement,
    quota,
    rpc,
    scheduler,
    upgrade_levels,
)

# Every module here that defines options; common.conf.opts walks this list.
MODULES = [default, api, database, placement, conductor, coordination, upgrade_levels,
           allocation, compute, scheduler, quota, oslo_limit, metrics, notifications,
           rpc, node]


def register_opts(conf):
    for module in MODULES:
        module.register_opts(conf)
    return conf
