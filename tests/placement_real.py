"""A real OpenStack Placement 16.0.0 for the adoption tests (import, export, verify).

``ensure_venv()`` builds a venv of its own with ``openstack-placement``,
``gunicorn`` and the PostgreSQL/MariaDB drivers, every package pinned by
``tests/placement-constraints.txt``, cached under ``~/.cache/berth-compat``
(or ``$BERTH_COMPAT_CACHE``) by :mod:`tests.compat.suite_venv`: built once
per machine, serialised by a lock, a stamp written last.  ``require_venv()``
skips loudly when it cannot be built, or fails under
``BERTH_REQUIRE_SERVICES=1``.  Never a runtime dependency of berth.

``Placement(workdir, venv, connection)`` is a :class:`tests.services.Service`:
it writes ``placement.conf`` (``[placement_database] connection``,
``[api] auth_strategy = noauth2``), runs ``placement-manage db sync`` on
the given SQLAlchemy URL (a SQLite file, :class:`tests.services.PostgreSQL`,
:class:`tests.mariadb_service.MariaDB`), then serves Placement's WSGI
application ``placement.wsgi.api:application`` (which reads
``$OS_PLACEMENT_CONFIG_DIR/placement.conf``) under gunicorn on a free
loopback port, and stops it by its PID.  ``session()`` gives a
``requests.Session`` that sends noauth2's admin token and a microversion.
"""

import os
import signal
import subprocess

import requests

from tests import services
from tests.compat import suite_venv

NAME = 'placement'
PLACEMENT_VERSION = '16.0.0'
PINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'placement-constraints.txt')
# the newest microversion of Placement 16.0.0
MAX_MICROVERSION = '1.39'

PLACEMENT_CONF = '''\
[DEFAULT]
debug = false
use_stderr = true

[api]
auth_strategy = noauth2

[placement_database]
connection = {connection}
sync_on_startup = false

[oslo_policy]
enforce_scope = false
enforce_new_defaults = false
'''


def ensure_venv():
    """``(venv path, seconds spent building)``; raises suite_venv.SuiteUnavailable."""
    return suite_venv.ensure(NAME, PINS)


def require_venv():
    """The Placement venv's path; skips (or fails under BERTH_REQUIRE_SERVICES=1) without."""
    try:
        return ensure_venv()[0]
    except suite_venv.SuiteUnavailable as exc:
        services.unavailable('openstack-placement %s venv unavailable: %s'
                             % (PLACEMENT_VERSION, exc))


def sqlite_url(path):
    """The SQLAlchemy URL of a SQLite file at ``path`` (for Placement and berth alike)."""
    return 'sqlite:///' + os.path.abspath(path)


class Placement(services.Service):
    """Placement 16.0.0 under gunicorn on 127.0.0.1:<free port>, noauth2, on ``connection``."""

    name = 'placement'
    stop_signal = signal.SIGINT          # gunicorn's quick shutdown
    ready_timeout = 90
    workers = 1

    def __init__(self, workdir, venv, connection):
        super().__init__(workdir)
        self.venv = venv
        self.connection = connection
        self.port = services.free_port()
        self.conf_dir = self.dir
        self.conf_file = os.path.join(self.dir, 'placement.conf')

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def _bin(self, name):
        return os.path.join(self.venv, 'bin', name)

    def _env(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('OS_', 'PYTHON', 'VIRTUAL_ENV'))}
        env['OS_PLACEMENT_CONFIG_DIR'] = self.conf_dir
        env['PYTHONWARNINGS'] = 'ignore'
        return env

    def write_conf(self):
        os.makedirs(self.dir, exist_ok=True)
        with open(self.conf_file, 'w') as f:
            f.write(PLACEMENT_CONF.format(connection=self.connection))

    def db_sync(self):
        """``placement-manage db sync`` on the connection; ServiceError with its output."""
        self.write_conf()
        done = subprocess.run(
            [self._bin('placement-manage'), '--config-file', self.conf_file, 'db', 'sync'],
            capture_output=True, text=True, env=self._env(), stdin=subprocess.DEVNULL,
            timeout=300, check=False)
        if done.returncode != 0:
            raise services.ServiceError('placement-manage db sync failed (%s):\n%s%s'
                                        % (done.returncode, done.stdout, done.stderr))

    def start(self, sync=True):
        """db sync (unless ``sync`` is false), then serve; returns self."""
        if sync:
            self.db_sync()
        else:
            self.write_conf()
        self.proc = self._spawn([
            self._bin('gunicorn'), '--bind', '127.0.0.1:%d' % self.port,
            '--workers', str(self.workers), '--graceful-timeout', '5', '--timeout', '120',
            'placement.wsgi.api:application'], env=self._env())
        self._wait_ready(self._answers)
        return self

    def _answers(self):
        if not services._listening(self.port):
            return False
        try:
            return requests.get(self.url + '/', timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def session(self, microversion=MAX_MICROVERSION):
        """A requests.Session with noauth2's admin token and ``microversion``."""
        s = requests.Session()
        s.headers.update({'x-auth-token': 'admin',
                          'openstack-api-version': 'placement %s' % microversion,
                          'accept': 'application/json'})
        return s


def start(workdir, connection, venv=None):
    """A started :class:`Placement` on ``connection`` (db synced first)."""
    return Placement(workdir, venv or require_venv(), connection).start()
