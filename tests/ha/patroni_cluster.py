"""PostgreSQL primary + synchronous standby under Patroni, with etcd as its DCS.

``ensure_venv()`` builds a virtualenv with ``patroni[etcd3,psycopg2-binary]``
from the package index, pinned by ``tests/patroni-constraints.txt``, once per
machine (a ``flock`` serialises concurrent builders; a stamp file written
last marks it complete).  Patroni refuses nothing as root, but PostgreSQL
does, so Patroni runs as the ``postgres`` user (``setpriv``, as
tests/services.py runs PostgreSQL): its venv must be readable by that user.
root's home is 0700 and the project's Python lives there, so the venv is
built from the system Python (``/usr/bin/python3``) under
``/var/tmp/berth-patroni-venv/`` (or ``$BERTH_PATRONI_VENV``).

:class:`PatroniCluster` starts one etcd (Debian package, free loopback
ports) and ``nodes`` Patroni daemons, each managing a PostgreSQL 15 (Debian
binaries) on free loopback ports, with ``synchronous_mode: true``: a commit
is acknowledged only once the synchronous standby has flushed it, so it
survives the loss of the primary.  ``ttl`` 20 s is Patroni's minimum
(smaller values are raised to 20), ``loop_wait`` 1 s, ``retry_timeout``
5 s.  Every process is stopped by the PID kept here.

``url`` is the libpq multi-host URL berth connects with: every node, and
``target_session_attrs=read-write`` so libpq skips standbys and finds the
promoted one without a configuration change.

Measured on this machine (2 cores shared with other work, 2026-11-24):

* install (venv + pip, 18 pinned distributions): 10 s with pip's cache
  warm, 12 s with ``PIP_NO_CACHE_DIR=1``; 0 s once built (it is kept);
* bootstrap (etcd, initdb on the leader, base backup of the standby, until
  the standby streams as ``sync_standby``, ``CREATE DATABASE``): 11-12 s
  on a quiet box, 33 s under load;
* failover after ``kill -9`` of the primary's Patroni and postmaster (a
  dead host): 19.7-20.7 s until the standby answers as a read-write
  primary (5 runs): the leader key must expire first (``ttl``), the
  promotion itself is quick;
* the killed node started again (``restart_node``) rejoins as the
  synchronous standby (pg_rewind, or a fresh clone when that fails) in
  14.6-24.6 s (the longest under berth's load);
* a PostgreSQL crash alone (postmaster killed, Patroni alive) is no
  failover: Patroni restarts it, still the primary, writable again after
  4.9-5.5 s.
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import requests

from tests import services

PATRONI_VERSION = '4.1.5'
HERE = os.path.dirname(os.path.abspath(__file__))
CONSTRAINTS = os.path.join(os.path.dirname(HERE), 'patroni-constraints.txt')
BASE_PYTHON = os.environ.get('BERTH_PATRONI_PYTHON', '/usr/bin/python3')
INSTALL_TIMEOUT = 600
PASSWORD = 'Patroni-berth-tests-1'
REPLICATION_PASSWORD = 'Replicator-berth-tests-1'
SCOPE = 'berth'


class PatroniUnavailable(Exception):
    """Patroni cannot be installed or run here (no index, no system Python, pip failed)."""


def missing():
    """What this cluster needs that is not installed (empty when all is)."""
    found = services.PostgreSQL.missing() + services.Etcd.missing()
    if not os.access(BASE_PYTHON, os.X_OK):
        found.append(BASE_PYTHON)
    return found


def venv_dir():
    override = os.environ.get('BERTH_PATRONI_VENV')
    if override:
        return override
    with open(CONSTRAINTS, 'rb') as f:
        pins = hashlib.sha256(f.read()).hexdigest()[:10]
    base = os.path.basename(os.path.realpath(BASE_PYTHON))
    return os.path.join('/var/tmp/berth-patroni-venv',
                        '%s-%s-%s' % (PATRONI_VERSION, base, pins))


def _ready(venv):
    return (os.path.exists(os.path.join(venv, '.berth-installed'))
            and os.access(os.path.join(venv, 'bin', 'patroni'), os.X_OK))


def ensure_venv(timeout=INSTALL_TIMEOUT):
    """``(venv path, seconds spent building it)``; PatroniUnavailable when it cannot be."""
    venv = venv_dir()
    return services.build_once(venv, _ready, lambda deadline: _build(venv, deadline),
                               timeout, PatroniUnavailable)


def _build(venv, deadline):
    steps = [[BASE_PYTHON, '-m', 'venv', venv],
             [os.path.join(venv, 'bin', 'pip'), 'install', '--disable-pip-version-check',
              '-c', CONSTRAINTS, 'patroni[etcd3,psycopg2-binary]==%s' % PATRONI_VERSION]]
    services.install_venv(venv, steps, deadline, PatroniUnavailable,
                          'patroni==%s' % PATRONI_VERSION,
                          os.path.join(venv, '.berth-installed'))


class Node:
    """One Patroni daemon and the PostgreSQL it manages."""

    def __init__(self, cluster, name):
        self.name = name
        self.dir = os.path.join(cluster.dir, name)
        self.data = os.path.join(self.dir, 'data')
        self.port = services.free_port()
        self.rest_port = services.free_port()
        self.config = os.path.join(self.dir, 'patroni.yml')
        self.log = os.path.join(self.dir, 'patroni.log')
        self.proc = None

    @property
    def rest(self):
        return 'http://127.0.0.1:%d' % self.rest_port

    def postmaster_pid(self):
        """The PID of this node's postmaster, or None (not running, or not ours)."""
        try:
            with open(os.path.join(self.data, 'postmaster.pid')) as f:
                pid = int(f.readline())
            with open('/proc/%d/cmdline' % pid, 'rb') as f:
                return pid if b'postgres' in f.read() else None
        except (OSError, ValueError):
            return None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


class PatroniCluster:
    """etcd + ``nodes`` Patroni-managed PostgreSQL servers; ``url`` finds the primary.

    ``timings``: ``install`` (0 when the venv was cached), ``bootstrap``.
    """

    def __init__(self, venv, nodes=2, ttl=20, loop_wait=1, retry_timeout=5,
                 ready_timeout=180):
        self.venv = venv
        # the postgres user must reach everything below: not pytest's 0700 tmp dirs
        self.dir = tempfile.mkdtemp(prefix='berth-patroni-')
        os.chmod(self.dir, 0o755)
        self.etcd = services.Etcd(self.dir)
        self.nodes = [Node(self, 'pg%d' % i) for i in range(nodes)]
        self.dcs = {'ttl': ttl, 'loop_wait': loop_wait, 'retry_timeout': retry_timeout,
                    'maximum_lag_on_failover': 1048576, 'synchronous_mode': True,
                    # a killed primary rejoins: rewound, or cloned again
                    'postgresql': {'use_pg_rewind': True, 'use_slots': True,
                                   'parameters': {'max_connections': 200,
                                                  'wal_log_hints': 'on',
                                                  'wal_keep_size': '128MB',
                                                  # which server ran what (reads
                                                  # on the standby)
                                                  'shared_preload_libraries':
                                                  'pg_stat_statements'}}}
        self.ready_timeout = ready_timeout
        self.timings = {}

    # --- addresses ---------------------------------------------------------------

    @property
    def url(self):
        """The libpq multi-host URL (SQLAlchemy + psycopg2 form)."""
        hosts = '&'.join('host=127.0.0.1:%d' % n.port for n in self.nodes)
        return ('postgresql+psycopg2://postgres:%s@/berth?%s&target_session_attrs=read-write'
                % (PASSWORD, hosts))

    @property
    def reader_url(self):
        """``[database] slave_connection`` as doc/source/deployment.md gives it: prefer-standby."""
        hosts = '&'.join('host=127.0.0.1:%d' % n.port for n in reversed(self.nodes))
        return ('postgresql+psycopg2://postgres:%s@/berth?%s'
                '&target_session_attrs=prefer-standby&connect_timeout=3' % (PASSWORD, hosts))

    def sql(self, name, statement, database='berth'):
        """``statement``'s first output line on node ``name``, or None when it cannot run."""
        node = self.node(name)
        try:
            done = subprocess.run(
                [services.PG_BIN + '/psql', '-qAt', '-h', '127.0.0.1', '-p', str(node.port),
                 '-U', 'postgres', '-d', database, '-c', statement],
                capture_output=True, text=True, timeout=30,
                env=dict(os.environ, PGPASSWORD=PASSWORD, PGCONNECT_TIMEOUT='3'))
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0:
            return None
        return (done.stdout.strip().splitlines() or [''])[0]

    def node(self, name):
        return next(n for n in self.nodes if n.name == name)

    # --- start / stop ------------------------------------------------------------

    def start(self):
        started = time.monotonic()
        try:
            self.etcd.start()
            for node in self.nodes:
                self._write_config(node)
                self.start_node(node)
            self.wait_healthy()
            leader = self.leader()
            subprocess.run([services.PG_BIN + '/psql', '-q', '-h', '127.0.0.1', '-p',
                            str(self.node(leader).port), '-U', 'postgres', '-d', 'postgres',
                            '-c', 'CREATE DATABASE berth'], check=True,
                           stdout=subprocess.DEVNULL, env=dict(os.environ,
                                                               PGPASSWORD=PASSWORD))
            if self.sql(leader, 'CREATE EXTENSION pg_stat_statements') is None:
                raise services.ServiceError('CREATE EXTENSION pg_stat_statements failed')
        except BaseException:
            self.stop()
            raise
        self.timings['bootstrap'] = time.monotonic() - started
        return self

    def _write_config(self, node):
        os.makedirs(node.dir, exist_ok=True)
        shutil.chown(node.dir, 'postgres', 'postgres')
        os.chmod(node.dir, 0o755)
        config = {
            'scope': SCOPE, 'namespace': '/berth-ha/', 'name': node.name,
            'log': {'level': 'INFO'},
            'restapi': {'listen': '127.0.0.1:%d' % node.rest_port,
                        'connect_address': '127.0.0.1:%d' % node.rest_port},
            'etcd3': {'hosts': ['127.0.0.1:%d' % self.etcd.port]},
            'bootstrap': {
                'dcs': self.dcs,
                'initdb': [{'encoding': 'UTF8'}, {'locale': 'C.UTF-8'},
                           {'auth-local': 'trust'}, {'auth-host': 'scram-sha-256'}],
            },
            'postgresql': {
                'listen': '127.0.0.1:%d' % node.port,
                'connect_address': '127.0.0.1:%d' % node.port,
                'data_dir': node.data, 'bin_dir': services.PG_BIN,
                'remove_data_directory_on_rewind_failure': True,
                'remove_data_directory_on_diverged_timelines': True,
                'pgpass': os.path.join(node.dir, 'pgpass'),
                'authentication': {
                    'superuser': {'username': 'postgres', 'password': PASSWORD},
                    'replication': {'username': 'replicator',
                                    'password': REPLICATION_PASSWORD}},
                'pg_hba': ['local all all trust',
                           'host all all 127.0.0.1/32 scram-sha-256',
                           'host replication replicator 127.0.0.1/32 scram-sha-256'],
                # a process kill loses nothing the kernel has: no fsync needed
                'parameters': {'unix_socket_directories': node.dir, 'fsync': 'off',
                               'full_page_writes': 'off'},
            },
        }
        with open(node.config, 'w') as f:
            json.dump(config, f, indent=1)      # JSON is YAML
        shutil.chown(node.config, 'postgres', 'postgres')

    def _env(self, node):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('PYTHON', 'VIRTUAL_ENV', 'PG'))}
        env.update(HOME=node.dir, LC_ALL='C.UTF-8', PYTHONWARNINGS='ignore')
        return env

    def start_node(self, node):
        log = open(node.log, 'ab')
        try:
            # setpriv execs: the PID kept is Patroni's own
            node.proc = subprocess.Popen(
                ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups',
                 os.path.join(self.venv, 'bin', 'patroni'), node.config],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=self._env(node), cwd=node.dir, start_new_session=True)
        finally:
            log.close()

    def stop(self):
        """SIGTERM every Patroni (it stops its PostgreSQL), then etcd; remove the files."""
        for node in self.nodes:
            if node.alive():
                node.proc.send_signal(signal.SIGTERM)
        for node in self.nodes:
            if node.proc is not None:
                try:
                    node.proc.wait(60)
                except subprocess.TimeoutExpired:
                    node.proc.kill()
                    node.proc.wait(10)
            pid = node.postmaster_pid()
            if pid is not None:          # left by a killed Patroni
                os.kill(pid, signal.SIGQUIT)
        self.etcd.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- state -------------------------------------------------------------------

    def members(self):
        """Patroni's ``/cluster`` member list as seen by any live node (or [])."""
        for node in self.nodes:
            if not node.alive():
                continue
            try:
                return requests.get(node.rest + '/cluster', timeout=2).json()['members']
            except (requests.RequestException, ValueError, KeyError):
                continue
        return []

    def leader(self, exclude=()):
        """The running leader's name, or None."""
        for m in self.members():
            if m.get('role') == 'leader' and m.get('state') == 'running' \
                    and m['name'] not in exclude:
                return m['name']
        return None

    def sync_standby(self):
        for m in self.members():
            if m.get('role') == 'sync_standby' and m.get('state') == 'streaming':
                return m['name']
        return None

    def _writable(self, node):
        try:
            return requests.get(node.rest + '/primary', timeout=2).status_code == 200
        except requests.RequestException:
            return False

    def wait_healthy(self, timeout=None):
        """Until a leader runs and a synchronous standby streams from it."""
        self._wait(lambda: self.leader() and self.sync_standby(), timeout,
                   'no leader with a streaming sync standby')

    def _wait(self, probe, timeout, what):
        deadline = time.monotonic() + (timeout or self.ready_timeout)
        while True:
            dead = [n.name for n in self.nodes if n.proc is not None and not n.alive()
                    and not getattr(n, 'killed', False)]
            if dead:
                raise services.ServiceError('patroni %s exited:\n%s' % (
                    dead, '\n'.join(services._tail(self.node(d).log) for d in dead)))
            found = probe()
            if found:
                return found
            if time.monotonic() > deadline:
                raise services.ServiceError('%s after %ss:\n%s' % (
                    what, timeout or self.ready_timeout,
                    '\n'.join(services._tail(n.log, 15) for n in self.nodes)))
            time.sleep(0.2)

    # --- faults ------------------------------------------------------------------

    def kill_primary(self):
        """``kill -9`` the leader's Patroni and postmaster (a dead host); its name."""
        name = self.leader()
        if name is None:
            raise services.ServiceError('no leader to kill')
        node = self.node(name)
        pid = node.postmaster_pid()
        node.killed = True
        node.proc.send_signal(signal.SIGKILL)       # first, or it restarts postgres
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
        node.proc.wait(10)
        return name

    def restart_node(self, name):
        """Start a killed node's Patroni again; it rejoins as a standby (not waited for)."""
        node = self.node(name)
        pid = node.postmaster_pid()
        if pid is not None:
            raise services.ServiceError('%s: postmaster %d still running' % (name, pid))
        node.killed = False
        self.start_node(node)

    def wait_new_primary(self, old, timeout=None):
        """The name of the node that took over from ``old`` once it accepts writes."""
        def promoted():
            name = self.leader(exclude=(old,))
            return name if name and self._writable(self.node(name)) else None
        return self._wait(promoted, timeout, 'no new primary')
