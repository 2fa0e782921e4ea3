"""The ``[database]`` group is oslo.db's; berth sets its defaults and adds one option.

oslo.db's options are documented by the ``oslo.db`` namespace of the
configuration generator; berth's own is below.
"""

from oslo_config import cfg
from oslo_db import options as db_options

opts = [
    cfg.FloatOpt('ping_idle_after', default=1.0, min=0,
                 help='Seconds a pooled PostgreSQL or MySQL connection may sit '
                      'idle before it is checked with a ping when it is next '
                      'used (0: ping at every use, oslo.db\'s behaviour). A '
                      'busy process then skips the round trip; a server that '
                      'restarted inside the window fails one statement with '
                      '503 and the pool reconnects.'),
]


def register_opts(conf):
    # connection stays None here: db.api falls back to a SQLite file in
    # [DEFAULT] state_path, the embedded default.
    db_options.set_defaults(conf)
    conf.register_opts(opts, group='database')


def list_opts():
    return [('database', opts)]
