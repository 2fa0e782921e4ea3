"""berth's configuration options: one module per option group.

Nothing is registered at import time.  A process builds its own
``cfg.ConfigOpts``, calls :func:`register_opts` on it and passes it down.
"""

from common.conf import allocation
from common.conf import api
from common.conf import compute
from common.conf import conductor
from common.conf import coordination
from common.conf import database
from common.conf import default
from common.conf import metrics
from common.conf import placement
from common.conf import quota
from common.conf import scheduler
from common.conf import upgrade_levels

# Every module here that defines options; common.conf.opts walks this list.
MODULES = [default, api, database, placement, conductor, coordination, upgrade_levels,
           allocation, compute, scheduler, quota, metrics]


def register_opts(conf):
    for module in MODULES:
        module.register_opts(conf)
    return conf
