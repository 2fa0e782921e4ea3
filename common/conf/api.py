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
    cfg.BoolOpt('project_admin_can_manage_own_nodes', default=True,
                help='Let a project-scoped caller passing '
                     'baremetal:node:create:self_owned_node (by default any '
                     'admin or service role) create nodes, which are then owned '
                     'by its project (another owner is a 400), and one passing '
                     'baremetal:node:delete:self_owned_node (by default an admin '
                     'of the owning project) delete the nodes its project owns, '
                     'as Ironic does. False: only baremetal:node:create and '
                     'baremetal:node:delete apply (system-scoped admins).'),
    cfg.FloatOpt('request_header_timeout', default=30.0, min=0.1,
                 help='Seconds the built-in HTTP server (berth serve, '
                      'berth-api) gives a client to send the request line '
                      'and all headers of one request, counted from its '
                      'first byte, however the client spaces its bytes. A '
                      'client that has not finished by then gets 408 Request '
                      'Timeout and the connection is closed, so slow clients '
                      'cannot hold the server\'s threads. Every single read '
                      'is bounded by 10 seconds besides. server = granian '
                      'uses it as granian\'s header read timeout; gunicorn '
                      'does not use it.'),
    cfg.FloatOpt('request_body_timeout', default=60.0, min=0.1,
                 help='Seconds the built-in HTTP server gives a client to send '
                      'the whole request body, counted from the end of the '
                      'headers. A body not complete by then (including one '
                      'shorter than its Content-Length) is answered 408 '
                      'Request Timeout in the API\'s error format and the '
                      'connection is closed. Not applied by server = granian '
                      'or gunicorn: there a client trickling its body holds '
                      'one thread until it finishes.'),
    cfg.IntOpt('workers', min=1, sample_default='<number of CPUs>',
               help='Worker processes of berth-api, as in every OpenStack '
                    'service (default: the number of CPUs). The master '
                    'process opens both ports and loads the candidate index, '
                    'then forks this many workers that share it copy-on-write '
                    'and serve on the same ports; a worker that dies is '
                    'replaced. 1: one process, no fork. berth serve always '
                    'runs one process. In earlier releases this option was '
                    'the number of threads: with [api] threads unset, a value '
                    'above the number of CPUs is still read as threads (one '
                    'process per CPU, a deprecation warning); set threads to '
                    'end that.'),
    cfg.StrOpt('server', default='builtin',
               choices=('builtin', 'gunicorn', 'gunicorn-gthread', 'granian'),
               help='The HTTP server berth-api runs. builtin: berth\'s own '
                    'server and pre-fork master. gunicorn: gunicorn\'s '
                    'arbiter with preload_app (the candidate index loaded '
                    'once, shared copy-on-write by [api] workers processes) '
                    'and its asyncio ASGI worker, berth\'s WSGI apps run in '
                    'a pool of [api] threads threads, both APIs on their '
                    'ports; a connection still sending its headers holds '
                    'no thread. gunicorn-gthread: the same with gunicorn\'s '
                    'gthread worker of [api] threads threads (each '
                    'connection reading headers holds one). SIGTERM drains, '
                    'SIGHUP reloads the mutable options. granian: one '
                    'granian (Rust/hyper, native WSGI) server per API, '
                    'forked from a parent that loaded the candidate index '
                    'once, each with [api] workers processes of [api] '
                    'threads blocking threads (so twice as many processes '
                    'as builtin); a connection sending its headers holds no '
                    'thread; SIGTERM drains, SIGHUP re-reads the mutable '
                    'options and replaces the workers one at a time. berth '
                    'serve always uses builtin.'),
    cfg.IntOpt('threads', min=1, sample_default='16',
               help='Threads serving requests in each API process (berth-api '
                    'worker, berth serve). Default 16.'),
    cfg.FloatOpt('allocation_wait', default=0.0, min=0,
                 help='Seconds POST /v1/allocations waits for the conductor to '
                      'reserve a node before it answers, for every caller. 0 '
                      '(the default) answers at once with the allocation '
                      '"allocating", as Ironic does, and the client polls. '
                      'Above 0 the answer (201) usually shows the allocation '
                      'active or in error already; a conductor that has not '
                      'finished by then is not an error: the answer shows it '
                      'allocating and the conductor finishes it. A caller '
                      'that sends the Berth-Allocation-Wait header chooses '
                      'its own wait instead (see allocation_wait_max).'),
    cfg.FloatOpt('allocation_wait_max', default=30.0, min=0,
                 help='The longest wait, in seconds, a caller may ask POST '
                      '/v1/allocations for with the Berth-Allocation-Wait '
                      'header (a number of seconds; a larger value is cut to '
                      'this one). 0 lets no caller wait: the header then '
                      'means no wait.'),
    cfg.URIOpt('public_endpoint', schemes=['http', 'https'],
               help='Base URL clients reach the API at, e.g. '
                    '"https://cloud.example.com:6385" (behind a load balancer '
                    'or a path prefix; include the prefix). When set, the '
                    'links of /v1 answers and the version documents start '
                    'with it. When unset and [oslo_middleware] '
                    'enable_proxy_headers_parsing = true, they are built from '
                    'a trusted proxy\'s X-Forwarded-* / Forwarded headers '
                    '(scheme, host, prefix; without a forwarded host, the '
                    'Host the proxy sent). Otherwise they use the address the '
                    'server answered on (its local socket address) and the '
                    'request\'s scheme and mount path; a client\'s Host '
                    'header alone is never used.'),
    cfg.StrOpt('placement_prefix', default='/placement',
               help='Path prefix the Placement API is also served under, as '
                    'devstack-style catalogs publish it '
                    '("http://host/placement"): "GET /placement/resource_'
                    'providers" is "GET /resource_providers". The unprefixed '
                    'paths are always served. Empty: no prefix.'),
]


GROUP = group.OptionGroup(
    'api', 'REST API options', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
