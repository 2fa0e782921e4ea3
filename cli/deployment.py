"""Wiring of the embedded all-in-one deployment (``berth serve``, functional tests)."""

import os

from api import server as http_server
from api.placement import app as placement_app
from common import context as berth_context
from objects import bootstrap
from objects import database


class Embedded:
    """Database, API servers (and, once started, conductors) in one process."""

    def __init__(self, conf):
        self.conf = conf
        self.db = None
        self.servers = {}

    def start(self):
        conf = self.conf
        os.makedirs(conf.state_path, exist_ok=True)
        self.db = database.open_database(conf)
        database.upgrade(self.db)
        bootstrap.sync_standards(berth_context.admin_context(self.db))
        placement = placement_app.loadapp(conf, self.db)
        server = http_server.HttpServer(placement, conf.api.host,
                                        conf.api.placement_port,
                                        threads=conf.api.workers, name='placement')
        server.start()
        self.servers['placement'] = server

    @property
    def placement_url(self):
        host, port = self.servers['placement'].address
        return 'http://%s:%d' % (host, port)

    def banner(self):
        lines = ['berth is running (embedded defaults; data in %s)'
                 % os.path.abspath(self.conf.state_path),
                 '  Placement API: %s' % self.placement_url,
                 '  auth: %s' % self.conf.api.auth_strategy]
        if self.conf.api.auth_strategy == 'noauth2':
            lines += ['  try: curl -H "X-Auth-Token: admin" %s/resource_providers'
                      % self.placement_url,
                      '  or:  OS_AUTH_TYPE=admin_token OS_TOKEN=admin '
                      'OS_ENDPOINT=%s openstack resource provider list'
                      % self.placement_url]
        lines.append('Stop with Ctrl-C (SIGINT) or SIGTERM.')
        return '\n'.join(lines)

    def stop(self):
        for server in self.servers.values():
            server.stop()
        self.servers.clear()
        if self.db is not None:
            self.db.dispose()
