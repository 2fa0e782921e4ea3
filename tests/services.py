"""Throwaway RabbitMQ, etcd, Redis and PostgreSQL servers for the integration tier.

Each server runs from its Debian binaries on free loopback ports picked at run
time, keeps its files in a temporary directory, and is stopped by the PID this
module started (never by name).  No systemd is needed; root is (PostgreSQL
runs as the ``postgres`` user through ``setpriv``).
"""

import fcntl
import importlib
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time

RABBIT_BIN = '/usr/lib/rabbitmq/bin'
# BERTH_REQUIRE_SERVICES=1 (CI): a missing server, tool or package fails its test
REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'
PG_BIN = os.environ.get('BERTH_PG_BIN', '/usr/lib/postgresql/15/bin')

# The [rpc] signing_key of every berth deployment the tests and benchmarks
# start on a message broker (a broker process without one refuses to start,
# common.rpc_keys): random per run, inherited by the processes a run starts,
# so every helper that writes a configuration for one deployment agrees.
RPC_SIGNING_KEY = os.environ.setdefault('BERTH_TEST_RPC_KEY', secrets.token_urlsafe(48))
# the lines to add to such a configuration file
RPC_CONF = '[rpc]\nsigning_key = %s\n' % RPC_SIGNING_KEY


class ServiceError(Exception):
    """A server did not start (its log tail is in the message)."""


def install_venv(venv, steps, deadline, unavailable_error, what, stamp):
    """Run the install ``steps`` (argv lists) for ``venv`` before ``deadline``.

    For the tools installed into a venv of their own (Keystone, Patroni, the
    compat suites): the output goes to ``<venv>.install.log``; a step that
    fails or runs out of time raises ``unavailable_error`` with the log's tail
    and leaves no venv; the ``stamp`` file (its text ``what``) is written last,
    so a half-built venv is never taken for a built one.
    """
    shutil.rmtree(venv, ignore_errors=True)
    log = venv + '.install.log'
    with open(log, 'wb') as out:
        for argv in steps:
            try:
                done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL,
                                      timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                shutil.rmtree(venv, ignore_errors=True)
                raise unavailable_error('installing %s took over its time (log %s)'
                                        % (what, log)) from None
            if done.returncode != 0:
                shutil.rmtree(venv, ignore_errors=True)
                raise unavailable_error('%s failed (%s); log %s:\n%s' % (
                    ' '.join(argv[:3]), done.returncode, log, _tail(log, 15)))
    with open(stamp, 'w') as f:
        f.write(what + '\n')


def unavailable(reason):
    """Skip the test loudly for ``reason``, or fail it under BERTH_REQUIRE_SERVICES=1."""
    import pytest
    if REQUIRE:
        pytest.fail('%s [BERTH_REQUIRE_SERVICES=1]' % reason)
    pytest.skip('!!! SKIPPED: %s !!!' % reason)


def import_or_unavailable(name):
    """``importlib.import_module(name)``; :func:`unavailable` when it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        unavailable('%s is not installed (%s)' % (name, exc))


def build_once(path, ready, build, timeout, unavailable):
    """``(path, seconds spent building)``: ``build(deadline)`` unless ``ready(path)``.

    For tools installed into a directory of their own and kept between runs
    (the Keystone and Patroni venvs): a file lock beside ``path`` makes
    parallel processes build it once; one that waits longer than ``timeout``
    for another's build raises ``unavailable`` with the reason.
    """
    if ready(path):
        return path, 0.0
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    deadline = time.monotonic() + timeout
    with open(path + '.lock', 'w') as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise unavailable('waited %ss for another process building %s'
                                      % (timeout, path)) from None
                time.sleep(1)
        if ready(path):
            return path, 0.0
        started = time.monotonic()
        build(deadline)
        return path, time.monotonic() - started


# Ports handed out by free_port are taken below the kernel's ephemeral range.
# A port picked by binding to port 0 lies inside it, and nothing holds it
# until the server it was picked for binds it: in between, any process's
# outgoing connection or bind to port 0 (a RabbitMQ CLI tool's Erlang node,
# an etcd member dialling its peers) may take it (a rehearsal: "etcd-2 ... bind:
# address already in use").  Below the range only an explicit bind lands.
PORTS_FROM = 10000
_handed_out = set()


def _ephemeral_low(path='/proc/sys/net/ipv4/ip_local_port_range'):
    """The lowest port the kernel hands out by itself (None when unknown)."""
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on right now, never the same twice.

    Chosen at random below the kernel's ephemeral range (see PORTS_FROM),
    else, where that range is unknown or leaves no room, by the kernel.
    """
    low = _ephemeral_low()
    if low is not None and low - PORTS_FROM >= 1000:
        rng = random.SystemRandom()
        for _ in range(200):
            port = rng.randrange(PORTS_FROM, low)
            if port not in _handed_out and _bindable(port):
                _handed_out.add(port)
                return port
    while True:
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        if port not in _handed_out:
            _handed_out.add(port)
            return port


def _bindable(port):
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', port))
        except OSError:
            return False
    return True


def _listening(port, host='127.0.0.1'):
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def _tail(path, lines=30):
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-lines:])
    except OSError:
        return '(no log)'


class Service:
    """One server process: ``start()`` waits until ready, ``stop()`` ends it by PID."""

    name = 'service'
    binaries = ()
    stop_signal = signal.SIGTERM
    ready_timeout = 30

    def __init__(self, workdir, host='127.0.0.1'):
        # ``host``: the address clients use; another than loopback puts the
        # server on a bridge that network-namespaced "hosts" reach (tests/netns.py)
        self.host = host
        self.dir = os.path.join(str(workdir), self.name)
        self.proc = None
        self.log = os.path.join(self.dir, '%s.log' % self.name)

    @classmethod
    def missing(cls):
        """The binaries of this server that are not installed (empty when all are)."""
        return [b for b in cls.binaries
                if not (os.access(b, os.X_OK) if os.path.isabs(b) else shutil.which(b))]

    def _spawn(self, argv, env=None, **kwargs):
        log = open(self.log, 'ab')
        try:
            return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=env,
                                    start_new_session=True, **kwargs)
        finally:
            log.close()

    def _wait_ready(self, probe):
        deadline = time.monotonic() + self.ready_timeout
        while True:
            # our own PID first: a stale server on the port would pass the probe
            if self.proc.poll() is not None:
                raise ServiceError('%s exited with %s:\n%s' % (
                    self.name, self.proc.returncode, _tail(self.log)))
            if probe():
                return
            if time.monotonic() > deadline:
                self.stop()
                raise ServiceError('%s not ready after %ss:\n%s' % (
                    self.name, self.ready_timeout, _tail(self.log)))
            time.sleep(0.2)

    def stop(self, timeout=20):
        _stop_pid(self.proc, self.stop_signal, timeout)
        self.proc = None

    def stop_server(self, timeout=20):
        """Stop the server process only; its files stay for a later ``start``."""
        _stop_pid(self.proc, self.stop_signal, timeout)
        self.proc = None


def _stop_pid(proc, sig, timeout):
    """Signal one process we started, wait for it, SIGKILL it if it lingers."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class RabbitMQ(Service):
    """RabbitMQ with a private epmd, run as the upstream script (not the su wrapper)."""

    name = 'rabbitmq'
    binaries = (RABBIT_BIN + '/rabbitmq-server', 'epmd')
    ready_timeout = 120

    def __init__(self, workdir, host='127.0.0.1'):
        super().__init__(workdir, host)
        self.port = free_port()
        self.dist_port = free_port()
        self.epmd_port = free_port()
        self.epmd = None

    @property
    def url(self):
        return 'rabbit://guest:guest@%s:%d/' % (self.host, self.port)

    def _env(self):
        env = dict(os.environ)
        env.update({
            'HOME': os.path.join(self.dir, 'home'),
            'ERL_EPMD_PORT': str(self.epmd_port), 'ERL_EPMD_ADDRESS': '127.0.0.1',
            'RABBITMQ_NODENAME': 'rabbit@localhost', 'RABBITMQ_USE_LONGNAME': 'false',
            'RABBITMQ_CONF_ENV_FILE': '/dev/null',
            'ERL_CRASH_DUMP': os.path.join(self.dir, 'erl_crash.dump'),
            'RABBITMQ_NODE_IP_ADDRESS': self.host,
            'RABBITMQ_NODE_PORT': str(self.port),
            'RABBITMQ_DIST_PORT': str(self.dist_port),
            'RABBITMQ_MNESIA_BASE': os.path.join(self.dir, 'mnesia'),
            'RABBITMQ_LOG_BASE': os.path.join(self.dir, 'log'),
            'RABBITMQ_CONFIG_FILE': os.path.join(self.dir, 'rabbitmq'),
            'RABBITMQ_ENABLED_PLUGINS_FILE': os.path.join(self.dir, 'enabled_plugins'),
            'RABBITMQ_PID_FILE': os.path.join(self.dir, 'beam.pid'),
            'RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS':
                '-kernel inet_dist_use_interface {127,0,0,1}',
        })
        return env

    def start(self):
        """Start (or restart, keeping its data and ports) and wait for AMQP."""
        for sub in ('mnesia', 'log', 'home'):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        with open(os.path.join(self.dir, 'enabled_plugins'), 'w') as f:
            f.write('[].\n')
        with open(os.path.join(self.dir, 'rabbitmq.conf'), 'w') as f:
            f.write('listeners.tcp.default = %s:%d\nloopback_users = none\n'
                    % (self.host, self.port))
        env = self._env()
        if self.epmd is None or self.epmd.poll() is not None:
            # a private epmd, else erl daemonizes one that outlives the broker
            self.epmd = self._spawn(['epmd', '-port', str(self.epmd_port),
                                     '-address', '127.0.0.1'], env=env)
            self.proc = self.epmd
            self._wait_ready(lambda: _listening(self.epmd_port))
        self.proc = self._spawn([RABBIT_BIN + '/rabbitmq-server'], env=env)
        self._wait_ready(self._amqp_ready)
        return self

    def _amqp_ready(self):
        if not _listening(self.port, self.host):
            return False
        import kombu
        try:
            with kombu.Connection('amqp://guest:guest@%s:%d//' % (self.host, self.port),
                                  connect_timeout=2) as conn:
                conn.ensure_connection(max_retries=1)
            return True
        except Exception:
            return False

    def stop_broker(self):
        """Stop the broker only (epmd stays, so ``start()`` brings it back)."""
        # the sh wrapper traps TERM, forwards it to beam.smp and waits
        _stop_pid(self.proc, signal.SIGTERM, 30)
        self.proc = None

    def stop(self, timeout=20):
        self.stop_broker()
        _stop_pid(self.epmd, signal.SIGTERM, timeout)
        self.epmd = None


class Etcd(Service):
    name = 'etcd'
    binaries = ('etcd',)

    def __init__(self, workdir, host='127.0.0.1'):
        super().__init__(workdir, host)
        self.port = free_port()
        self.peer_port = free_port()

    def url(self, timeout=5):
        return 'etcd3+http://%s:%d?timeout=%d' % (self.host, self.port, timeout)

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        client = 'http://%s:%d' % (self.host, self.port)
        peer = 'http://127.0.0.1:%d' % self.peer_port
        self.proc = self._spawn([
            'etcd', '--name', 'berth', '--data-dir', os.path.join(self.dir, 'data'),
            '--listen-client-urls', client, '--advertise-client-urls', client,
            '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
            '--initial-cluster', 'berth=' + peer])
        self._wait_ready(self._healthy)
        return self

    def _healthy(self):
        import requests
        try:
            return requests.get('http://%s:%d/health' % (self.host, self.port),
                                timeout=1).json().get('health') == 'true'
        except (requests.RequestException, ValueError):
            return False


class Redis(Service):
    name = 'redis'
    binaries = ('redis-server',)

    def __init__(self, workdir, host='127.0.0.1'):
        super().__init__(workdir, host)
        self.port = free_port()

    def url(self, timeout=5):
        return 'redis://%s:%d?timeout=%d' % (self.host, self.port, timeout)

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        self.proc = self._spawn([
            'redis-server', '--port', str(self.port), '--bind', self.host,
            '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', self.dir])
        self._wait_ready(self._pong)
        return self

    def _pong(self):
        if not _listening(self.port, self.host):
            return False
        with socket.create_connection((self.host, self.port), timeout=1) as sock:
            sock.sendall(b'PING\r\n')
            return sock.recv(16).startswith(b'+PONG')


class PostgreSQL(Service):
    """A throwaway cluster (initdb as ``postgres``, no fsync) with database ``berth``."""

    name = 'postgresql'
    binaries = (PG_BIN + '/initdb', PG_BIN + '/postgres', PG_BIN + '/pg_isready',
                PG_BIN + '/psql', 'setpriv')
    stop_signal = signal.SIGINT          # fast shutdown

    def __init__(self, workdir, host='127.0.0.1'):
        super().__init__(workdir, host)
        # the postgres user must reach its data dir: pytest's tmp dirs are 0700 root
        self.dir = tempfile.mkdtemp(prefix='berth-pg-')
        self.log = os.path.join(self.dir, 'postgresql.log')
        self.port = free_port()

    @property
    def url(self):
        return 'postgresql+psycopg2://postgres@%s:%d/berth' % (self.host, self.port)

    def _as_postgres(self, argv):
        # setpriv execs (no fork), so the PID we keep is the program's own
        return ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups'] + argv

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        shutil.chown(self.dir, 'postgres', 'postgres')
        data = os.path.join(self.dir, 'data')
        with open(self.log, 'ab') as log:
            subprocess.run(self._as_postgres([
                PG_BIN + '/initdb', '-D', data, '-U', 'postgres', '--auth=trust',
                '-E', 'UTF8', '--locale=C.UTF-8']), stdout=log, stderr=subprocess.STDOUT,
                check=True)
        if self.host != '127.0.0.1':
            # a throwaway cluster: trust the namespaced test hosts on the bridge
            with open(os.path.join(data, 'pg_hba.conf'), 'a') as hba:
                hba.write('host all all 0.0.0.0/0 trust\n')
        self.start_server()
        subprocess.run([PG_BIN + '/psql', '-q', '-h', self.host, '-p', str(self.port),
                        '-U', 'postgres', '-c', 'CREATE DATABASE berth'], check=True,
                       stdout=subprocess.DEVNULL)
        return self

    def start_server(self):
        """Start the postmaster on the existing cluster (after ``stop_server``)."""
        data = os.path.join(self.dir, 'data')
        self.proc = self._spawn(self._as_postgres([
            PG_BIN + '/postgres', '-D', data, '-p', str(self.port), '-k', self.dir,
            '-c', 'listen_addresses=%s' % self.host, '-c', 'fsync=off',
            '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
            '-c', 'max_connections=200']))
        self._wait_ready(lambda: subprocess.run(
            [PG_BIN + '/pg_isready', '-q', '-h', self.host, '-p', str(self.port)],
            check=False).returncode == 0)
        return self

    def stop(self, timeout=20):
        super().stop(timeout)
        shutil.rmtree(self.dir, ignore_errors=True)
