"""A three-member etcd cluster on loopback behind one ``etcd gateway``, each by its PID.

tooz's ``etcd3+http`` driver talks to one ``host:port`` (it builds one
``etcd3gw.client(host=, port=)``; etcd3gw has no endpoint list), so it cannot
fail over between members by itself.  ``etcd gateway`` (part of the etcd
binary) is a TCP proxy that forwards each new connection to a live member
of ``--endpoints``, skipping one that refuses; one runs beside each berth
host, and berth's ``backend_url`` names the gateway.  The etcd3gw JSON API
passes through it untouched.

    cluster = EtcdCluster(workdir).start()
    cluster.url(timeout=5)           # etcd3+http://127.0.0.1:<gateway>?timeout=5
    cluster.leader()                 # index of the raft leader
    cluster.kill(i); cluster.start_member(i); cluster.stop()
"""

import os
import signal
import time
import uuid

import requests

from tests import services

MEMBERS = 3


class Member(services.Service):
    """One etcd member; ``start()`` on an existing data dir rejoins the cluster."""

    binaries = ('etcd',)

    def __init__(self, workdir, index, cluster):
        self.name = 'etcd-%d' % index
        super().__init__(workdir)
        self.index = index
        self.cluster = cluster
        self.member = 'm%d' % index
        self.port = services.free_port()
        self.peer_port = services.free_port()

    @property
    def client_url(self):
        return 'http://127.0.0.1:%d' % self.port

    @property
    def peer_url(self):
        return 'http://127.0.0.1:%d' % self.peer_port

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        self.proc = self._spawn([
            'etcd', '--name', self.member, '--data-dir', os.path.join(self.dir, 'data'),
            '--listen-client-urls', self.client_url,
            '--advertise-client-urls', self.client_url,
            '--listen-peer-urls', self.peer_url,
            '--initial-advertise-peer-urls', self.peer_url,
            '--initial-cluster', self.cluster.initial_cluster(),
            '--initial-cluster-state', 'new',
            '--initial-cluster-token', self.cluster.token])
        return self

    def wait_ready(self):
        self._wait_ready(self.healthy)

    def healthy(self):
        try:
            return requests.get(self.client_url + '/health',
                                timeout=2).json().get('health') == 'true'
        except (requests.RequestException, ValueError):
            return False

    def status(self):
        """``/v3/maintenance/status`` of this member (None when it does not answer)."""
        try:
            return requests.post(self.client_url + '/v3/maintenance/status', json={},
                                 timeout=2).json()
        except (requests.RequestException, ValueError):
            return None

    def kill(self):
        """``kill -9`` the member (its data stays for ``start``)."""
        services._stop_pid(self.proc, signal.SIGKILL, 10)
        self.proc = None


class Gateway(services.Service):
    """``etcd gateway start``: the one address tooz is given."""

    name = 'etcd-gateway'
    binaries = ('etcd',)

    def __init__(self, workdir, cluster):
        super().__init__(workdir)
        self.cluster = cluster
        self.port = services.free_port()

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        endpoints = ','.join('127.0.0.1:%d' % m.port for m in self.cluster.members)
        self.proc = self._spawn([
            'etcd', 'gateway', 'start', '--endpoints', endpoints,
            '--listen-addr', '127.0.0.1:%d' % self.port,
            # a refused member is tried again after this long (default 1 minute)
            '--retry-delay', '5s'])
        self._wait_ready(self._healthy)
        return self

    def _healthy(self):
        try:
            return requests.get('http://127.0.0.1:%d/health' % self.port,
                                timeout=2).json().get('health') == 'true'
        except (requests.RequestException, ValueError):
            return False


class EtcdCluster:
    """Three members and a gateway; quacks like :class:`tests.services.Etcd` for tooz."""

    name = 'etcd-cluster'

    def __init__(self, workdir, members=MEMBERS):
        self.dir = os.path.join(str(workdir), self.name)
        self.token = 'berth-ha-%s' % uuid.uuid4().hex[:8]
        self.members = [Member(self.dir, i, self) for i in range(members)]
        self.gateway = Gateway(self.dir, self)
        self.formed_in = None

    @classmethod
    def missing(cls):
        return Member.missing()

    def initial_cluster(self):
        return ','.join('%s=%s' % (m.member, m.peer_url) for m in self.members)

    def url(self, timeout=5):
        return 'etcd3+http://127.0.0.1:%d?timeout=%d' % (self.gateway.port, timeout)

    def start(self):
        """Start the members together (they wait for each other), then the gateway."""
        started = time.monotonic()
        try:
            for member in self.members:
                member.start()
            for member in self.members:
                member.wait_ready()
            self.gateway.start()
        except BaseException:
            self.stop()
            raise
        self.formed_in = time.monotonic() - started
        return self

    def leader(self):
        """Index of the member the live members name as raft leader (None: no answer)."""
        ids = {}
        leader = None
        for member in self.members:
            if member.proc is None:
                continue
            status = member.status()
            if status:
                ids[status['header']['member_id']] = member.index
                leader = status.get('leader', leader)
        return ids.get(leader)

    def kill(self, index):
        self.members[index].kill()

    def start_member(self, index):
        member = self.members[index]
        member.start()
        member.wait_ready()

    def stop_server(self):
        self.stop()

    def stop(self):
        self.gateway.stop()
        for member in self.members:
            member.stop()
