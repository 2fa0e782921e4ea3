"""Options of the ``[node]`` group: bare-metal nodes' free-form JSON fields."""

from oslo_config import cfg

from common.conf import group

GROUP_NAME = 'node'


opts = [
    cfg.IntOpt('max_json_bytes', default=65536, min=0,
               help='The most each of a node\'s free-form JSON fields '
                    '(``extra``, ``properties``, ``instance_info``, '
                    '``driver_info``) may take, in bytes of JSON, on POST and '
                    'PATCH /v1/nodes and on the RPC ``update_node``, over REST '
                    'and RPC alike (400 ``<field> is larger than N bytes``); '
                    '0 leaves only the request body limit.'),
]


GROUP = group.OptionGroup(
    GROUP_NAME, 'Bare-metal nodes', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
