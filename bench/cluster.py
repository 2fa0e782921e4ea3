"""berth processes for benchmarks: ``berth serve``, or RabbitMQ, PostgreSQL, etcd, berth-api, N conductors.

The servers are the Debian ones the integration tier uses (tests/services.py:
started on free loopback ports, stopped by PID; PostgreSQL runs without fsync
there).  Each :class:`Cluster` run gets a database of its own, so runs with 1
and 3 conductors start from the same empty state.
"""

import os
import signal
import subprocess
import sys
import time
from typing import Any

import requests

from common.conf import builder
from conductor import ring as conductor_ring
from tests import services

TOOZ_TIMEOUT = 5
START_DEADLINE = 120


def _bin(name):
    return os.path.join(os.path.dirname(sys.executable), name)


def _wait(predicate, what, deadline=START_DEADLINE):
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > deadline:
            raise RuntimeError('timed out waiting for %s' % what)
        time.sleep(0.2)


def cpu_seconds(pid):
    """User + system CPU seconds of one process (from /proc; 0 when it is gone)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def _stop_process(proc):
    """SIGTERM by PID, then SIGKILL when it does not stop within a minute."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class Serve:
    """``berth serve`` on its embedded defaults (SQLite, in-process transport), noauth.

    A process of its own, as an operator runs it, so its CPU is measured
    alone; free loopback ports, state in ``data_dir``.
    """

    def __init__(self, data_dir, conductors=1):
        self.data_dir = data_dir
        self.conductors = conductors
        self.port = services.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.proc = None

    def start(self):
        config = os.path.join(self.data_dir, 'berth.conf')
        with open(config, 'w') as f:
            f.write('[api]\nauth_strategy = noauth2\n'
                    '[conductor]\nembedded_conductors = %d\n' % self.conductors)
        log_path = os.path.join(self.data_dir, 'serve.log')
        with open(log_path, 'ab') as log:
            proc = self.proc = subprocess.Popen(
                [_bin('berth'), 'serve', '--config-file', config,
                 '--data-dir', self.data_dir, '--host', '127.0.0.1',
                 '--placement-port', str(self.port),
                 '--baremetal-port', str(services.free_port())],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)

        def answers():
            if proc.poll() is not None:
                raise RuntimeError('berth serve exited; see %s' % log_path)
            try:
                return requests.get(self.url, timeout=1).status_code == 200
            except requests.RequestException:
                return False
        try:
            _wait(answers, 'berth serve')
        except Exception:
            self.stop()
            raise
        return self

    def cpu_seconds(self):
        """CPU seconds ``berth serve`` used so far."""
        if self.proc is None:
            raise RuntimeError('berth serve is not running')
        return cpu_seconds(self.proc.pid)

    def stop(self):
        if self.proc is not None:
            _stop_process(self.proc)
            self.proc = None


class Servers:
    """RabbitMQ, PostgreSQL and etcd for the whole benchmark (stopped by PID)."""

    def __init__(self, workdir):
        self.workdir = workdir
        # tests.services' servers (untyped), each set by start()
        self.rabbitmq: Any = None
        self.postgresql: Any = None
        self.etcd: Any = None

    def start(self):
        for cls in (services.RabbitMQ, services.PostgreSQL, services.Etcd):
            missing = cls.missing()
            if missing:
                raise RuntimeError('%s is not installed (missing %s)'
                                   % (cls.name, ', '.join(missing)))
        self.postgresql = services.PostgreSQL(self._dir('postgresql')).start()
        self.etcd = services.Etcd(self._dir('etcd')).start()
        self.rabbitmq = services.RabbitMQ(self._dir('rabbitmq')).start()
        return self

    def _dir(self, name):
        path = os.path.join(self.workdir, name)
        os.makedirs(path, exist_ok=True)
        return path

    def new_database(self, name):
        """A fresh database on the PostgreSQL server; its URL."""
        pg = self.postgresql
        subprocess.run([services.PG_BIN + '/psql', '-q', '-h', '127.0.0.1', '-p',
                        str(pg.port), '-U', 'postgres', '-c',
                        'CREATE DATABASE %s' % name], check=True,
                       stdout=subprocess.DEVNULL)
        return pg.url.rsplit('/', 1)[0] + '/' + name

    def stop(self):
        for service in (self.rabbitmq, self.etcd, self.postgresql):
            if service is not None:
                service.stop()


class Cluster:
    """berth-api and ``conductors`` berth-conductor processes on ``servers``.

    ``api_workers``: berth-api's worker processes (``[api] workers``, 16
    threads each); None: one process of 16 threads, as before workers were
    processes.  ``extra_conf``: more configuration text (e.g. a
    ``[conductor]`` option to compare), appended to the file.
    """

    def __init__(self, servers, workdir, conductors, db_name, api_workers=None,
                 extra_conf=''):
        self.servers = servers
        self.extra_conf = extra_conf
        self.api_workers = api_workers
        self.workdir = workdir
        self.conductors = conductors
        self.db_name = db_name
        self.config = os.path.join(workdir, 'berth.conf')
        self.port = services.free_port()
        self.procs = {}
        self.url = 'http://127.0.0.1:%d' % self.port

    def _write_config(self, db_url):
        # workers = 16 alone now reads as threads in one process per CPU
        api = 'workers = %d\nthreads = 16\n' % (self.api_workers or 1)
        # BERTH_BENCH_API_SERVER=gunicorn: the same cells on [api] server = gunicorn
        api += 'server = %s\n' % os.environ.get('BERTH_BENCH_API_SERVER', 'builtin')
        with open(self.config, 'w') as f:
            f.write('[DEFAULT]\ntransport_url = %s\n'
                    '[database]\nconnection = %s\nmax_pool_size = 16\n'
                    '[coordination]\nbackend_url = %s\n'
                    '[conductor]\nworkers = 16\n'
                    '[api]\nauth_strategy = noauth2\nplacement_port = %d\n'
                    'baremetal_port = %d\n%s'
                    % (self.servers.rabbitmq.url, db_url,
                       self.servers.etcd.url(TOOZ_TIMEOUT), self.port,
                       services.free_port(), api))
            f.write(services.RPC_CONF)
            f.write(self.extra_conf)

    def _spawn(self, name, argv):
        log = open(os.path.join(self.workdir, name + '.log'), 'ab')
        self.procs[name] = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
        log.close()

    def start(self):
        os.makedirs(self.workdir, exist_ok=True)
        self._write_config(self.servers.new_database(self.db_name))
        subprocess.run([_bin('berth-manage'), '--config-file', self.config, 'db',
                        'sync'], check=True, capture_output=True)
        for i in range(self.conductors):
            host = 'bench-c%d' % i
            host_conf = os.path.join(self.workdir, host + '.conf')
            with open(host_conf, 'w') as f:
                f.write('[DEFAULT]\nhost = %s\n' % host)
            self._spawn(host, [_bin('berth-conductor'), '--config-file', self.config,
                               '--config-file', host_conf])
        self._spawn('api', [_bin('berth-api'), '--config-file', self.config])
        _wait(self._api_answers, 'berth-api')
        ring = conductor_ring.Ring(self._conf()).start()
        try:
            def all_joined():
                ring.refresh()
                return len(ring.members()) == self.conductors
            _wait(all_joined, '%d conductors in the ring' % self.conductors)
        finally:
            ring.stop()
        return self

    def _conf(self):
        return builder.build(['--config-file', self.config], config_files=[],
                             overrides={'state_path': self.workdir})

    def _api_answers(self):
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError('%s exited; see %s' % (
                    name, os.path.join(self.workdir, name + '.log')))
        try:
            return requests.get(self.url, timeout=1).status_code == 200
        except requests.RequestException:
            return False

    def cpu_seconds(self):
        """CPU seconds used so far: ``{'api': s, 'conductors': s}``."""
        return {'api': cpu_seconds(self.procs['api'].pid),
                'conductors': sum(cpu_seconds(p.pid) for name, p in self.procs.items()
                                  if name != 'api')}

    def stop(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            _stop_process(proc)
        self.procs.clear()
