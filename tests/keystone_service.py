"""A real Keystone for the integration tier: installed once per machine, started per session.

``ensure_venv()`` builds a virtualenv with ``keystone`` and ``gunicorn`` from the
package index, pinned by ``tests/keystone-constraints.txt``, under
``~/.cache/berth-keystone-venv/<version>-<python>-<hash of the pins>`` (or
``$BERTH_KEYSTONE_VENV``).  It is built once per machine; concurrent sessions
(xdist workers, parallel runs) serialise on a ``flock`` next to it, and a
half-built venv is never used (a stamp file is written last).

``Keystone`` is a :class:`tests.services.Service`: SQLite, fernet tokens and
key repositories in its work directory, ``keystone-manage db_sync``,
``fernet_setup``, ``credential_setup`` and ``bootstrap``, then gunicorn on a
free loopback port, stopped by its PID.  Keystone's WSGI application parses
``sys.argv`` with oslo.config when it is built, so gunicorn loads a three-line
wrapper module that empties the arguments first.

The REST side (users, projects, roles, catalog, limits) is in
:mod:`tests.keystone_identity`.
"""

import grp
import hashlib
import os
import pwd
import signal
import subprocess
import sys
import time

import requests

from tests import services

KEYSTONE_VERSION = '30.0.0'
CONSTRAINTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'keystone-constraints.txt')
INSTALL_TIMEOUT = 600          # seconds for venv + pip install (measured: ~35 s)
ADMIN_USER = 'admin'
ADMIN_PASSWORD = 'Adm1n-Keystone-for-berth-tests'
ADMIN_PROJECT = 'admin'
REGION = 'RegionOne'

WSGI_WRAPPER = '''\
import sys
sys.argv = sys.argv[:1]  # keystone parses argv with oslo.config: drop gunicorn's flags
from keystone.server import wsgi
application = wsgi.initialize_public_application()
'''

KEYSTONE_CONF = '''\
[DEFAULT]
use_stderr = true
debug = false

[database]
connection = sqlite:///{dir}/keystone.sqlite

[token]
provider = fernet

[fernet_tokens]
key_repository = {dir}/fernet-keys

[fernet_receipts]
key_repository = {dir}/fernet-receipts

[credential]
key_repository = {dir}/credential-keys

[identity]
# test users only: the cheapest bcrypt cost keeps password logins fast
password_hash_rounds = 4

[cache]
enabled = false
'''


class KeystoneUnavailable(Exception):
    """Keystone could not be installed (no package index, pip failure): skip or fail."""


def venv_dir():
    """Where the pinned Keystone venv lives (stable across runs of this machine)."""
    override = os.environ.get('BERTH_KEYSTONE_VENV')
    if override:
        return override
    with open(CONSTRAINTS, 'rb') as f:
        pins = hashlib.sha256(f.read()).hexdigest()[:10]
    key = '%s-py%d.%d-%s' % (KEYSTONE_VERSION, sys.version_info[0], sys.version_info[1],
                             pins)
    return os.path.join(os.path.expanduser('~'), '.cache', 'berth-keystone-venv', key)


def _stamp(venv):
    return os.path.join(venv, '.berth-installed')


def _ready(venv):
    # the stamp is written last; the interpreter link breaks when the base Python goes
    return os.path.exists(_stamp(venv)) and os.path.exists(os.path.join(venv, 'bin', 'python'))


def ensure_venv(timeout=INSTALL_TIMEOUT):
    """The Keystone venv's path, built first when missing; seconds spent building (0 if cached).

    Raises KeystoneUnavailable when it cannot be built within ``timeout``.
    """
    venv = venv_dir()
    return services.build_once(
        venv, _ready, lambda deadline: _build(venv, max(60, deadline - time.monotonic())),
        timeout, KeystoneUnavailable)


def _install_steps(venv):
    return [[sys.executable, '-m', 'venv', venv],
            [os.path.join(venv, 'bin', 'pip'), 'install', '--disable-pip-version-check',
             '-c', CONSTRAINTS, 'keystone==%s' % KEYSTONE_VERSION, 'gunicorn']]


def _build(venv, timeout, steps=None):
    """Run the install ``steps`` (argv lists); KeystoneUnavailable and no venv left on failure."""
    services.install_venv(venv, _install_steps(venv) if steps is None else steps,
                          time.monotonic() + timeout, KeystoneUnavailable,
                          'keystone==%s' % KEYSTONE_VERSION, _stamp(venv))


class Keystone(services.Service):
    """Keystone under gunicorn on 127.0.0.1:<free port>, bootstrapped with an admin.

    ``timings`` holds the seconds spent in ``setup`` (keystone-manage steps) and
    ``start`` (gunicorn until /v3 answers).
    """

    name = 'keystone'
    stop_signal = signal.SIGINT          # gunicorn's quick shutdown
    ready_timeout = 90
    workers = 2

    def __init__(self, workdir, venv):
        super().__init__(workdir)
        self.venv = venv
        self.port = services.free_port()
        self.conf_file = os.path.join(self.dir, 'keystone.conf')
        self.admin_user = ADMIN_USER
        self.admin_password = ADMIN_PASSWORD
        self.admin_project = ADMIN_PROJECT
        self.region = REGION
        self.timings = {}

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    @property
    def v3(self):
        """The identity endpoint (``auth_url``, ``www_authenticate_uri``)."""
        return self.url + '/v3'

    def _bin(self, name):
        return os.path.join(self.venv, 'bin', name)

    def _env(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('OS_', 'PYTHON', 'VIRTUAL_ENV'))}
        env['OS_KEYSTONE_CONFIG_FILES'] = self.conf_file
        env['PYTHONPATH'] = self.dir    # the wrapper module
        env['PYTHONWARNINGS'] = 'ignore'
        return env

    def _manage_argv(self, args):
        return [self._bin('keystone-manage'), '--config-file', self.conf_file] + list(args)

    def manage(self, *steps):
        """Run ``keystone-manage --config-file … ARGS`` for each ARGS tuple in ``steps``,
        side by side; ServiceError with the log tail when one fails."""
        procs = []
        with open(self.log, 'ab') as log:
            log.write(('$ keystone-manage %s\n' % ', '.join(s[0] for s in steps)).encode())
            log.flush()
            for args in steps:
                procs.append((args[0], subprocess.Popen(
                    self._manage_argv(args), stdout=log, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL, env=self._env())))
        failed = []
        for step, proc in procs:
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            if proc.returncode != 0:
                failed.append('%s (%s)' % (step, proc.returncode))
        if failed:
            raise services.ServiceError('keystone-manage %s failed:\n%s'
                                        % (', '.join(failed), services._tail(self.log)))

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        with open(self.conf_file, 'w') as f:
            f.write(KEYSTONE_CONF.format(dir=self.dir))
        with open(os.path.join(self.dir, 'berth_keystone_wsgi.py'), 'w') as f:
            f.write(WSGI_WRAPPER)
        user = pwd.getpwuid(os.getuid()).pw_name
        group = grp.getgrgid(os.getgid()).gr_name
        started = time.monotonic()
        owner = ('--keystone-user', user, '--keystone-group', group)
        # the key repositories do not need the database: all three at once
        self.manage(('db_sync',), ('fernet_setup',) + owner, ('credential_setup',) + owner)
        self.manage(('bootstrap', '--bootstrap-password', self.admin_password,
                     '--bootstrap-username', self.admin_user,
                     '--bootstrap-project-name', self.admin_project,
                     '--bootstrap-region-id', self.region,
                     '--bootstrap-public-url', self.v3,
                     '--bootstrap-internal-url', self.v3,
                     '--bootstrap-admin-url', self.v3))
        self.timings['setup'] = time.monotonic() - started
        started = time.monotonic()
        self.proc = self._spawn([
            self._bin('gunicorn'), '--bind', '127.0.0.1:%d' % self.port,
            '--workers', str(self.workers), '--graceful-timeout', '5', '--timeout', '120',
            '--chdir', self.dir, 'berth_keystone_wsgi:application'], env=self._env())
        self._wait_ready(self._answers)
        self.timings['start'] = time.monotonic() - started
        return self

    def _answers(self):
        if not services._listening(self.port):
            return False
        try:
            return requests.get(self.v3, timeout=5).status_code == 200
        except requests.RequestException:
            return False
