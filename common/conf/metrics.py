"""Options of the ``[metrics]`` group: Prometheus exposition at ``/metrics``."""

from oslo_config import cfg

from common.conf import group

GROUP_NAME = 'metrics'


opts = [
    cfg.StrOpt('api_access', default='loopback', choices=[
        ('open', 'Anyone who reaches the API port may read /metrics, without '
                 'a token (the usual Prometheus scrape; restrict it in the '
                 'network or the load balancer).'),
        ('loopback', 'Only clients on the loopback interface (a scraper or '
                     'exporter on the same host) that talk to the API directly; '
                     'others, and requests carrying X-Forwarded-For or '
                     'Forwarded (a reverse proxy), get 403.'),
        ('disabled', 'The API answers 404 at /metrics.')],
        help='Who may read /metrics on the API ports (berth serve and '
             'berth-api expose it on the Placement port only: one registry '
             'per process; their bare-metal port answers 404 with a pointer). '
             'The answer never needs a token: Prometheus scrapes without one.'),
    cfg.HostAddressOpt('conductor_host', default='127.0.0.1',
                       help='Address the metrics listener of berth-conductor '
                            'binds to.'),
    cfg.PortOpt('conductor_port', default=None,
                help='Port of the metrics listener of berth-conductor '
                     '(http://<conductor_host>:<port>/metrics). Unset: no '
                     'listener. 0: a free port, printed and logged at start. '
                     'The conductors of "berth serve" share the API process '
                     'and its /metrics instead.'),
    cfg.IntOpt('conductor_port_count', default=1, min=1, max=1000,
               help='How many consecutive ports from ``conductor_port`` a '
                    'conductor may take: the first free one. Conductors on '
                    'one host that share a configuration file then each get '
                    'a port of conductor_port .. conductor_port + count - 1, '
                    'a range the Prometheus scrape configuration can name in '
                    'advance; a conductor that finds every port taken does '
                    'not start.'),
    cfg.IntOpt('fullest_providers', default=5, min=0, max=100,
               help='How many providers per resource class /metrics labels '
                    'one by one (berth_provider_resource_* gauges): the '
                    'fullest ones (used / capacity; ties by provider uuid). '
                    'Bounds the number of series to this many per class '
                    'whatever the size of the cloud; 0: no per-provider '
                    'gauges.'),
]


GROUP = group.OptionGroup(
    GROUP_NAME, 'Prometheus metrics', opts,
    help='Every berth process exposes Prometheus metrics at '
         '/metrics. Under gunicorn (several worker processes) '
         'set the PROMETHEUS_MULTIPROC_DIR environment '
         'variable to an empty directory, the same for every '
         'worker, and empty it on each start.')
register_opts = GROUP.register
list_opts = GROUP.list_opts
