"""What bench/candidates.py measures against: a loaded database and a Placement API on it.

* :func:`load_sqlite` / :class:`Postgres` write the placeload topology
  (bench/placeload.py) into a fresh SQLite file or a fresh PostgreSQL
  database (the Debian server the integration tier uses, tests/services.py,
  no fsync);
* :class:`Embedded` serves it from this process (``berth serve``'s
  deployment: threaded API server and a conductor, which writes go
  through), :class:`Gunicorn` from ``W`` sync worker processes
  (``api.wsgi``; the writes then go through an Embedded one);
* :class:`Client` is one keep-alive connection; :class:`Writer` is the
  write a busy cloud makes between two scheduling requests, through the
  public API only: one ``PUT /allocations/{consumer}`` holding VCPU on every
  compute provider, its amount alternating 1 and 2, so every provider's
  usage and generation change and every per-provider memo and index entry
  is rebuilt by the next search.

The server's CPU (``cpu()``) is berth's: this process when embedded (the
client's share included), the gunicorn workers otherwise; ``db_cpu()`` is
PostgreSQL's backends' (0 on SQLite).
"""

import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib

from bench import cluster, placeload
from tests.chaos import deployment

VERSION = '1.39'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = """[DEFAULT]
state_path = {state}
[api]
auth_strategy = noauth2
[database]
sqlite_synchronous = false
{connection}
"""




class Postgres:
    """One PostgreSQL server for the run; a database per size."""

    def __init__(self):
        from tests import services

        missing = services.PostgreSQL.missing()
        if missing:
            raise RuntimeError('PostgreSQL is not installed (missing %s)' % ', '.join(missing))
        self.workdir = tempfile.mkdtemp(prefix='berth-bench-pg-')
        self.server = services.PostgreSQL(self.workdir).start()
        self.servers = cluster.Servers(self.workdir)
        self.servers.postgresql = self.server

    def new_database(self, name):
        return self.servers.new_database(name)

    def cpu(self):
        return sum(cluster.cpu_seconds(pid) for pid in deployment.children(self.server.proc.pid))

    def stop(self):
        self.server.stop()


class Embedded:
    """``berth serve``'s deployment in this process: API and a conductor on the database.

    Writes go through the conductor (in-process transport), as in ``berth serve``.
    """

    def __init__(self, state, connection=None):
        from cli import deployment
        from tests import services

        conf = placeload.conf_for(state, connection)
        conf.set_override('host', '127.0.0.1', group='api')
        conf.set_override('placement_port', services.free_port(), group='api')
        conf.set_override('baremetal_port', services.free_port(), group='api')
        conf.set_override('threads', 16, group='api')
        self.stack = deployment.Embedded(conf)
        self.stack.start()
        self.host, self.port = self.stack.servers['placement'].address[:2]

    def cpu(self):
        return time.process_time()

    def stop(self):
        self.stack.stop()


class Gunicorn:
    """The Placement API under gunicorn: ``workers`` sync worker processes."""

    def __init__(self, state, workers, connection=None):
        from tests import services

        self.host, self.port = '127.0.0.1', services.free_port()
        path = os.path.join(state, 'berth.conf')
        with open(path, 'w') as f:
            f.write(CONFIG.format(state=state, connection='connection = %s' % connection
                                  if connection else ''))
        env = dict(os.environ, BERTH_CONFIG_FILE=path)
        self.proc: subprocess.Popen | None = subprocess.Popen(
            [os.path.join(os.path.dirname(sys.executable), 'gunicorn'),
             '--workers', str(workers), '--bind', '%s:%d' % (self.host, self.port),
             '--log-level', 'warning', 'api.wsgi:application'],
            cwd=ROOT, env=env, start_new_session=True)
        for _ in range(300):
            try:
                Client(self.host, self.port).get('resources=VCPU:1&limit=1')
                break
            except OSError:
                time.sleep(0.1)
        for _ in range(4 * workers):     # every worker builds its app
            Client(self.host, self.port).get('resources=VCPU:1&limit=1')

    def cpu(self):
        """CPU seconds used so far by the worker processes."""
        if self.proc is None:
            raise RuntimeError('gunicorn is not running')
        return sum(cluster.cpu_seconds(pid) for pid in deployment.children(self.proc.pid))

    def stop(self):
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
            self.proc = None


class Client:
    """One persistent HTTP connection."""

    def __init__(self, host, port, version=VERSION):
        self.conn = http.client.HTTPConnection(host, port, timeout=600)
        self.headers = {'X-Auth-Token': 'admin',
                        'OpenStack-API-Version': 'placement %s' % version}

    def call(self, method, path, body=None):
        headers = dict(self.headers)
        if body is not None:
            body = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        self.conn.request(method, path, body, headers)
        resp = self.conn.getresponse()
        return resp.status, resp.read()

    def get(self, query):
        status, body = self.call('GET', '/allocation_candidates?' + query)
        if status != 200:
            raise RuntimeError('%s -> %s %s' % (query, status, body[:300]))
        return body


class Writer:
    """Between two requests: one allocation write that changes every compute provider."""

    def __init__(self, host, port):
        self.client = Client(host, port, version='1.12')
        status, body = self.client.call('GET', '/resource_providers?resources=VCPU:1')
        if status != 200:
            raise RuntimeError('listing providers: %s %s' % (status, body[:300]))
        self.uuids = [rp['uuid'] for rp in json.loads(body)['resource_providers']]
        self.consumer, self.project = str(uuidlib.uuid4()), str(uuidlib.uuid4())
        self.amount = 0

    def write(self):
        self.amount = self.amount % 2 + 1
        status, body = self.client.call('PUT', '/allocations/%s' % self.consumer, {
            'allocations': {u: {'resources': {'VCPU': self.amount}} for u in self.uuids},
            'project_id': self.project, 'user_id': self.project})
        if status != 204:
            raise RuntimeError('cold write: %s %s' % (status, body[:300]))
