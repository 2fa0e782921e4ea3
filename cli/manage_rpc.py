"""``berth-manage rpc generate-key``: a fresh ``[rpc] signing_key`` and where it goes.

Every berth process that uses a message broker needs the same key
(common.rpc_keys); this prints a new random one (``secrets``, 64 URL-safe
characters) with the lines to paste into the configuration of each of them.
It reads no database and contacts nothing.
"""

from cli import config
from common import rpc_keys


def _generate_key(conf):
    key = rpc_keys.generate()
    print('# paste into the configuration file of EVERY berth process (berth-api,\n'
          '# berth-conductor, berth-manage), the same key in each, readable by\n'
          '# berth only; restart them together\n'
          '[rpc]\n'
          'signing_key = %s' % key)
    return 0


def add_rpc_commands(subparsers):
    """The ``rpc`` command group."""
    sub = config.command_group(subparsers, 'rpc', 'RPC message signing')
    sub.add_parser('generate-key', help='print a new random [rpc] signing_key and the '
                                        'configuration lines to paste'
                   ).set_defaults(func=_generate_key)
