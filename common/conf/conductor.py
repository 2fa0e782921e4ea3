"""Options of the ``[conductor]`` group: the RPC servers that do the racing writes."""

from oslo_config import cfg

from common.conf import group

opts = [
    cfg.IntOpt('workers', default=32, min=1,
               help='Requests one conductor works on at the same time. A '
                    'request beyond this bound waits up to '
                    '``admission_wait`` for a free worker, then is refused '
                    '(the API answers 503 berth.service_unavailable) instead '
                    'of waiting in an unbounded queue.'),
    cfg.FloatOpt('admission_wait', default=1.0, min=0, max=30,
                 help='Seconds an RPC call that finds every worker busy waits '
                      'for one before it is refused with 503 ("no free '
                      'worker"). A burst of calls shorter than this queues '
                      'instead of failing (e.g. the first, slow calls of '
                      'freshly started API workers); at most 8 calls wait at '
                      'a time, the rest wait for those. 0: refuse at once.'),
    cfg.IntOpt('rpc_timeout', default=None, min=1,
               help='Seconds the API waits for a conductor to answer an RPC '
                    'call before answering 503. Unset (the default): '
                    'oslo.messaging\'s ``[DEFAULT] rpc_response_timeout`` '
                    '(60 unless set), so the one timeout an operator knows '
                    'from other OpenStack services applies. Set: this value, '
                    'for berth\'s calls only; ``berth-manage status`` bounds '
                    'its ping by the same value.'),
    cfg.IntOpt('rpc_send_retries', default=2, min=0,
               help='How often the API retries connecting to the message '
                    'broker before a call fails with 503 (0: no retry). '
                    'Keeps requests from hanging while the broker is down.'),
    cfg.FloatOpt('rpc_attempt_timeout', default=2.5, min=0,
                 help='Seconds the API waits for one attempt of a write call '
                      '(RPC 1.8) before it sends the call again with the same '
                      'call id, until ``rpc_timeout`` is used up (then 503). The '
                      'conductor runs a call once per id and answers a replay '
                      'with the first attempt\'s outcome, so a reply lost with '
                      'a RabbitMQ node costs one attempt, not the whole '
                      'timeout. Keep it above the slowest normal call (about '
                      '1 s under load in bench/ha_faults.py) and well below '
                      '``rpc_timeout``. 0: no replay, one attempt of '
                      '``rpc_timeout``.'),
    cfg.FloatOpt('claim_batch_linger', default=0.002, min=0, max=0.1,
                 help='Seconds the API may hold the next coalesced claims call '
                      '(RPC 1.9) to a conductor, after the one before it was '
                      'answered while claims waited, for as many new claims as '
                      'that call answered; the first claim soon after a call of '
                      'several claims left the conductor idle waits as long for '
                      'that call\'s other callers. With one call out per '
                      'conductor the concurrent claims otherwise split into '
                      'halves that take turns: more claims per call is less CPU '
                      'per claim in the API, RabbitMQ, the conductor and the '
                      'database, for at most this much latency, and only while '
                      'claims overlap (a lone caller never waits). 0: no '
                      'waiting. Measured (bench.claims --matrix 1x1,2x3, 2 '
                      'ms): 2x3 3.5-4.3 claims per call and 2.18-2.72 ms of '
                      'server CPU per claim (0: 2.3-2.5 and 3.12-3.53), 1x1 '
                      'p95 24-27 ms (0: 22-26); doc/source/benchmarks.md.'),
    cfg.IntOpt('claim_batch_linger_below', default=0, min=0, max=32,
               help='Linger (``claim_batch_linger``) only after a call that '
                    'carried fewer claims than this; 0 (the default): after '
                    'any call. Merging two small calls saves a call for few '
                    'claims; merging two large ones saves little per claim '
                    'for the same added latency. Measured (bench.claims '
                    '--matrix 1x1,2x3, 2 ms linger, 4): 1x1 p95 as without '
                    'linger, but 2x3 back at ~3 claims per call; see '
                    'doc/source/benchmarks.md.'),
    cfg.StrOpt('claim_routing', default='process', choices=[
                   ('tree', 'each claim to the ring owner of its provider tree'),
                   ('process', 'every coalesced claim of one API process to one '
                               'conductor: the ring owner of that process')],
               help='Which conductor gets the coalesced claims (RPC 1.9) of an '
                    'API process. "process" (the default): all of them to the '
                    'ring owner of the API process (host and pid), one queue '
                    'per process: larger calls and group commits, fewer '
                    'messages and transactions per claim; claims on one tree '
                    'from two API processes may race on two conductors, where '
                    'the provider generation decides and the loser retries. '
                    'Measured (python -m bench.claims --matrix 1x1,2x3, 2 CPUs): '
                    'at 2 API processes x 3 conductors 4.1-5.1 ms of server CPU '
                    'per claim against 7.0-7.6 ms with "tree". "tree": the '
                    'owner of each claim\'s tree, so the writes on one tree '
                    'meet on one conductor; with several API processes and '
                    'conductors the concurrent claims split into one queue per '
                    'process and conductor, and each call carries fewer of '
                    'them. Single claims (no coalescing) always go to the owner '
                    'of their tree.'),
    cfg.IntOpt('call_ledger_size', default=4096, min=1,
               help='Write calls each conductor remembers by call id to '
                    'answer their replays (the oldest are forgotten first).'),
    cfg.IntOpt('call_ledger_ttl', default=300, min=1,
               help='Seconds a conductor remembers a write call by its call '
                    'id; keep it above ``rpc_timeout``, the longest a client '
                    'replays a call.'),
    cfg.IntOpt('graceful_shutdown_timeout', default=60, min=0,
               help='Seconds a stopping conductor waits for the work in '
                    'flight to finish.'),
    cfg.IntOpt('embedded_conductors', default=1, min=1,
               help='Conductors ``berth serve`` runs inside its own process '
                    '(hosts <host>-c0, <host>-c1, ...).'),
    # the conductor registry (Ironic's options of the same names)
    cfg.StrOpt('conductor_group', default='',
               regex=r'^[a-zA-Z0-9_.-]*$',
               help='The conductor group this conductor registers with (shown '
                    'by GET /v1/conductors; letters, digits, "_", "-" and ".", '
                    'stored lower case). berth routes work by its hash ring '
                    'over every live conductor, whatever its group.'),
    cfg.IntOpt('heartbeat_interval', default=10, min=1,
               help='Seconds between two heartbeats of a conductor into the '
                    'conductor registry (the ``conductors`` table).'),
    cfg.IntOpt('heartbeat_timeout', default=60, min=2,
               help='Seconds after its last heartbeat a registered conductor '
                    'is dead (``alive: false`` on GET /v1/conductors, red on '
                    '/status, a warning of ``berth-manage status``). Keep it '
                    'several ``heartbeat_interval`` long. A dead conductor '
                    'stays listed until ``berth-manage conductor forget`` '
                    'removes it.'),
    cfg.StrOpt('allocation_routing', default='process', choices=[
                   ('process', 'every new node allocation of one API process to '
                               'one conductor: the ring owner of that process'),
                   ('allocation', 'each new node allocation to the ring owner of '
                                  'its uuid')],
               help='Which conductor a new node allocation (POST '
                    '/v1/allocations) is handed to: it becomes the '
                    'allocation\'s conductor affinity, its owner. "process" '
                    '(the default): the ring owner of the API process (host '
                    'and pid), so the concurrent creates of one process share '
                    'one queue and one create_allocations call, and the '
                    'allocations per call, messages and transactions per '
                    'allocation stay the same as API processes and conductors '
                    'are added. "allocation": the ring owner of the '
                    'allocation\'s uuid (the routing of earlier releases), '
                    'which spreads one process\'s creates over every '
                    'conductor in smaller calls. Either way a conductor owns '
                    'the allocations whose affinity is its host, and the ring '
                    'owner of an allocation\'s uuid takes it over when its '
                    'conductor leaves.'),
]


GROUP = group.OptionGroup(
    'conductor', 'Conductor options', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
