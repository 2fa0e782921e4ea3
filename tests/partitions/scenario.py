"""Network partitions on namespaced hosts: cut one link under load, watch, heal, check.

The deployment of the chaos suite (PostgreSQL, RabbitMQ, etcd, both APIs
under gunicorn, three conductors) runs with the API and every conductor in a
network namespace of its own (:mod:`tests.netns`); the servers stay in the
root namespace, each on its own bridge address, so one host's link to one
server can be cut.  The chaos suite's load, probe and invariant checker run
throughout.  Each case returns one row: requests and 5xx while it lasted,
how long the others took to notice, how long recovery took after the heal,
and the invariant violations seen (which must be 0).
"""

import re
import signal
import time

from common import context as berth_context
from common import rpc
from common.conf import builder
from conductor import ring as conductor_ring
from conductor import rpcapi as conductor_rpcapi
from tests import netns
from tests.chaos import deployment, invariants
from tests.chaos import faults as chaos_faults
from tests.chaos import load as chaos_load
from tests.chaos import run as chaos_run

DEADLINE = 90          # seconds any one observation may take before the case fails
REFUSED_LATE_WRITE = re.compile(r'Allocation \S+ is no longer ours')


def _wait(predicate, deadline=DEADLINE, interval=0.25):
    """Seconds until ``predicate()`` is true, or None when it never was."""
    start = time.monotonic()
    while time.monotonic() - start < deadline:
        try:
            if predicate():
                return time.monotonic() - start
        except Exception:    # a server may be unreachable while we look
            pass
        time.sleep(interval)
    return None


class Cluster:
    """The chaos deployment spread over namespaced hosts, plus an RPC/ring view of it."""

    def __init__(self, workdir, conductors=3):
        self.net = netns.Network().create()
        try:
            self.servers = {name: self.net.server_address()
                            for name in ('rabbitmq', 'postgresql', 'etcd')}
            hosts = ['api'] + ['c%d' % i for i in range(conductors)]
            launch = {name: self.net.add_host(name).wrap for name in hosts}
            self.dep = deployment.Deployment(
                workdir, conductors=conductors, api_workers=2, tooz='etcd',
                host=self.net.hosts['api'].address, service_hosts=self.servers,
                launch=launch)
        except BaseException:
            self.net.destroy()
            raise
        self.ring = self.rpc = self._transport = None

    def start(self):
        try:
            self.dep.start()
            conf = builder.build(config_files=[self.dep.config])
            self._transport = rpc.get_transport(conf)
            self.ring = conductor_ring.Ring(conf).start()
            self.rpc = conductor_rpcapi.ConductorAPI(conf, self._transport, self.ring)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        if self.ring is not None:
            self.ring.stop()
        if self._transport is not None:
            self._transport.cleanup()
        self.dep.stop()
        self.net.destroy()

    def host(self, name):
        return self.net.hosts[name]

    def add_conductor(self, name):
        """A new conductor on a new namespaced host."""
        self.dep.launch[name] = self.net.add_host(name).wrap
        return self.dep.start_conductor(name)

    def members(self):
        self.ring.refresh()
        return self.ring.members()

    def answers_its_share(self, name):
        """True when a key the ring gives ``name`` is answered by ``name`` over RPC."""
        key = next(k for k in ('key-%d' % i for i in range(10000))
                   if self.ring.owner(k) == name)
        return self.rpc.ping(berth_context.admin_context(), key)['host'] == name

    def log_count(self, name, pattern):
        try:
            with open(self.dep.conductors[name].log, errors='replace') as f:
                return len(pattern.findall(f.read()))
        except OSError:
            return 0


class Case:
    """One partition case's row (filled while it runs)."""

    def __init__(self, name):
        self.name = name
        self.start = time.monotonic()
        self.healed = None
        self.end = None
        self.observed = {}          # what the case measured: seconds, counts
        self.failures = []          # expectations that did not hold

    def expect(self, what, seconds):
        """Record an observation; None (it never happened) is a failure."""
        self.observed[what] = None if seconds is None else round(seconds, 1)
        if seconds is None:
            self.failures.append('%s: not within %ss' % (what, DEADLINE))

    def row(self, records, violations):
        mine = [r for r in records if self.start <= r['t0'] <= self.end]
        seen = [v for t, v in violations if t is None or self.start <= t <= self.end]
        cut = [r for r in mine if self.healed is None or r['t0'] <= self.healed]
        return {'case': self.name, 'requests': len(mine),
                'during_cut': len(cut),
                '5xx_during_cut': sum(1 for r in cut if r['status'] and r['status'] >= 500),
                '5xx': sum(1 for r in mine if r['status'] and r['status'] >= 500),
                'no_answer': sum(1 for r in mine if r['status'] is None),
                'recovery_s': (None if self.healed is None or 'recovered' not in self.observed
                               else self.observed['recovered']),
                'observed': dict(self.observed), 'failures': list(self.failures),
                'violations': len(seen)}


def cut_conductor_from_coordination(cluster, prober, name='c0'):
    """Case a: the others see it leave and take over; it rejoins and serves again."""
    case = Case('conductor %s cut from etcd' % name)
    host, etcd = cluster.host(name), cluster.servers['etcd']
    refused_before = cluster.log_count(name, REFUSED_LATE_WRITE)
    host.cut(etcd)
    case.expect('left the ring', _wait(lambda: name not in cluster.members()))
    case.expect('claims flow to the others',
                _after(prober.wait_recovered(DEADLINE), case.start))
    host.heal(etcd)
    case.healed = time.monotonic()
    case.expect('rejoined', _wait(lambda: name in cluster.members()))
    case.expect('serves its share again', _wait(lambda: cluster.answers_its_share(name)))
    case.expect('recovered', _after(prober.wait_recovered(DEADLINE), case.healed))
    case.observed['late writes refused'] = (cluster.log_count(name, REFUSED_LATE_WRITE)
                                            - refused_before)
    case.end = time.monotonic()
    return case


def cut_link(cluster, prober, host_name, server, hold=12):
    """Cases b-d: cut ``host_name`` from ``server`` for ``hold`` s, heal, recover."""
    case = Case('%s cut from %s' % (host_name, server))
    host, address = cluster.host(host_name), cluster.servers[server]
    host.cut(address)
    time.sleep(hold)
    host.heal(address)
    case.healed = time.monotonic()
    case.expect('recovered', _after(prober.wait_recovered(DEADLINE), case.healed))
    case.end = time.monotonic()
    return case


def add_and_drain(cluster, prober, new='c3', drained='c1'):
    """Case e: a conductor joins on a new host, another drains (SIGTERM) under load."""
    case = Case('add %s, drain %s' % (new, drained))
    cluster.add_conductor(new)
    case.expect('joined the ring', _wait(lambda: new in cluster.members()))
    case.expect('serves its share', _wait(lambda: cluster.answers_its_share(new)))
    code = cluster.dep.kill_conductor(drained, signal.SIGTERM)
    case.observed['drained exit code'] = code
    if code != 0:
        case.failures.append('%s exited %s on SIGTERM' % (drained, code))
    case.expect('left the ring', _wait(lambda: drained not in cluster.members()))
    case.healed = time.monotonic()
    case.expect('recovered', _after(prober.wait_recovered(DEADLINE), case.healed))
    case.end = time.monotonic()
    return case


def _after(when, since):
    return None if when is None else when - since


CASES = (
    ('etcd', lambda c, p: cut_conductor_from_coordination(c, p, 'c0')),
    ('rabbitmq', lambda c, p: cut_link(c, p, 'c1', 'rabbitmq')),
    ('database', lambda c, p: cut_link(c, p, 'c2', 'postgresql')),
    ('api-rabbitmq', lambda c, p: cut_link(c, p, 'api', 'rabbitmq')),
    ('add-drain', lambda c, p: add_and_drain(c, p, 'c3', 'c1')),
)


def run(workdir, seed, cases=CASES, out=print):
    """Every case on one cluster under load; ``{'rows', 'violations', ...}``."""
    started = time.monotonic()
    cluster = Cluster(workdir).start()
    out('partitions: cluster up in %.0fs on %s.0/24 (logs in %s)' % (
        time.monotonic() - started, cluster.net.subnet, workdir))
    prober = checker = continuous = traffic = None
    try:
        providers, probe_rps = chaos_run._topology(cluster.dep)
        checker = invariants.Checker(cluster.dep.db_url)
        continuous = chaos_run.Continuous(checker, out=out)
        continuous.start()
        recorder, probes = chaos_load.Recorder(), chaos_load.Recorder()
        prober = chaos_faults.Prober(probes, cluster.dep.placement_url,
                                     cluster.dep.baremetal_url, probe_rps)
        if prober.wait_recovered(120) is None:
            raise deployment.DeploymentError('the fresh cluster does not answer probes')
        traffic = chaos_load.Load(recorder, seed, cluster.dep.placement_url,
                                  cluster.dep.baremetal_url, providers,
                                  chaos_run.LOAD_NODES).start()
        done = []
        for _, play in cases:
            time.sleep(3)
            case = play(cluster, prober)
            done.append(case)
            out('partitions: %-32s %s%s' % (case.name, case.observed,
                                            ' FAILED: %s' % case.failures
                                            if case.failures else ''))
        traffic.stop()
        traffic = None
        settled = chaos_run._settle(checker, prober)
        continuous.stop()
        last = continuous.sample()
        final = [(None, v) for v in (['database unreachable'] if last is None else last)]
        final += [(None, v) for v in invariants.check_records(
            checker, recorder.snapshot() + probes.snapshot())]
        violations = continuous.violations + final
        rows = [case.row(recorder.snapshot(), violations) for case in done]
        return {'seed': seed, 'rows': rows, 'settle_s': round(settled, 1),
                'violations': [v for _, v in violations],
                'wall_s': round(time.monotonic() - started, 1),
                'requests': len(recorder.snapshot())}
    finally:
        if traffic is not None:
            traffic.stop()
        if continuous is not None:
            continuous.stop()
        if prober is not None:
            prober.close()
        if checker is not None:
            checker.dispose()
        cluster.stop()


def print_table(result, out=print):
    out('case | requests | 5xx | during cut (5xx) | no answer | recovery s | violations '
        '| observed')
    for row in result['rows']:
        out('%s | %d | %d | %d (%d) | %d | %s | %d | %s' % (
            row['case'], row['requests'], row['5xx'], row['during_cut'],
            row['5xx_during_cut'], row['no_answer'],
            row['recovery_s'], row['violations'],
            ', '.join('%s %s' % kv for kv in row['observed'].items())))
