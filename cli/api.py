"""``berth-api``: the REST API servers of a production deployment."""

import signal
import sys
import threading

from api import server as http_server
from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from cli import config, security, stacks
from conductor import rpcapi
from objects import database


def main(argv=None):
    conf = config.make_conf(sys.argv[1:] if argv is None else argv,
                            description='berth API server')
    refusal = security.noauth_bind_error(conf)
    if refusal:
        print('berth-api: %s' % refusal, file=sys.stderr)
        return 2
    config.setup_logging(conf)
    db = database.open_database(conf)
    # reads the conductor ring (never joins it) and calls over [DEFAULT] transport_url
    conductor = rpcapi.APIConductorClient(conf)
    app = placement_app.loadapp(conf, db, conductor=conductor)
    server = http_server.HttpServer(app, conf.api.host,
                                    conf.api.placement_port, threads=conf.api.workers,
                                    name='placement')
    host, port = server.start()
    print('berth-api: Placement API on http://%s:%d' % (host, port), flush=True)
    baremetal = http_server.HttpServer(
        baremetal_app.loadapp(conf, db, conductor=conductor), conf.api.host,
        conf.api.baremetal_port, threads=conf.api.workers, name='baremetal')
    host, port = baremetal.start()
    print('berth-api: Bare metal API on http://%s:%d' % (host, port), flush=True)
    stacks.dump_on_sigusr2()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    while not stopping.wait(0.5):
        pass
    baremetal.stop()
    server.stop()
    conductor.stop()
    db.dispose()
    return 0


if __name__ == '__main__':
    sys.exit(main())
