"""The one place a process's configuration object is assembled.

Every process (the console commands, the WSGI entry points, the tests)
builds a fresh ``cfg.ConfigOpts`` here, never the global ``CONF``: berth's
option groups and oslo.log's options registered, ``argv`` and the config
files parsed, then any overrides applied.
"""

import os

from oslo_config import cfg
from oslo_log import log as oslo_log

from common import conf as berth_conf
from common import context as berth_context
from common import version

DEFAULT_CONFIG_FILE = '/etc/berth/berth.conf'


def build(argv=(), *, config_files=None, cli_opts=(), description=None,
          overrides=None) -> cfg.ConfigOpts:
    """A fresh ConfigOpts with every berth option registered and parsed.

    :param argv: command-line arguments (without the program name).
    :param config_files: files to read when ``--config-file`` is not given;
        None means ``/etc/berth/berth.conf`` if it exists.  Missing files in
        the list are left out.
    :param cli_opts: extra command-line options of the calling command.
    :param overrides: ``{'group.name': value}`` (``'name'`` for DEFAULT)
        applied after parsing, as ``set_override`` does.
    """
    conf = cfg.ConfigOpts()
    berth_conf.register_opts(conf)
    oslo_log.register_options(conf)
    conf.register_cli_opts(list(cli_opts))
    if config_files is None:
        config_files = [DEFAULT_CONFIG_FILE]
    conf(list(argv), project='berth', description=description,
         version=version.version_string(),   # --version
         default_config_files=[f for f in config_files if os.path.exists(f)])
    for key, value in (overrides or {}).items():
        group, _, name = key.rpartition('.')
        conf.set_override(name, value, group=group or None)
    return conf


def setup_logging(conf: cfg.ConfigOpts) -> None:
    """oslo.log set up for ``conf`` with berth's context-aware defaults."""
    berth_context.set_log_defaults(conf)
    oslo_log.setup(conf, 'berth')
