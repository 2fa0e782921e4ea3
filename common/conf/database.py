"""The ``[database]`` group is oslo.db's; berth only sets its defaults.

The options themselves are documented by the ``oslo.db`` namespace of the
configuration generator.
"""

from oslo_db import options as db_options


def register_opts(conf):
    # connection stays None here: db.api falls back to a SQLite file in
    # [DEFAULT] state_path, the embedded default.
    db_options.set_defaults(conf)


def list_opts():
    return []
