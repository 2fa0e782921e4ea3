"""A whole berth deployment on one machine, with a handle on every process to break it.

PostgreSQL, RabbitMQ and a tooz backend (etcd or Redis) come from
:mod:`tests.services`; the Placement and bare-metal APIs run under gunicorn
(several workers each, ``api.wsgi``); N ``berth-conductor`` processes share
one configuration file plus a per-host file.  Every process is started here
and stopped by the PID kept here.  Addresses are attributes (``host``, ports),
so a caller can put roles behind other addresses (network namespaces).

    with Deployment(workdir, conductors=3).start() as dep:
        dep.kill_conductor('c1', signal.SIGKILL); dep.start_conductor('c1')
        dep.restart_rabbitmq(); dep.restart_postgresql(); dep.restart_tooz()
        dep.kill_api_worker('placement')
"""

import os
import shutil
import signal
import subprocess
import sys
import time

import requests

from tests import services

BIN = os.path.dirname(sys.executable)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ('api', 'cli', 'common', 'conductor', 'db', 'objects')
SERVICES = {'rabbitmq': services.RabbitMQ, 'postgresql': services.PostgreSQL,
            'etcd': services.Etcd, 'redis': services.Redis}


class DeploymentError(Exception):
    """A berth process did not start or answer (its log tail is in the message)."""


def missing_binaries(tooz='etcd'):
    """``{server: [missing binaries]}`` for the servers a deployment needs."""
    found = {}
    for name in ('rabbitmq', 'postgresql', tooz):
        missing = SERVICES[name].missing()
        if missing:
            found[name] = missing
    if not os.access(os.path.join(BIN, 'gunicorn'), os.X_OK):
        found['gunicorn'] = [os.path.join(BIN, 'gunicorn')]
    return found


def children(pid):
    """The direct children of ``pid`` (from /proc; empty when it is gone)."""
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


class Process:
    """One berth process (a conductor or a gunicorn master) and its log."""

    def __init__(self, name, argv, log, env=None, cwd=ROOT):
        self.name = name
        self.cwd = cwd
        self.argv = argv
        self.log = log
        self.env = env
        self.proc = None

    def start(self):
        with open(self.log, 'ab') as log:
            self.proc = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=self.env,
                                         cwd=self.cwd, start_new_session=True)
        return self

    @property
    def pid(self):
        return self.proc.pid if self.alive() else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig, wait=60):
        """Send ``sig``; wait up to ``wait`` s for the exit (SIGKILL after); return code."""
        if not self.alive():
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(sig)
        try:
            self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        return self.proc.returncode

    def tail(self, lines=40):
        return services._tail(self.log, lines)


class Deployment:
    """Servers, two gunicorn-served APIs and ``conductors`` conductor processes.

    :param workdir: directory for configuration files and logs (kept).
    :param conductors: number of ``berth-conductor`` processes (hosts c0..cN-1).
    :param api_workers: gunicorn workers per API (Placement and bare metal).
    :param tooz: ``'etcd'`` or ``'redis'``.
    :param tooz_timeout: seconds before a silent member leaves the group.
    :param host: the address the APIs listen on (loopback by default).
    :param snapshot: run berth from a copy of the source taken at start, so a
        process restarted mid-run runs the same code as the others (the tree
        may change under a long run).
    :param service_hosts: ``{'rabbitmq'|'postgresql'|'etcd'|'redis': address}``
        for servers that must listen elsewhere than loopback (tests/netns.py).
    :param launch: ``{role: callable(argv) -> argv}`` to start a role (a
        conductor host name, or ``'api'``) another way, e.g. in a namespace.
    """

    # the [rpc] lines of every process's configuration: berth's signing key
    # (a broker process without one refuses to start, common.rpc_keys)
    rpc_conf = services.RPC_CONF

    def __init__(self, workdir, conductors=3, api_workers=3, tooz='etcd', tooz_timeout=5,
                 host='127.0.0.1', rpc_timeout=10, extra_conf='', snapshot=True,
                 service_hosts=None, launch=None):
        self.workdir = str(workdir)
        os.makedirs(self.workdir, exist_ok=True)
        os.chmod(self.workdir, 0o755)
        self.source = ROOT
        if snapshot:
            self.source = os.path.join(self.workdir, 'src')
            for package in PACKAGES:
                shutil.copytree(os.path.join(ROOT, package),
                                os.path.join(self.source, package),
                                ignore=shutil.ignore_patterns('__pycache__'))
        self.env = dict(os.environ, PYTHONPATH=self.source,
                        PYTHONWARNINGS='ignore::DeprecationWarning')
        self.hosts = ['c%d' % i for i in range(conductors)]
        self.api_workers = api_workers
        self.tooz_kind = tooz
        self.tooz_timeout = tooz_timeout
        self.host = host
        self.rpc_timeout = rpc_timeout
        self.extra_conf = extra_conf
        service_hosts = service_hosts or {}
        self.launch = dict(launch or {})

        def server(name):
            return SERVICES[name](self.workdir, service_hosts.get(name, '127.0.0.1'))
        self.rabbitmq = server('rabbitmq')
        self.postgresql = server('postgresql')
        self.tooz = server(tooz)
        self.placement_port = services.free_port()
        self.baremetal_port = services.free_port()
        self.config = os.path.join(self.workdir, 'berth.conf')
        self.conductors = {}
        self.apis = {}

    # --- addresses -------------------------------------------------------------------

    @property
    def placement_url(self):
        return 'http://%s:%d' % (self.host, self.placement_port)

    @property
    def baremetal_url(self):
        return 'http://%s:%d' % (self.host, self.baremetal_port)

    @property
    def db_url(self):
        return self.postgresql.url

    # --- start / stop ----------------------------------------------------------------

    def start(self):
        """Start the servers, sync the schema, then the conductors and the APIs."""
        try:
            self.postgresql.start()
            self.tooz.start()
            self.rabbitmq.start()
            self._write_config()
            self._manage('db', 'sync')
            for host in self.hosts:
                self.start_conductor(host)
            for name in ('placement', 'baremetal'):
                self.start_api(name)
        except BaseException:
            self.stop()
            raise
        return self

    def _write_config(self):
        with open(self.config, 'w') as f:
            f.write(
                '[DEFAULT]\ntransport_url = %s\n'
                '[database]\nconnection = %s\nmax_pool_size = 5\nmax_overflow = 10\n'
                'max_retries = -1\nretry_interval = 1\n'
                '[coordination]\nbackend_url = %s\nwatch_interval = 0.5\n'
                'ring_refresh_interval = 2\n'
                '[conductor]\nrpc_timeout = %d\nworkers = 8\n'
                'graceful_shutdown_timeout = 10\n'
                '[allocation]\norphan_check_interval = 2\nsweep_interval = 5\n'
                'stale_timeout = 20\n'
                '[oslo_messaging_rabbit]\nrabbit_retry_interval = 1\n'
                'rabbit_retry_backoff = 1\n'
                '[api]\nauth_strategy = noauth2\n%s%s%s'
                % (self.rabbitmq.url, self.db_url, self.tooz.url(self.tooz_timeout),
                   self.rpc_timeout, self._insecure_noauth(), self.rpc_conf,
                   self.extra_conf))

    def _insecure_noauth(self):
        # the partition tier's API listens on an isolated namespace network,
        # where noauth2 must be allowed explicitly (the WSGI apps refuse it
        # on a non-loopback address otherwise)
        if self.host and not self.host.startswith('127.'):
            return 'allow_insecure_noauth = true\n'
        return ''

    def _argv(self, role, argv):
        launch = self.launch.get(role)
        return launch(argv) if launch else argv

    def _manage(self, *args):
        done = subprocess.run([os.path.join(BIN, 'berth-manage'), '--config-file',
                               self.config] + list(args), capture_output=True, text=True,
                              cwd=self.source, env=self.env)
        if done.returncode != 0:
            raise DeploymentError('berth-manage %s failed:\n%s%s'
                                  % (' '.join(args), done.stdout, done.stderr))

    def stop(self):
        """Stop every process started here (APIs, conductors, then the servers)."""
        for proc in list(self.apis.values()) + list(self.conductors.values()):
            if proc.alive():
                proc.proc.send_signal(signal.SIGTERM)
        for proc in list(self.apis.values()) + list(self.conductors.values()):
            proc.signal(signal.SIGTERM, wait=30)
        for server in (self.rabbitmq, self.tooz, self.postgresql):
            server.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # --- conductors ------------------------------------------------------------------

    def start_conductor(self, host):
        """Start (or restart) the conductor ``host``."""
        host_conf = os.path.join(self.workdir, '%s.conf' % host)
        with open(host_conf, 'w') as f:
            f.write('[DEFAULT]\nhost = %s\n' % host)
        proc = Process(host, self._argv(host, [
                           os.path.join(BIN, 'berth-conductor'), '--config-file',
                           self.config, '--config-file', host_conf]),
                       os.path.join(self.workdir, '%s.log' % host), env=self.env,
                       cwd=self.source)
        self.conductors[host] = proc.start()
        return proc

    def kill_conductor(self, host, sig=signal.SIGKILL, wait=60):
        """Signal the conductor ``host`` and wait for it to exit; its exit code."""
        return self.conductors[host].signal(sig, wait)

    def dead(self):
        """Names of the berth processes that exited although nobody stopped them."""
        return sorted(name for name, proc in list(self.conductors.items())
                      + list(self.apis.items()) if not proc.alive())

    def live_conductors(self):
        return [h for h, p in self.conductors.items() if p.alive()]

    # --- APIs under gunicorn -----------------------------------------------------------

    def start_api(self, name):
        """Start the gunicorn master of ``'placement'`` or ``'baremetal'``; wait for it."""
        port = self.placement_port if name == 'placement' else self.baremetal_port
        app = 'api.wsgi:application' if name == 'placement' else \
            'api.wsgi:baremetal_application'
        env = dict(self.env, BERTH_CONFIG_FILE=self.config)
        # --preload: the master imports the code once; a worker forked to
        # replace a dead one builds its app (api.wsgi._Lazy) without importing
        proc = Process(name, self._argv('api', [
            os.path.join(BIN, 'gunicorn'), '--bind', '%s:%d' % (self.host, port),
            '--workers', str(self.api_workers), '--worker-class', 'gthread',
            '--threads', '8', '--timeout', '90', '--graceful-timeout', '10',
            '--preload', '--no-control-socket', '--name', 'berth-' + name, app]),
            os.path.join(self.workdir, '%s.log' % name), env=env, cwd=self.source)
        self.apis[name] = proc.start()
        url = self.placement_url if name == 'placement' else self.baremetal_url + '/v1'
        deadline = time.monotonic() + 120
        while True:
            if not proc.alive():
                raise DeploymentError('%s exited:\n%s' % (name, proc.tail()))
            try:
                if requests.get(url, timeout=2).status_code == 200:
                    return proc
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise DeploymentError('%s did not answer:\n%s' % (name, proc.tail()))
            time.sleep(0.3)

    def api_workers_of(self, name):
        """PIDs of the gunicorn workers of one API."""
        proc = self.apis[name]
        return children(proc.proc.pid) if proc.alive() else []

    def kill_api_worker(self, name, pick=0):
        """``kill -9`` one gunicorn worker of ``name`` (the master forks a new one)."""
        workers = sorted(self.api_workers_of(name))
        if not workers:
            raise DeploymentError('%s has no workers' % name)
        pid = workers[pick % len(workers)]
        os.kill(pid, signal.SIGKILL)
        return pid

    # --- servers -----------------------------------------------------------------------

    def stop_rabbitmq(self):
        self.rabbitmq.stop_broker()

    def start_rabbitmq(self):
        self.rabbitmq.start()

    def stop_postgresql(self):
        self.postgresql.stop_server()

    def start_postgresql(self):
        self.postgresql.start_server()

    def stop_tooz(self):
        self.tooz.stop_server()

    def start_tooz(self):
        self.tooz.start()


def print_log_tails(workdir, lines=200):
    """The end of every berth log of the run (a hung stop writes its stacks there)."""
    for name in sorted(os.listdir(workdir)):
        if name.endswith('.log'):
            print('----- last %d lines of %s -----' % (lines, name))
            print(services._tail(os.path.join(workdir, name), lines), end='')
