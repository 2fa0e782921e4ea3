"""``berth-conductor``: one conductor process (RPC server, ring member, periodic tasks).

With ``[metrics] conductor_port`` set it also serves Prometheus metrics at
``http://<[metrics] conductor_host>:<port>/metrics``.  SIGTERM/SIGINT stop it
in every phase, SIGHUP reloads the mutable options (cli/lifecycle.py).
"""

import sys
from typing import Any

from cli import config, lifecycle, stacks
from common import metrics, rpc, rpc_keys
from conductor import service as conductor_service
from objects import database


def main(argv=None):
    conf = config.make_conf_or_exit('berth-conductor',
                                    sys.argv[1:] if argv is None else argv,
                                    description='berth conductor')
    refusal = rpc_keys.startup_error(conf)
    if refusal:             # before any log line or connection: one line
        print('berth-conductor: %s' % refusal, file=sys.stderr)
        return 2
    config.setup_logging(conf)
    life = lifecycle.Lifecycle('berth-conductor', conf)
    parts: dict[str, Any] = {}

    def start(life):
        life.set_phase('opening the database')
        parts['db'] = database.open_database(conf)
        rpc.slow_amqp_polls()       # the listener hands a message on whatever the timeout
        service = parts['conductor'] = conductor_service.ConductorService(
            conf, conf.host, parts['db'])
        service.start(on_phase=life.set_phase)
        print('berth-conductor: %s serving' % conf.host, flush=True)
        if conf.metrics.conductor_port is not None:
            listener = metrics.start_listener_in_range(
                conf.metrics.conductor_host, conf.metrics.conductor_port,
                conf.metrics.conductor_port_count)
            print('berth-conductor: metrics on http://%s:%d/metrics'
                  % (conf.metrics.conductor_host, listener.server_port), flush=True)

    def stop():
        print('berth-conductor: %s stopping' % conf.host, flush=True)
        for name, method in (('conductor', 'stop'), ('db', 'dispose')):
            if name in parts:      # a failed start may have got only part of the way
                getattr(parts[name], method)()

    bound = (conf.coordination.ring_refresh_interval
             + conf.conductor.graceful_shutdown_timeout + stacks.STOP_MARGIN)
    status = life.run(start, stop, bound)
    if getattr(parts.get('conductor'), 'left_behind', False):
        # a stop during a broker outage left a reply waiting for the broker:
        # the interpreter's exit would wait for it (doc/source/operations.md)
        return lifecycle.leave(status)
    return status


if __name__ == '__main__':
    sys.exit(main())
