"""``berth-conductor``: one conductor process (RPC server, ring member, periodic tasks).

With ``[metrics] conductor_port`` set it also serves Prometheus metrics at
``http://<[metrics] conductor_host>:<port>/metrics``.
"""

import signal
import sys
import threading

from cli import config, stacks
from common import metrics
from conductor import service as conductor_service
from objects import database


def main(argv=None):
    conf = config.make_conf(sys.argv[1:] if argv is None else argv,
                            description='berth conductor')
    config.setup_logging(conf)
    db = database.open_database(conf)
    stacks.dump_on_sigusr2()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    conductor = conductor_service.ConductorService(conf, conf.host, db).start()
    print('berth-conductor: %s serving' % conf.host, flush=True)
    if conf.metrics.conductor_port is not None:
        listener = metrics.start_listener(conf.metrics.conductor_host,
                                          conf.metrics.conductor_port)
        print('berth-conductor: metrics on http://%s:%d/metrics'
              % (conf.metrics.conductor_host, listener.server_port), flush=True)
    while not stopping.wait(0.5):
        pass
    print('berth-conductor: %s stopping' % conf.host, flush=True)
    bound = (conf.coordination.ring_refresh_interval
             + conf.conductor.graceful_shutdown_timeout + stacks.STOP_MARGIN)
    with stacks.bounded_stop(bound):
        conductor.stop()
        db.dispose()
    return 0


if __name__ == '__main__':
    sys.exit(main())
