"""Wiring of the embedded all-in-one deployment (``berth serve``, functional tests)."""

import os

from api import server as http_server
from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from cli import api_workers, metrics_once
from common import context as berth_context
from common import rpc
from conductor import rpcapi
from conductor import service as conductor_service
from objects import bootstrap, database


def transport_url(conf):
    """The transport of ``berth serve``'s conductors: ``[DEFAULT] transport_url``,
    or the in-process one where it is unset (oslo.messaging's default,
    RabbitMQ on localhost, means "not configured")."""
    rpc.register_opts(conf)
    return (rpc.EMBEDDED_TRANSPORT_URL if conf.transport_url == rpc.DEFAULT_TRANSPORT_URL
            else conf.transport_url)


class Embedded:
    """Database, API servers and conductors in one process.

    The conductors talk to the API over the in-process transport (unless
    ``[DEFAULT] transport_url`` says otherwise) and share a file-based tooz
    group in the data dir.
    """

    def __init__(self, conf):
        self.conf = conf
        self.db = None
        self.servers = {}
        self.transport = None
        self.conductors = []
        self.conductor_api = None

    def start(self, on_phase=None):
        """Start everything; ``on_phase(text)`` is told what each step waits for."""
        conf = self.conf
        phase = on_phase or (lambda text: None)
        os.makedirs(conf.state_path, exist_ok=True)
        phase('opening the database')
        self.db = database.open_database(conf)
        phase('upgrading the database schema')
        database.upgrade(self.db)
        bootstrap.sync_standards(berth_context.admin_context(self.db))
        self._start_conductors(phase)
        phase('starting the HTTP servers')
        placement = placement_app.loadapp(conf, self.db, conductor=self.conductor_api)
        server = http_server.HttpServer(placement, conf.api.host,
                                        conf.api.placement_port,
                                        threads=api_workers.thread_count(conf), name='placement',
                                        max_body_size=conf.api.max_request_body_size,
                                        header_timeout=conf.api.request_header_timeout,
                                        body_timeout=conf.api.request_body_timeout)
        server.start()
        self.servers['placement'] = server
        # one /metrics per process: the Placement port's (cli/metrics_once.py)
        baremetal = metrics_once.PointToPlacement(
            baremetal_app.loadapp(conf, self.db, conductor=self.conductor_api), conf)
        server = http_server.HttpServer(baremetal, conf.api.host,
                                        conf.api.baremetal_port,
                                        threads=api_workers.thread_count(conf, warn=False),
                                        name='baremetal',
                                        max_body_size=conf.api.max_request_body_size,
                                        header_timeout=conf.api.request_header_timeout,
                                        body_timeout=conf.api.request_body_timeout)
        server.start()
        self.servers['baremetal'] = server

    def _start_conductors(self, phase):
        conf = self.conf
        self.transport = rpc.get_transport(conf, url=transport_url(conf))
        for i in range(conf.conductor.embedded_conductors):
            host = '%s-c%d' % (conf.host, i)
            self.conductors.append(conductor_service.ConductorService(
                conf, host, self.db, transport=self.transport).start(on_phase=phase))
        self.conductor_api = rpcapi.APIConductorClient(conf, transport=self.transport)

    @property
    def placement_url(self):
        host, port = self.servers['placement'].address
        return 'http://%s:%d' % (host, port)

    @property
    def baremetal_url(self):
        host, port = self.servers['baremetal'].address
        return 'http://%s:%d' % (host, port)

    def banner(self):
        lines = ['berth is running (embedded defaults; data in %s)'
                 % os.path.abspath(self.conf.state_path),
                 '  Placement API: %s' % self.placement_url,
                 '  Bare metal API: %s' % self.baremetal_url,
                 '  auth: %s' % self.conf.api.auth_strategy,
                 '  conductors: %s' % ', '.join(c.host for c in self.conductors),
                 '  status page: %s/status (admin); metrics: %s/metrics'
                 % (self.placement_url, self.placement_url)]
        if self.conf.api.auth_strategy == 'noauth2':
            lines += ['  try: curl -H "X-Auth-Token: admin" %s/resource_providers'
                      % self.placement_url,
                      '  or:  OS_AUTH_TYPE=admin_token OS_TOKEN=admin '
                      'OS_ENDPOINT=%s openstack resource provider list'
                      % self.placement_url,
                      '  and: OS_AUTH_TYPE=none OS_ENDPOINT=%s openstack '
                      'baremetal node list' % self.baremetal_url]
        lines.append('Stop with Ctrl-C (SIGINT) or SIGTERM.')
        return '\n'.join(lines)

    def stop(self):
        """Stop the API first (no new work), then the conductors, then the rest.

        Requests in flight get api.server.STOP_DRAIN seconds in all, not one
        another's turn: the servers begin their stops together.
        """
        for server in self.servers.values():
            server.begin_stop()
        for server in self.servers.values():
            server.stop()
        self.servers.clear()
        if self.conductor_api is not None:
            self.conductor_api.stop()
            self.conductor_api = None
        # no peer outside this process can route here: no grace period
        for conductor in self.conductors:
            conductor.stop(grace=0)
        self.conductors.clear()
        if self.transport is not None:
            self.transport.cleanup()
            self.transport = None
        if self.db is not None:
            self.db.dispose()
