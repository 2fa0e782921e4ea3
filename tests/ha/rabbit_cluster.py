"""Three RabbitMQ nodes clustered on loopback, each started and stopped by its PID.

Every node has its own node name (``berth-ha-<n>@localhost``), AMQP port,
Erlang distribution port and data directory; they share one private epmd
(on a free port, so they find each other) and one Erlang cookie (one
``HOME``).  The management plugin is off (``enabled_plugins`` is empty).
Nodes 1 and 2 join node 0 with ``rabbitmqctl join_cluster``.

``kill(i)`` is a ``kill -9`` of the node's ``beam.smp`` (the pid in its
``RABBITMQ_PID_FILE``; the ``rabbitmq-server`` shell wrapper only forwards
signals), ``start(i)`` boots it again on its data, and it rejoins by itself.

    cluster = RabbitCluster(workdir).start()
    cluster.url                      # rabbit://guest:guest@h1,guest:guest@h2,...
    cluster.leaders('berth-conductor')   # {queue: leader node index}
    cluster.kill(0); cluster.start_node(0); cluster.stop()
"""

import os
import secrets
import signal
import subprocess
import time

from tests import services

NODES = 3
PREFIX = 'berth-ha'


class Node(services.Service):
    """One RabbitMQ node of the cluster (shares epmd and cookie with its peers)."""

    binaries = (services.RABBIT_BIN + '/rabbitmq-server',
                services.RABBIT_BIN + '/rabbitmqctl', 'epmd')
    ready_timeout = 180

    def __init__(self, workdir, index, cluster):
        self.name = 'rabbitmq-%d' % index
        super().__init__(workdir)
        self.index = index
        self.cluster = cluster
        self.nodename = '%s-%d@localhost' % (PREFIX, index)
        self.port = services.free_port()
        self.dist_port = services.free_port()

    def env(self):
        env = dict(os.environ)
        env.update({
            'HOME': self.cluster.home,
            'ERL_EPMD_PORT': str(self.cluster.epmd_port), 'ERL_EPMD_ADDRESS': '127.0.0.1',
            'RABBITMQ_NODENAME': self.nodename, 'RABBITMQ_USE_LONGNAME': 'false',
            'RABBITMQ_CONF_ENV_FILE': '/dev/null',
            'ERL_CRASH_DUMP': os.path.join(self.dir, 'erl_crash.dump'),
            'RABBITMQ_NODE_IP_ADDRESS': '127.0.0.1',
            'RABBITMQ_NODE_PORT': str(self.port),
            'RABBITMQ_DIST_PORT': str(self.dist_port),
            # the CLI's own distribution port range (default dist port + 10000,
            # past 65535 for a free port picked high)
            'RABBITMQ_CTL_DIST_PORT_MIN': str(self.cluster.ctl_port),
            'RABBITMQ_CTL_DIST_PORT_MAX': str(self.cluster.ctl_port),
            'RABBITMQ_MNESIA_BASE': os.path.join(self.dir, 'mnesia'),
            'RABBITMQ_LOG_BASE': os.path.join(self.dir, 'log'),
            'RABBITMQ_CONFIG_FILE': os.path.join(self.dir, 'rabbitmq'),
            'RABBITMQ_ENABLED_PLUGINS_FILE': os.path.join(self.dir, 'enabled_plugins'),
            'RABBITMQ_PID_FILE': os.path.join(self.dir, 'beam.pid'),
            'RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS':
                '-kernel inet_dist_use_interface {127,0,0,1}',
        })
        return env

    @property
    def address(self):
        """The node's entry in a multi-host transport URL."""
        return 'guest:guest@127.0.0.1:%d' % self.port

    def start(self):
        """Boot the node (first time, or again on its data after a kill)."""
        for sub in ('mnesia', 'log'):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        with open(os.path.join(self.dir, 'enabled_plugins'), 'w') as f:
            f.write('[].\n')
        with open(os.path.join(self.dir, 'rabbitmq.conf'), 'w') as f:
            f.write('listeners.tcp.default = 127.0.0.1:%d\nloopback_users = none\n'
                    % self.port)
        self.proc = self._spawn([services.RABBIT_BIN + '/rabbitmq-server'], env=self.env())
        return self

    def wait_ready(self):
        self._wait_ready(self.amqp_ready)

    def amqp_ready(self):
        if not services._listening(self.port):
            return False
        import kombu
        try:
            with kombu.Connection('amqp://guest:guest@127.0.0.1:%d//' % self.port,
                                  connect_timeout=2) as conn:
                conn.ensure_connection(max_retries=1)
            return True
        except Exception:
            return False

    def beam_pid(self):
        try:
            with open(os.path.join(self.dir, 'beam.pid')) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def kill(self):
        """``kill -9`` the Erlang VM (beam.smp), then reap the shell wrapper."""
        beam = self.beam_pid()
        if beam is not None and self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(beam, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc is not None:
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def ctl(self, *args, timeout=120):
        """Run ``rabbitmqctl -n <this node> args``; the completed process."""
        return subprocess.run([services.RABBIT_BIN + '/rabbitmqctl', '-n', self.nodename]
                              + list(args), env=self.env(), capture_output=True,
                              text=True, timeout=timeout, check=False)

    def stop(self, timeout=30):
        """SIGTERM (the wrapper forwards it); a lingering VM is killed by its pid."""
        beam = self.beam_pid()
        services._stop_pid(self.proc, signal.SIGTERM, timeout)
        self.proc = None
        if beam is not None:
            try:
                os.kill(beam, 0)
            except ProcessLookupError:
                return
            # the wrapper was gone (or ignored TERM): end the VM it left
            if _is_beam(beam):
                os.kill(beam, signal.SIGKILL)


def _is_beam(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            return b'beam' in f.read()
    except OSError:
        return False


class ClusterError(services.ServiceError):
    """A rabbitmqctl step of forming the cluster failed."""


class RabbitCluster:
    """Three clustered nodes; ``url`` lists all of them for oslo.messaging."""

    name = 'rabbitmq-cluster'

    def __init__(self, workdir, nodes=NODES):
        self.dir = os.path.join(str(workdir), self.name)
        self.home = os.path.join(self.dir, 'home')
        self.epmd_port = services.free_port()
        self.ctl_port = services.free_port()
        self.nodes = [Node(self.dir, i, self) for i in range(nodes)]
        self.epmd = None
        self.formed_in = None        # seconds from the first spawn to one cluster

    @classmethod
    def missing(cls):
        return Node.missing()

    @property
    def url(self):
        return 'rabbit://%s/' % ','.join(n.address for n in self.nodes)

    def _cookie(self):
        os.makedirs(self.home, exist_ok=True)
        path = os.path.join(self.home, '.erlang.cookie')
        if not os.path.exists(path):
            with open(path, 'w') as f:
                f.write(secrets.token_hex(20).upper())
            os.chmod(path, 0o400)

    def start(self):
        """Boot three nodes at once, join 1 and 2 to 0; wait until all run in one cluster."""
        started = time.monotonic()
        try:
            self._cookie()
            env = self.nodes[0].env()
            log = os.path.join(self.dir, 'epmd.log')
            with open(log, 'ab') as out:
                self.epmd = subprocess.Popen(
                    ['epmd', '-port', str(self.epmd_port), '-address', '127.0.0.1'],
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    env=env, start_new_session=True)
            _wait(lambda: services._listening(self.epmd_port), 30, 'epmd')
            for node in self.nodes:
                os.makedirs(node.dir, exist_ok=True)
                node.start()
            for node in self.nodes:
                node.wait_ready()
            seed = self.nodes[0].nodename
            for node in self.nodes[1:]:
                for step in (('stop_app',), ('reset',), ('join_cluster', seed),
                             ('start_app',)):
                    done = node.ctl(*step)
                    if done.returncode != 0:
                        raise ClusterError('rabbitmqctl -n %s %s: %s%s' % (
                            node.nodename, ' '.join(step), done.stdout, done.stderr))
            _wait(lambda: self.running() == {n.nodename for n in self.nodes}, 120,
                  'the cluster of %d nodes' % len(self.nodes))
            for node in self.nodes:
                node.wait_ready()
        except BaseException:
            self.stop()
            raise
        self.formed_in = time.monotonic() - started
        return self

    def running(self, via=None):
        """Node names running in the cluster, as one live node sees it (empty: none)."""
        for node in ([self.nodes[via]] if via is not None else self.nodes):
            if node.proc is None:
                continue
            done = node.ctl('cluster_status', '--formatter', 'json', timeout=60)
            if done.returncode == 0:
                import json
                try:
                    return set(json.loads(done.stdout).get('running_nodes', []))
                except ValueError:
                    continue
        return set()

    def leaders(self, prefix=''):
        """``{queue name: leader node index}`` of the quorum queues named ``prefix``*."""
        by_name = {n.nodename: n.index for n in self.nodes}
        for node in self.nodes:
            if node.proc is None:
                continue
            done = node.ctl('list_queues', '--quiet', '--no-table-headers', 'name',
                            'type', 'leader', timeout=60)
            if done.returncode != 0:
                continue
            found = {}
            for line in done.stdout.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] == 'quorum' and parts[0].startswith(prefix):
                    found[parts[0]] = by_name.get(parts[2])
            return found
        return {}

    def kill(self, index):
        """``kill -9`` node ``index``."""
        self.nodes[index].kill()

    def start_node(self, index):
        """Boot node ``index`` again; wait until it answers AMQP and runs in the cluster."""
        node = self.nodes[index]
        node.start()
        node.wait_ready()
        _wait(lambda: node.nodename in self.running(via=index), 120,
              '%s back in the cluster' % node.nodename)

    def stop(self):
        for node in self.nodes:
            node.stop()
        services._stop_pid(self.epmd, signal.SIGTERM, 20)
        self.epmd = None


def _wait(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise ClusterError('%s not ready after %ss' % (what, timeout))
        time.sleep(0.5)
