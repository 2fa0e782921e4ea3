"""Several "hosts" on one machine: Linux network namespaces on a bridge, and cuts between them.

A :class:`Network` is a bridge in the root namespace with a /24 of its own.
Servers (RabbitMQ, PostgreSQL, etcd) stay in the root namespace, each on an
address of its own on the bridge, so a cut can name one server.  Every berth
process that plays a host (the API, each conductor) runs in a namespace of its
own (``ip netns exec``), joined to the bridge by a veth pair.

A cut is a route inside the host's namespace that sends one server's address
to a neighbour that does not exist: packets are dropped silently, as on a real
partition (connects hang, established connections stall), and nothing needs
netfilter or tc actions, which this machine's kernel lacks.  Healing deletes
the route.

Everything is named ``<prefix><run id>…`` and removed by :meth:`Network.destroy`;
:func:`remove_stale` removes what a crashed run left behind.
"""

import os
import random
import subprocess

PREFIX = 'bth'


class NetnsUnavailable(Exception):
    """Namespaces or bridges cannot be made here (not root, no CAP_NET_ADMIN, no ip)."""


def _ip(*args, netns=None, check=True):
    argv = ['ip'] + (['netns', 'exec', netns, 'ip'] if netns else []) + list(args)
    done = subprocess.run(argv, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise NetnsUnavailable('%s: %s' % (' '.join(argv), done.stderr.strip()))
    return done.stdout


def unavailable_reason():
    """Why namespaces cannot be used here, or None when they can."""
    if os.geteuid() != 0:
        return 'network namespaces need root (CAP_NET_ADMIN)'
    name = '%sprobe%d' % (PREFIX, os.getpid())
    try:
        _ip('netns', 'add', name)
        _ip('link', 'set', 'lo', 'up', netns=name)
    except (NetnsUnavailable, OSError) as exc:
        return 'cannot create a network namespace: %s' % exc
    finally:
        subprocess.run(['ip', 'netns', 'del', name], capture_output=True)
    return None


def remove_stale(prefix=PREFIX):
    """Delete namespaces and bridges a crashed earlier run left (by name prefix)."""
    for line in _ip('netns', 'list', check=False).splitlines():
        name = line.split()[0] if line.strip() else ''
        if name.startswith(prefix):
            subprocess.run(['ip', 'netns', 'del', name], capture_output=True)
    for line in _ip('-o', 'link', 'show', 'type', 'bridge', check=False).splitlines():
        name = line.split(':')[1].strip().split('@')[0] if ':' in line else ''
        if name.startswith(prefix):
            subprocess.run(['ip', 'link', 'del', name], capture_output=True)


class Host:
    """One namespace on the network: an address, a way to run in it, cuts."""

    def __init__(self, network, name, ns, address):
        self.network = network
        self.name = name
        self.ns = ns
        self.address = address
        self.cuts = set()

    def wrap(self, argv):
        """``argv`` run inside this host's namespace (``ip netns exec`` execs: same PID)."""
        return ['ip', 'netns', 'exec', self.ns] + list(argv)

    def cut(self, address):
        """Drop this host's traffic to ``address`` (a server's address on the bridge)."""
        _ip('route', 'replace', '%s/32' % address, 'via', self.network.nowhere,
            netns=self.ns)
        self.cuts.add(address)

    def heal(self, address=None):
        """Undo one cut (or every cut of this host)."""
        for target in ([address] if address else sorted(self.cuts)):
            _ip('route', 'del', '%s/32' % target, netns=self.ns, check=False)
            self.cuts.discard(target)


class Network:
    """A bridge with a private /24; hosts (namespaces) and server addresses on it."""

    def __init__(self, prefix=PREFIX):
        self.id = '%04x' % random.randrange(0x10000)
        self.prefix = prefix + self.id
        self.bridge = self.prefix + 'br'
        self.subnet = self._free_subnet()
        # locally administered, unicast, unique per run
        self.mac = '02:62:74:%s:%s:01' % (self.id[:2], self.id[2:])
        self.gateway = self.address(1)
        self.nowhere = self.address(254)      # a neighbour nobody answers for
        self.hosts = {}
        self._next_server = 2
        self._next_host = 100

    def _free_subnet(self):
        used = _ip('-o', '-4', 'addr', 'show', check=False)
        for _ in range(200):
            candidate = '10.%d.%d' % (random.randrange(100, 250), random.randrange(0, 256))
            if ' %s.' % candidate not in used:
                return candidate
        raise NetnsUnavailable('no free 10.x.y.0/24 for the test network')

    def address(self, last):
        return '%s.%d' % (self.subnet, last)

    def create(self):
        _ip('link', 'add', self.bridge, 'type', 'bridge')
        # A bridge whose address nobody set takes the lowest address of its
        # ports, so a host added later (a new veth) can change the address
        # behind every server: the other hosts' ARP entries then point at a
        # MAC that is gone and their traffic to the servers stalls for up to
        # a minute.  An address set here never changes.
        _ip('link', 'set', self.bridge, 'address', self.mac)
        _ip('addr', 'add', '%s/24' % self.gateway, 'dev', self.bridge)
        _ip('link', 'set', self.bridge, 'up')
        return self

    def server_address(self):
        """A new address on the bridge for one server in the root namespace."""
        address = self.address(self._next_server)
        self._next_server += 1
        _ip('addr', 'add', '%s/32' % address, 'dev', self.bridge)
        return address

    def add_host(self, name):
        """A namespace named after ``name`` with an address on the bridge."""
        ns = '%s-%s' % (self.prefix, name)
        index = len(self.hosts)
        outside, inside = '%sv%d' % (self.prefix, index), '%si%d' % (self.prefix, index)
        address = self.address(self._next_host)
        self._next_host += 1
        _ip('netns', 'add', ns)
        _ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside)
        _ip('link', 'set', inside, 'netns', ns)
        _ip('link', 'set', outside, 'master', self.bridge)
        _ip('link', 'set', outside, 'up')
        _ip('addr', 'add', '%s/24' % address, 'dev', inside, netns=ns)
        _ip('link', 'set', inside, 'up', netns=ns)
        _ip('link', 'set', 'lo', 'up', netns=ns)
        host = Host(self, name, ns, address)
        self.hosts[name] = host
        return host

    def destroy(self):
        for host in self.hosts.values():
            subprocess.run(['ip', 'netns', 'del', host.ns], capture_output=True)
        subprocess.run(['ip', 'link', 'del', self.bridge], capture_output=True)
        self.hosts = {}
