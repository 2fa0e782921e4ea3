"""``berth-api``: the REST API servers of a production deployment.

SIGTERM/SIGINT stop it in every phase, SIGHUP reloads the mutable options
(cli/lifecycle.py).
"""

import sys

from api import server as http_server
from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from cli import config, lifecycle, metrics_once, security, stacks
from common import heap, rpc
from conductor import rpcapi
from objects import database


def _baremetal_app(conf, db, conductor):
    """The bare-metal app; its port points /metrics at the Placement port (one registry)."""
    return metrics_once.PointToPlacement(
        baremetal_app.loadapp(conf, db, conductor=conductor), conf)


def main(argv=None):
    heap.cap_malloc_arenas()            # before any server thread starts
    conf = config.make_conf(sys.argv[1:] if argv is None else argv,
                            description='berth API server')
    refusal = security.startup_error(conf)
    if refusal:
        print('berth-api: %s' % refusal, file=sys.stderr)
        return 2
    config.setup_logging(conf)
    security.warn_if_insecure(conf)
    life = lifecycle.Lifecycle('berth-api', conf)
    parts = {'servers': []}

    def start(life):
        life.set_phase('opening the database')
        db = parts['db'] = database.open_database(conf)
        # reads the conductor ring (never joins it) and calls over [DEFAULT] transport_url
        life.set_phase('connecting to the coordination backend')
        rpc.slow_amqp_polls()      # replies are handed on whatever the poll timeout
        conductor = parts['conductor'] = rpcapi.APIConductorClient(conf)
        life.set_phase('starting the HTTP servers')
        for name, factory, port, title in (
                ('placement', placement_app.loadapp, conf.api.placement_port,
                 'Placement API'),
                ('baremetal', _baremetal_app, conf.api.baremetal_port,
                 'Bare metal API')):
            server = http_server.HttpServer(factory(conf, db, conductor=conductor),
                                            conf.api.host, port,
                                            threads=conf.api.workers, name=name,
                                            max_body_size=conf.api.max_request_body_size,
                                            header_timeout=conf.api.request_header_timeout,
                                            body_timeout=conf.api.request_body_timeout)
            host, bound_port = server.start()
            parts['servers'].append(server)
            print('berth-api: %s on http://%s:%d' % (title, host, bound_port), flush=True)

    def stop():
        for server in reversed(parts['servers']):
            server.stop()
        for name, method in (('conductor', 'stop'), ('db', 'dispose')):
            if name in parts:      # a failed start may have got only part of the way
                getattr(parts[name], method)()

    # the servers finish their requests in flight, then close
    return life.run(start, stop, stacks.STOP_MARGIN)


if __name__ == '__main__':
    sys.exit(main())
