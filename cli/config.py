"""Building a process's configuration object (never the global CONF object).

The assembly itself is :mod:`common.conf.builder`, shared with the WSGI
entry points and the tests; this module keeps the commands' spelling.
"""

from common.conf import builder


def make_conf(argv, description=None, cli_opts=(), default_config_files=None):
    """A fresh ConfigOpts with berth's options registered and ``argv`` parsed."""
    return builder.build(argv, config_files=default_config_files, cli_opts=cli_opts,
                         description=description)


setup_logging = builder.setup_logging
DEFAULT_CONFIG_FILE = builder.DEFAULT_CONFIG_FILE
