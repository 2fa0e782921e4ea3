"""``berth serve``: the embedded all-in-one server, what a newcomer runs first.

API (Placement and bare metal) and conductors in one process, a SQLite file
in the data dir, the in-process message transport and a file-based tooz
backend.  Stops cleanly on SIGTERM or SIGINT in every phase; SIGHUP reloads
the mutable options (cli/lifecycle.py).
"""

import argparse
import sys

from oslo_config import cfg

from api.common import startup
from cli import config, deployment, lifecycle, security, stacks
from common import heap, rpc_keys, version

USAGE = ('berth serve [--config-file F] [--data-dir DIR] [--host 127.0.0.1] '
         '[--placement-port 8778] [--baremetal-port 6385] [--allow-insecure-noauth]')


def _parse(argv):
    parser = argparse.ArgumentParser(prog='berth', description=__doc__.splitlines()[0])
    parser.add_argument('--version', action='version', version=version.version_string())
    sub = parser.add_subparsers(dest='command', required=True)
    serve = sub.add_parser('serve', help='run berth on its embedded defaults')
    serve.add_argument('--config-file', action='append', default=[])
    serve.add_argument('--data-dir', default=None,
                       help='where the SQLite file and coordination files live '
                            '(default: [DEFAULT] state_path, ./berth-data)')
    serve.add_argument('--host', default=None, help='address to listen on (127.0.0.1)')
    serve.add_argument('--placement-port', type=int, default=None)
    serve.add_argument('--baremetal-port', type=int, default=None)
    serve.add_argument('--allow-insecure-noauth', action='store_true', default=None,
                       help='listen on a non-loopback --host although auth is '
                            'noauth2 (anyone reaching the port is an admin)')
    return parser.parse_args(argv)


def main(argv=None):
    heap.cap_malloc_arenas()            # before any server thread starts
    args = _parse(sys.argv[1:] if argv is None else argv)
    oslo_argv = []
    for path in args.config_file:
        oslo_argv += ['--config-file', path]
    conf = config.make_conf_or_exit('berth', oslo_argv, default_config_files=[])
    # the embedded defaults, unless a config file said otherwise
    if conf.api.auth_strategy == 'keystone' and not args.config_file:
        conf.set_override('auth_strategy', 'noauth2', group='api')
    if args.host is not None and startup.bad_host(args.host):
        print('berth: --host: %s' % startup.bad_host(args.host), file=sys.stderr)
        return 2
    for value, name, group in ((args.data_dir, 'state_path', None),
                               (args.host, 'host', 'api'),
                               (args.placement_port, 'placement_port', 'api'),
                               (args.baremetal_port, 'baremetal_port', 'api'),
                               (args.allow_insecure_noauth, 'allow_insecure_noauth',
                                'api')):
        if value is not None:
            try:
                conf.set_override(name, value, group=group)
            except ValueError as exc:
                print('berth: --%s: %s' % (name.replace('_', '-'), exc), file=sys.stderr)
                return 2
    refusal = (security.startup_error(conf)
               or rpc_keys.startup_error(conf, deployment.transport_url(conf)))
    if refusal:
        print('berth: %s' % refusal, file=sys.stderr)
        return 2
    config.setup_logging(conf)
    security.warn_if_insecure(conf)
    life = lifecycle.Lifecycle('berth', conf)
    stack = deployment.Embedded(conf)

    def start(life):
        stack.start(on_phase=life.set_phase)
        print(stack.banner(), flush=True)

    # the embedded conductors stop one after another, each within its timeout
    return lifecycle.leave(life.run(
        start, stack.stop, conf.conductor.graceful_shutdown_timeout
        * conf.conductor.embedded_conductors + stacks.STOP_MARGIN,
        expected_errors=(OSError, cfg.Error)))

if __name__ == '__main__':
    sys.exit(main())
