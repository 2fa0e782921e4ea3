"""``berth-api``: the REST API servers of a production deployment.

SIGTERM/SIGINT stop it in every phase, SIGHUP reloads the mutable options
(cli/lifecycle.py).  With ``[api] workers`` above 1 it is a master process
forking that many workers (cli/api_workers.py); with ``[api] server =
gunicorn`` gunicorn's arbiter is the master (cli/api_gunicorn.py), with
``granian`` one granian server per API under a preloaded parent
(cli/api_granian.py).
"""

from collections.abc import Callable
import logging
import sys
import time
from typing import Any

from api import server as http_server
from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from cli import api_workers, config, lifecycle, metrics_once, security, stacks
from common import heap, metrics, rpc, rpc_keys
from conductor import rpcapi
from objects import database
from objects.candidates import preload

LOG = logging.getLogger('berth.cli.api')   # also when run as -m cli.api


def _baremetal_app(conf, db, conductor):
    """The bare-metal app; its port points /metrics at the Placement port (one registry)."""
    return metrics_once.PointToPlacement(
        baremetal_app.loadapp(conf, db, conductor=conductor), conf)


def _servers(conf, db, conductor, threads, socks=None):
    """Both API servers, started; ``socks``: listening sockets by API name."""
    servers = []
    for name, factory, port, title in (
            ('placement', placement_app.loadapp, conf.api.placement_port,
             'Placement API'),
            ('baremetal', _baremetal_app, conf.api.baremetal_port,
             'Bare metal API')):
        server = http_server.HttpServer(factory(conf, db, conductor=conductor),
                                        conf.api.host, port,
                                        threads=threads, name=name,
                                        max_body_size=conf.api.max_request_body_size,
                                        header_timeout=conf.api.request_header_timeout,
                                        body_timeout=conf.api.request_body_timeout,
                                        sock=(socks or {}).get(name))
        servers.append((title, server.start(), server))
    return servers


def _stop(parts):
    for server in parts.get('servers', []):
        server.begin_stop()        # both drain at once (api.server.STOP_DRAIN)
    for server in reversed(parts.get('servers', [])):
        server.stop()
    for name, method in (('conductor', 'stop'), ('db', 'dispose')):
        if name in parts:      # a failed start may have got only part of the way
            getattr(parts[name], method)()


def main(argv=None):
    heap.cap_malloc_arenas()            # before any server thread starts
    argv = sys.argv[1:] if argv is None else argv
    conf = config.make_conf_or_exit('berth-api', argv, description='berth API server')
    refusal = security.startup_error(conf) or rpc_keys.startup_error(conf)
    if refusal:
        print('berth-api: %s' % refusal, file=sys.stderr)
        return 2
    processes = api_workers.process_count(conf)
    gunicorn = conf.api.server != 'builtin'
    if processes > 1 or gunicorn:     # gunicorn, granian: a master and its workers
        api_workers.reexec_with_metrics_dir(argv)
    config.setup_logging(conf)
    security.warn_if_insecure(conf)
    threads = api_workers.thread_count(conf)
    if conf.api.server == 'granian':
        from cli import api_granian
        return lifecycle.leave(api_granian.run(conf, processes, threads))
    if gunicorn:
        from cli import api_gunicorn
        return lifecycle.leave(api_gunicorn.run(conf, processes, threads))
    if processes > 1:
        try:
            status = _master(conf, processes, threads)
        finally:
            api_workers.remove_owned_metrics_dir()
        return lifecycle.leave(status)
    life = lifecycle.Lifecycle('berth-api', conf)
    parts: dict[str, Any] = {}

    def start(life):
        life.set_phase('opening the database')
        db = parts['db'] = database.open_database(conf)
        # reads the conductor ring (never joins it) and calls over [DEFAULT] transport_url
        life.set_phase('connecting to the coordination backend')
        rpc.slow_amqp_polls()      # replies are handed on whatever the poll timeout
        conductor = parts['conductor'] = rpcapi.APIConductorClient(conf)
        life.set_phase('starting the HTTP servers')
        parts['servers'] = []
        for title, (host, port), server in _servers(conf, db, conductor, threads):
            parts['servers'].append(server)
            print('berth-api: %s on http://%s:%d' % (title, host, port), flush=True)
        metrics.API_WORKER.set(1)       # serving

    # the servers finish their requests in flight (api.server.STOP_DRAIN), then close
    return lifecycle.leave(life.run(start, lambda: _stop(parts), stacks.STOP_MARGIN))


def _handshake(parts: dict) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """preload.handshake of the master's database, made once it is open."""
    found: dict[str, Any] = {}

    def get():
        if 'ends' not in found:
            found['ends'] = preload.handshake(parts['db'])
        return found['ends']

    return (lambda sock: get()[0](sock)), (lambda sock: get()[1](sock))


def preimport_drivers(conf: Any) -> None:
    """Import, before the fork, the driver modules each worker's RPC client loads.

    Imported in every worker after the fork (kombu's AMQP transport, the tooz
    backend's driver and what it imports), they were private memory per
    worker; imported once in the master they are shared.  Best effort: a
    module that cannot be found is loaded by the worker as before.
    """
    from urllib import parse

    from stevedore import driver

    from conductor import ring
    try:
        driver.DriverManager('tooz.backends', parse.urlsplit(ring.backend_url(conf)).scheme)
        rpc.register_opts(conf)
        if (conf.transport_url or 'rabbit://').startswith('rabbit'):
            from kombu import transport
            transport.resolve_transport('pyamqp')
    except Exception as exc:      # noqa: BLE001 -- the worker imports it then
        LOG.debug('berth-api: driver modules not imported before the fork: %s', exc)


def _master(conf, processes, threads):
    """berth-api as a master forking ``processes`` workers (cli/api_workers.py)."""
    life = lifecycle.Lifecycle('berth-api', conf)
    parts: dict[str, Any] = {}

    def start(life):
        life.set_phase('opening the database')
        db = parts['db'] = database.open_database(conf)
        life.set_phase('loading the candidate index')
        began = time.monotonic()
        preload.load_index(db)
        LOG.info('berth-api: candidate index loaded in %.1f s', time.monotonic() - began)
        preimport_drivers(conf)
        # no pool connection of the master's crosses the fork; SQLite's change
        # watcher stays open in the master (preload.handshake compares its token)
        db.dispose(keep_watcher=db.is_sqlite)
        life.set_phase('opening the listening sockets')
        socks = parts['socks'] = {}
        for name, port in (('placement', conf.api.placement_port),
                           ('baremetal', conf.api.baremetal_port)):
            socks[name] = api_workers.listen(conf.api.host, port,
                                             http_server.LISTEN_BACKLOG)

    def worker(slot):
        wlife = lifecycle.Lifecycle('berth-api worker %d' % slot, conf)
        wparts: dict[str, Any] = {}

        def wstart(wlife):
            wparts['db'] = parts['db']
            rpc.slow_amqp_polls()
            wparts['conductor'] = rpcapi.APIConductorClient(conf)
            wparts['servers'] = [s for _t, _a, s in _servers(
                conf, parts['db'], wparts['conductor'], threads, parts['socks'])]
            metrics.API_WORKER.set(1)       # serving

        return wlife.run(wstart, lambda: _stop(wparts), stacks.STOP_MARGIN)

    master = api_workers.Master('berth-api', processes, worker,
                                handshake=_handshake(parts))

    def serve(life):
        for title, name in (('Placement API', 'placement'),
                            ('Bare metal API', 'baremetal')):
            host, port = parts['socks'][name].getsockname()[:2]
            print('berth-api: %s on http://%s:%d' % (title, host, port), flush=True)
        print('berth-api: %d worker processes of %d threads' % (processes, threads),
              flush=True)
        master.serve(life)

    def stop():
        master.stop()
        for sock in parts.get('socks', {}).values():
            sock.close()
        if 'db' in parts:
            parts['db'].dispose()

    return life.run(start, stop, stacks.STOP_MARGIN + api_workers.WORKER_STOP_BOUND,
                    serve=serve)


if __name__ == '__main__':
    sys.exit(main())
