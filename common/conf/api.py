"""Options of the ``[api]`` group: the REST front-ends."""

from oslo_config import cfg

from common.conf import group

opts = [
    cfg.StrOpt('auth_strategy', default='keystone', choices=[
        ('keystone', 'Validate tokens with keystonemiddleware (install the '
                     '"keystone" extra).'),
        ('noauth2', 'Trust identity headers; for the embedded server and tests '
                    'only.')],
        help='How incoming requests are authenticated.'),
    cfg.HostAddressOpt('host', default='127.0.0.1',
                       help='Address the API servers listen on.'),
    cfg.BoolOpt('allow_insecure_noauth', default=False,
                help='Let the API servers listen on a non-loopback address '
                     'with auth_strategy = noauth2. noauth2 takes the caller\'s '
                     'identity from the X-Auth-Token header, so anyone who can '
                     'reach the port is an administrator; only for a trusted, '
                     'isolated network.'),
    cfg.PortOpt('placement_port', default=8778,
                help='Port of the Placement-compatible API.'),
    cfg.PortOpt('baremetal_port', default=6385,
                help='Port of the bare-metal (Ironic /v1) API.'),
    cfg.IntOpt('max_request_body_size', default=1048576, min=1024,
               help='Largest request body accepted, in bytes; larger bodies '
                    'are answered 413.'),
    cfg.IntOpt('workers', default=16, min=1,
               help='Threads serving requests in the embedded HTTP server.'),
    cfg.FloatOpt('allocation_wait', default=3.0, min=0,
                 help='Seconds POST /v1/allocations waits for the conductor to '
                      'reserve a node, so that the answer (201) usually shows '
                      'the allocation active or in error and clients need not '
                      'poll. A conductor that has not finished by then is not '
                      'an error: the answer then shows it allocating, as '
                      'Ironic\'s does, and the conductor finishes it. 0 hands '
                      'the work over without waiting (a cast).'),
]


GROUP = group.OptionGroup(
    'api', 'REST API options', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
