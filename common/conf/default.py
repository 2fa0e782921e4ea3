"""Options of the ``[DEFAULT]`` group."""

import socket

from oslo_config import cfg

opts = [
    cfg.StrOpt('host', default=socket.gethostname(),
               sample_default='<hostname>',
               help='Name of this host. A conductor is known in the hash ring and '
                    'in conductor_affinity by this name; it must be unique per '
                    'conductor process.'),
    cfg.StrOpt('state_path', default='./berth-data',
               help='Directory for berth\'s local state: the embedded SQLite '
                    'database and the file-based coordination backend.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return [('DEFAULT', opts)]
