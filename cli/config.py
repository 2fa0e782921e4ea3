"""Building a process's configuration object (never the global CONF object).

The assembly itself is :mod:`common.conf.builder`, shared with the WSGI
entry points and the tests; this module keeps the commands' spelling.
"""

from collections.abc import Sequence
import sys
from typing import Any

from oslo_config import cfg

from cli import config_spelling
from common.conf import builder


def make_conf(argv, description=None, cli_opts=(), default_config_files=None):
    """A fresh ConfigOpts with berth's options registered and ``argv`` parsed."""
    return builder.build(argv, config_files=default_config_files, cli_opts=cli_opts,
                         description=description)


def make_conf_or_exit(prog: str, argv: Sequence[str], **kwargs: Any) -> cfg.ConfigOpts:
    """:func:`make_conf`, or one line on stderr and exit 2 for a configuration mistake.

    A missing, unreadable or malformed ``--config-file`` (oslo.config names
    the file and the line), an unknown command-line option or a bad value,
    an option in a file that nothing reads (cli.config_spelling): the
    operator gets ``<prog>: <what is wrong>``, not a traceback.
    """
    try:
        conf = make_conf(argv, **kwargs)
    except cfg.Error as exc:
        print('%s: %s' % (prog, str(exc).strip().replace('\n', ' ')), file=sys.stderr)
        raise SystemExit(2) from None
    config_spelling.check_or_exit(prog, conf)
    return conf


setup_logging = builder.setup_logging
DEFAULT_CONFIG_FILE = builder.DEFAULT_CONFIG_FILE


def command_group(subparsers: Any, name: str, help: str) -> Any:
    """``berth-manage <name> <action>``: the group's parser for its actions (one required)."""
    group = subparsers.add_parser(name, help=help)
    actions = group.add_subparsers(dest='action')
    actions.required = True
    return actions
