"""Options of the ``[coordination]`` group: tooz membership and the hash ring."""

from oslo_config import cfg

from common.conf import group

opts = [
    cfg.StrOpt('backend_url', secret=True,
               sample_default='file://$state_path/coordination',
               help='tooz backend the conductors join and the API reads, '
                    'e.g. etcd3+http://127.0.0.1:2379?timeout=10 or '
                    'redis://127.0.0.1:6379?timeout=10. The ``timeout`` '
                    'parameter is how long a dead conductor stays in the '
                    'ring. tooz\'s etcd driver talks to one address: for an '
                    'etcd cluster, name a local ``etcd gateway`` over its '
                    'members (doc/source/deployment.md). Unset: a file backend in '
                    '[DEFAULT] state_path, which only works when every '
                    'process runs on one host.'),
    cfg.FloatOpt('watch_interval', default=1.0, min=0.05,
                 help='Seconds between two polls of the group for joined '
                      'and departed conductors.'),
    cfg.FloatOpt('ring_refresh_interval', default=5.0, min=0.1,
                 help='Seconds between two full rebuilds of the hash ring from '
                      'the group members (a safety net for missed events). A '
                      'stopping conductor keeps answering this long after it '
                      'left the group, so peers with an older ring are not '
                      'dropped.'),
    cfg.IntOpt('hash_partitions', default=256, min=1,
               help='Points per conductor on the hash ring; more points '
                    'spread work more evenly.'),
]


GROUP = group.OptionGroup(
    'coordination', 'Conductor membership (tooz)', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
