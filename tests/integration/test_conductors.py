"""berth-conductor processes over real RabbitMQ, etcd and PostgreSQL.

Three conductors join the ring; calls go to ring owners; a conductor killed
with ``kill -9`` leaves the ring within the tooz timeout and calls flow to
the others; an added conductor joins under load; a stopped broker turns calls
into ServiceUnavailable until it is back.  The tests of this module share one
cluster and run in order.
"""

import collections
import contextlib
import os
import signal
import subprocess
import threading
import time
import uuid as uuidlib

import pytest
import requests

from common import context as berth_context
from common import exception
from common.conf import builder
from conductor import rpcapi
from tests import fixtures, services
from tests.functional import metrics_helpers as mh
from tests.integration import conftest

pytestmark = conftest.MARKS

TOOZ_TIMEOUT = 5          # seconds a kill -9'd member stays in the group
SETTLE_DEADLINE = 60      # generous bound for waits on a loaded CI box


def wait_for(predicate, what, deadline=SETTLE_DEADLINE, interval=0.1):
    """Poll ``predicate`` until true; return the seconds it took."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > deadline:
            pytest.fail('timed out after %ss waiting for %s' % (deadline, what))
        time.sleep(interval)
    return time.monotonic() - start


class Cluster:
    """berth-conductor processes sharing one configuration file."""

    def __init__(self, workdir, rabbitmq, etcd, db_url):
        self.workdir = workdir
        self.config = workdir / 'berth.conf'
        self.config.write_text(
            '[DEFAULT]\ntransport_url = %s\n'
            '[database]\nconnection = %s\n'
            '[coordination]\nbackend_url = %s\nwatch_interval = 0.5\n'
            'ring_refresh_interval = 2\n'
            '[conductor]\nrpc_timeout = 5\nworkers = 8\n'
            '[oslo_messaging_rabbit]\nrabbit_retry_interval = 1\n'
            'rabbit_retry_backoff = 1\n'
            '[api]\nauth_strategy = noauth2\nplacement_port = %d\nbaremetal_port = %d\n'
            'workers = 16\n'
            % (rabbitmq.url, db_url, etcd.url(TOOZ_TIMEOUT), services.free_port(),
               services.free_port()) + services.RPC_CONF)
        self.procs = {}
        self.api_url = None

    def start_api(self):
        """A berth-api process on this cluster; its Placement URL once it answers."""
        log_path = self.workdir / 'api.log'
        log = open(log_path, 'ab')
        self.procs['api'] = subprocess.Popen(
            [conftest.bin_path('berth-api'), '--config-file', str(self.config)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
        log.close()
        url = 'http://127.0.0.1:%s' % self.config.read_text().split(
            'placement_port = ')[1].split()[0]

        def answers():
            try:
                return requests.get(url, timeout=1).status_code == 200
            except requests.RequestException:
                assert self.procs['api'].poll() is None, log_path.read_text()[-3000:]
                return False
        wait_for(answers, 'berth-api to answer')
        self.api_url = url
        return url

    def start(self, host, extra=''):
        host_conf = self.workdir / ('%s.conf' % host)
        host_conf.write_text('[DEFAULT]\nhost = %s\n%s' % (host, extra))
        log = open(self.workdir / ('%s.log' % host), 'ab')
        self.procs[host] = subprocess.Popen(
            [conftest.bin_path('berth-conductor'), '--config-file', str(self.config),
             '--config-file', str(host_conf)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
        log.close()

    def signal(self, host, sig):
        proc = self.procs.pop(host)
        proc.send_signal(sig)
        proc.wait(60)
        return proc.returncode

    def stop_all(self):
        for host in list(self.procs):
            proc = self.procs[host]
            if proc.poll() is None:
                self.signal(host, signal.SIGTERM)

    def client_conf(self, tmp_path):
        return builder.build(['--config-file', str(self.config)], config_files=[],
                             overrides={'state_path': str(tmp_path)})

    @contextlib.contextmanager
    def serving(self, hosts, api_dir):
        """Conductors ``hosts`` in the ring and ``berth-api`` up; all stopped after.

        ``self.ring`` is a ring reader (for routing assertions) while it runs.
        """
        for host in hosts:
            self.start(host)
        client = rpcapi.APIConductorClient(self.client_conf(api_dir))
        try:
            wait_for(lambda: client.ring.members() == set(hosts),
                     '%d conductors in the ring' % len(hosts))
            self.start_api()
            self.ring = client.ring
            yield self
        finally:
            client.stop()
            self.stop_all()


def add_vcpu_host(http, prefix, vcpu=100):
    """A new provider named ``prefix-<uuid>`` with ``vcpu`` VCPU; its uuid."""
    rp = str(uuidlib.uuid4())
    assert http.post('/resource_providers', version='1.14',
                     json={'name': '%s-%s' % (prefix, rp), 'uuid': rp}).status_code == 201
    resp = http.put('/resource_providers/%s/inventories' % rp, version='1.26', json={
        'resource_provider_generation': 0, 'inventories': {'VCPU': {'total': vcpu}}})
    assert resp.status_code == 200, resp.text
    return rp


@pytest.fixture(scope='module')
def cluster(rabbitmq, etcd, pg_synced, tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp('cluster'), rabbitmq, etcd, pg_synced)
    yield c
    c.stop_all()


@pytest.fixture(scope='module')
def api(cluster, tmp_path_factory):
    """The API's RPC client (a ring reader) in this process."""
    conf = cluster.client_conf(tmp_path_factory.mktemp('api'))
    client = rpcapi.APIConductorClient(conf)
    yield client
    client.stop()


def _ping_all(api, keys):
    ctx = berth_context.admin_context()
    return {key: api.ping(ctx, key)['host'] for key in keys}


KEYS = ['tree-%03d' % i for i in range(60)]


def test_three_conductors_answer_for_their_keys(cluster, api):
    for host in ('c0', 'c1', 'c2'):
        cluster.start(host)
    settle = wait_for(lambda: api.ring.members() == {'c0', 'c1', 'c2'},
                      'three conductors in the ring')
    print('ring settled with 3 conductors after %.2fs' % settle)
    answered = _ping_all(api, KEYS)
    assert answered == {key: api.ring.owner(key) for key in KEYS}
    assert set(answered.values()) == {'c0', 'c1', 'c2'}
    # RPC round trip over RabbitMQ (a measurement, not an assertion)
    ctx = berth_context.admin_context()
    samples = []
    for i in range(200):
        t = time.perf_counter()
        api.ping(ctx, KEYS[i % len(KEYS)])
        samples.append(time.perf_counter() - t)
    samples.sort()
    print('rabbit ping round trip: median %.2f ms, p95 %.2f ms'
          % (samples[100] * 1e3, samples[190] * 1e3))


def test_kill_9_leaves_the_ring_and_calls_flow_to_the_others(cluster, api):
    victim = api.ring.owner(KEYS[0])
    cluster.signal(victim, signal.SIGKILL)
    killed = time.monotonic()
    wait_for(lambda: victim not in api.ring.members(), 'the ring to drop %s' % victim)
    print('ring dropped the kill -9ed %s after %.2fs (tooz timeout %ss)'
          % (victim, time.monotonic() - killed, TOOZ_TIMEOUT))
    answered = _ping_all(api, KEYS)
    assert victim not in answered.values()
    assert set(answered.values()) == {'c0', 'c1', 'c2'} - {victim}
    cluster.start(victim)          # back to three for the next tests
    wait_for(lambda: victim in api.ring.members(), '%s to rejoin' % victim)


class Load:
    """Pings from a few threads until stopped; every call's outcome is kept."""

    def __init__(self, api, threads=4):
        self.api = api
        self.stopping = threading.Event()
        self.answers = []
        self.errors = []
        self.threads = [threading.Thread(target=self._run, args=(i,)) for i in range(threads)]

    def _run(self, n):
        ctx = berth_context.admin_context()
        i = n
        while not self.stopping.is_set():
            key = KEYS[i % len(KEYS)]
            i += len(self.threads)
            try:
                self.answers.append(self.api.ping(ctx, key)['host'])
            except exception.ServiceUnavailable as exc:
                self.errors.append(exc)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for t in self.threads:
            t.join(60)


def test_added_conductor_joins_under_load(cluster, api):
    with Load(api) as load:
        wait_for(lambda: len(load.answers) > 50, 'calls to flow')
        cluster.start('c3')
        settle = wait_for(lambda: 'c3' in api.ring.members(), 'c3 to join')
        wait_for(lambda: 'c3' in load.answers, 'c3 to answer')
    print('c3 joined the ring %.2fs after its start; %d calls, %d refused'
          % (settle, len(load.answers), len(load.errors)))
    assert load.errors == []
    assert set(load.answers) == {'c0', 'c1', 'c2', 'c3'}


def test_graceful_stop_drops_no_call(cluster, api):
    victim = api.ring.owner(KEYS[1])
    with Load(api) as load:
        wait_for(lambda: len(load.answers) > 50, 'calls to flow')
        assert cluster.signal(victim, signal.SIGTERM) == 0
        wait_for(lambda: victim not in api.ring.members(), 'the ring to drop %s' % victim)
        before = len(load.answers)
        wait_for(lambda: len(load.answers) > before + 50, 'calls after the stop')
    assert load.errors == []
    assert victim not in _ping_all(api, KEYS).values()


def test_claims_flow_while_conductors_die_and_join(cluster, api):
    """Every claim is answered; no provider ends over capacity; 204s are all kept."""
    client = fixtures.PlacementClient(cluster.start_api(), version='1.28')
    capacity = 12
    rps = []
    for i in range(9):
        rp = str(uuidlib.uuid4())
        assert client.post('/resource_providers', version='1.14',
                           json={'name': 'claims-%d' % i, 'uuid': rp}).status_code == 201
        resp = client.put('/resource_providers/%s/inventories' % rp, version='1.26', json={
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': capacity}}})
        assert resp.status_code == 200, resp.text
        rps.append(rp)
    outcomes = collections.defaultdict(collections.Counter)   # rp -> status -> count
    lock = threading.Lock()
    stopping = threading.Event()

    def claimer(n):
        session = fixtures.PlacementClient(client.base_url, version='1.28')
        i = n
        while not stopping.is_set():
            rp = rps[i % len(rps)]
            i += 1
            resp = session.put('/allocations/%s' % uuidlib.uuid4(), json={
                'allocations': {rp: {'resources': {'VCPU': 1}}},
                'project_id': 'p', 'user_id': 'u', 'consumer_generation': None})
            code = resp.status_code
            if code >= 400:
                code = '%d %s' % (code, resp.json()['errors'][0].get('code'))
            with lock:
                outcomes[rp][code] += 1
        session.close()

    threads = [threading.Thread(target=claimer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    try:
        wait_for(lambda: sum(o[204] for o in outcomes.values()) >= 20, 'claims to flow')
        victim = api.ring.owner(rps[0])
        cluster.signal(victim, signal.SIGKILL)
        wait_for(lambda: victim not in api.ring.members(), 'the ring to drop %s' % victim)
        cluster.start('c4')
        wait_for(lambda: 'c4' in api.ring.members(), 'c4 to join')
        wait_for(lambda: all(sum(o.values()) > capacity for o in outcomes.values()),
                 'every provider to be asked for more than it has', deadline=180)
    finally:
        stopping.set()
        for t in threads:
            t.join(60)
    print('claims per outcome: %s' % dict(sum(outcomes.values(), collections.Counter())))
    for rp in rps:
        got = outcomes[rp]
        assert set(got) <= {204, '409 placement.undefined_code',
                            '503 berth.service_unavailable'}, got
        used = client.get('/resource_providers/%s/usages' % rp).json()['usages']['VCPU']
        # a claim answered 503 (owner killed mid-call) may or may not be written
        assert got[204] <= used <= min(capacity, got[204] + got['503 berth.service_unavailable'])
    assert sum(o[204] for o in outcomes.values()) > 0
    client.close()


def test_broker_down_is_service_unavailable_until_it_returns(cluster, api, rabbitmq):
    ctx = berth_context.admin_context()
    api.ping(ctx, KEYS[0])
    http = fixtures.PlacementClient(cluster.api_url or cluster.start_api(), version='1.28')
    rp = str(uuidlib.uuid4())
    assert http.post('/resource_providers', version='1.14',
                     json={'name': 'broker-test', 'uuid': rp}).status_code == 201
    assert http.put('/resource_providers/%s/inventories' % rp, version='1.26', json={
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 4}}}).status_code == 200

    def claim():
        return http.put('/allocations/%s' % uuidlib.uuid4(), json={
            'allocations': {rp: {'resources': {'VCPU': 1}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None})

    rabbitmq.stop_broker()
    try:
        with pytest.raises(exception.ServiceUnavailable):
            api.ping(ctx, KEYS[0])
        resp = claim()
        assert resp.status_code == 503, resp.text
        assert resp.json()['errors'][0]['code'] == 'berth.service_unavailable'
    finally:
        rabbitmq.start()
    recovered = wait_for(lambda: _answers(api, ctx), 'calls to work again',
                         deadline=120, interval=0.5)
    print('calls work again %.2fs after the broker is back' % recovered)
    # the API process recovers by itself too
    wait_for(lambda: claim().status_code == 204, 'claims over HTTP to work again',
             deadline=120, interval=0.5)
    assert http.get('/resource_providers/%s/usages' % rp).json()['usages']['VCPU'] >= 1
    http.close()
    assert set(_ping_all(api, KEYS).values()) <= {'c0', 'c1', 'c2', 'c3', 'c4'}


def _answers(api, ctx):
    try:
        api.ping(ctx, KEYS[0])
        return True
    except exception.ServiceUnavailable:
        return False


def _sessions_alive(sids):
    """``{pid: session}`` of every process still in one of the sessions ``sids``.

    Each process the cluster starts leads a session of its own
    (start_new_session), so anything it forked is found here too.
    """
    found = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except OSError:            # gone while we looked
            continue
        if fields[0] != 'Z' and int(fields[3]) in sids:     # state, session
            found[int(entry)] = int(fields[3])
    return found


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def assert_no_orphans(cluster):
    """Stop every process of ``cluster``; none of them nor their children survive."""
    pids = {name: proc.pid for name, proc in cluster.procs.items() if proc.poll() is None}
    assert pids, 'nothing running: the check would prove nothing'
    assert not any(_gone(pid) for pid in pids.values())
    cluster.stop_all()
    assert cluster.procs == {}
    assert [name for name, pid in pids.items() if not _gone(pid)] == []
    assert _sessions_alive(set(pids.values())) == {}


def test_no_orphan_processes(cluster):
    cluster.start('orphan-check')       # at least one process, whatever ran before
    assert_no_orphans(cluster)


def test_conductor_metrics_listener(cluster, api):
    """berth-conductor with [metrics] conductor_port = 0 serves its own /metrics."""
    cluster.start('cm', extra='[metrics]\nconductor_port = 0\n')
    log = cluster.workdir / 'cm.log'
    wait_for(lambda: 'metrics on http://' in log.read_text(), 'the metrics listener')
    url = log.read_text().split('metrics on ')[1].split()[0]
    wait_for(lambda: 'cm' in api.ring.members(), 'cm to join')
    text = requests.get(url, timeout=30).text
    assert mh.value(text, 'berth_conductor_worker_slots', conductor='cm') == 8
    assert mh.value(text, 'berth_ring_members', ring='cm') >= 1
    assert mh.value(text, 'berth_ring_rebalances_total', ring='cm') >= 1
    assert cluster.signal('cm', signal.SIGTERM) == 0
