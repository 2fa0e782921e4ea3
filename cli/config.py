"""Building a process's configuration object (never the global CONF object)."""

import os

from oslo_config import cfg
from oslo_log import log as oslo_log

from common import conf as berth_conf
from common import context as berth_context
from common import version


def make_conf(argv, description=None, cli_opts=(), default_config_files=None):
    """A fresh ConfigOpts with berth's options registered and ``argv`` parsed."""
    conf = cfg.ConfigOpts()
    berth_conf.register_opts(conf)
    oslo_log.register_options(conf)
    conf.register_cli_opts(list(cli_opts))
    if default_config_files is None:
        default_config_files = [p for p in ('/etc/berth/berth.conf',)
                                if os.path.exists(p)]
    conf(argv, project='berth', description=description,
         version=version.version_string(),   # --version
         default_config_files=default_config_files)
    return conf


def setup_logging(conf):
    berth_context.set_log_defaults(conf)
    oslo_log.setup(conf, 'berth')
