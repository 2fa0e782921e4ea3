"""Options of the ``[rpc]`` group: who may send the conductors RPC messages.

The trust model is doc/source/rpc.md's "Authentication": berth's own processes sign
every message with ``signing_key``; another service given access signs with
its own key from ``service_keys`` and acts with at most its
``service_roles``; the conductors verify before acting (common.rpc_trust).
"""

from oslo_config import cfg

from common.conf import group

opts = [
    cfg.StrOpt('signing_key', secret=True,
               help='The key berth\'s own processes (berth-api, the '
                    'conductors, berth-manage) sign and verify every RPC '
                    'message with (HMAC-SHA256 over the method, its '
                    'arguments, the context, the target conductor, a '
                    'timestamp and a nonce); at least 32 characters, the '
                    'same in every berth process, readable by berth only; '
                    'make one with "berth-manage rpc generate-key". A '
                    'message it does not verify is refused. A key shorter '
                    'than 32 characters, or one printed in berth\'s '
                    'documentation, is refused at start. Unset: with the '
                    'in-process transport of ``berth serve`` a key of the '
                    'process\'s own (trust mode "embedded"); with a message '
                    'broker the process refuses to start, unless '
                    '``allow_unsigned`` is set (doc/source/rpc.md, '
                    '"Authentication").'),
    cfg.BoolOpt('allow_unsigned', default=False,
                help='Run with a message broker and no ``signing_key``: '
                     'messages are not signed and the conductors obey any '
                     'context a message on the bus claims, so anyone holding '
                     'credentials for the broker (any of its users on the '
                     'vhost) can act as any user, administrators included '
                     '(trust mode "unsigned", a WARNING at start). Only for '
                     'an isolated broker that berth alone uses; without it '
                     'a broker deployment without a key refuses to start.'),
    cfg.StrOpt('signing_key_id', default='berth',
               help='The name this process signs its messages as. berth\'s '
                    'own processes: ``berth`` (``signing_key`` is then '
                    'berth\'s key). Another service using the published '
                    'client (conductor.rpcapi): its name in the conductors\' '
                    '``service_keys``, with ``signing_key`` its key there.'),
    cfg.DictOpt('service_keys', default={}, secret=True,
                help='Conductors only: ``name:key`` for every other service '
                     'allowed to call the conductors (each key at least 32 '
                     'characters; the service sets ``signing_key_id = name`` '
                     'and ``signing_key = key``). Its messages act with at '
                     'most the roles ``service_roles`` gives it, never '
                     'system scope.'),
    cfg.DictOpt('service_roles', default={},
                help='Conductors only: ``name:role+role`` the roles each '
                     'service of ``service_keys`` may act with (the context '
                     'it sends keeps only these); a service not named here '
                     'acts with no role (``ping`` only).'),
    cfg.IntOpt('signature_ttl', default=60, min=1,
               help='Seconds a signed message is accepted after (and before: '
                    'clock skew) its timestamp; within it each message is '
                    'accepted once (its nonce is remembered), after it is '
                    'refused as expired.'),
    cfg.FloatOpt('deadline_grace', default=1.0, min=0, max=60,
                 help='Conductors only: seconds added to the deadline every '
                      'RPC message carries (its caller\'s RPC timeout, RPC '
                      '1.10) before the conductor drops the message rather '
                      'than write it. It absorbs the clock difference between '
                      'the API hosts and the conductor hosts, which must keep '
                      'their clocks with NTP (a skew of milliseconds); raise '
                      'it only when the clocks cannot be kept closer.'),
]


GROUP = group.OptionGroup('rpc', 'Authentication of RPC callers', opts)
register_opts = GROUP.register
list_opts = GROUP.list_opts
