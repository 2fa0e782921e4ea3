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
    # Ironic's [DEFAULT] options of the same names and defaults
    cfg.BoolOpt('rbac_service_role_elevated_access', default=False,
                help='Give the ``service`` role in the project named by '
                     '``rbac_service_project_name`` cross-project bare-metal '
                     'access under the default policy (Ironic\'s '
                     '``service_role`` rule: a system member and reader on every '
                     'node and allocation, whoever owns it). Off: a service-role '
                     'token works on its own project\'s nodes only. Over RPC the '
                     'rule never matches a context signed with an ``[rpc] '
                     'service_keys`` key: only a Keystone-checked caller '
                     'forwarded by berth-api can name the service project.'),
    cfg.StrOpt('rbac_service_project_name', default='service',
               help='The name of the project whose ``service`` role members get '
                    'the elevated access of ``rbac_service_role_elevated_access`` '
                    '(matched by project name, as Ironic does). Empty: nobody.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return [('DEFAULT', opts)]
