"""Every answer true when a conductor dies or the broker goes (issue 49).

Real servers: RabbitMQ, etcd (tooz membership, a 3 s timeout), PostgreSQL;
two ``berth-conductor`` processes and one ``berth-api`` (one process, its
claims coalesced to the ring owner of that process).

* ``kill -9`` of the conductor that holds the API's claims, under load: every
  claim answers within 15 s (the ring drops it within the tooz timeout, the
  calls in flight and queued for it go to the new owner at once), none
  answers 5xx, and the database agrees with every answer.
* RabbitMQ stops while a claim waits on a stopped (SIGSTOP) conductor: the
  replay cannot be sent, and the answer is 503 ``berth.outcome_unknown`` (the
  claim may have been written), never "the message broker cannot be
  reached", which promises that nothing was.
"""

import collections
import signal
import socket
import threading
import time
import uuid as uuidlib

import pytest

from conductor.rpcapi import routing
from tests import fixtures
from tests.integration import conftest
from tests.integration import test_conductors as tc

pytestmark = conftest.MARKS

TOOZ_TIMEOUT = 3
RPC_TIMEOUT = 30          # the 503 a caller got before: much later than BOUND
BOUND = 15                # the slowest claim answer allowed under kill -9
SIGNING_KEY = 'faults-rpc-test-signing-key-0123456789abcdef'
PROVIDERS = 4
CAPACITY = 10000


class Cluster(tc.Cluster):
    """test_conductors' cluster: a short tooz timeout, signed RPC, one API process."""

    def __init__(self, workdir, rabbitmq, etcd, db_url, tooz_timeout=TOOZ_TIMEOUT):
        super().__init__(workdir, rabbitmq, etcd, db_url)
        text = self.config.read_text()
        text = text.replace('rpc_timeout = 5', 'rpc_timeout = %d' % RPC_TIMEOUT)
        text = text.replace('workers = 16', 'workers = 1')
        text = text.replace(etcd.url(tc.TOOZ_TIMEOUT), etcd.url(tooz_timeout))
        self.config.write_text(text + '[rpc]\nsigning_key = %s\n' % SIGNING_KEY)


@pytest.fixture
def make_cluster(rabbitmq, etcd, pg_synced, tmp_path_factory):
    made = []

    def make(**kw):
        made.append(Cluster(tmp_path_factory.mktemp('faults'), rabbitmq, etcd,
                            pg_synced, **kw))
        return made[-1]
    yield make
    for c in made:
        for proc in c.procs.values():       # a stopped conductor cannot stop
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
        c.stop_all()


def _providers(http, prefix):
    return [tc.add_vcpu_host(http, prefix, vcpu=CAPACITY) for _ in range(PROVIDERS)]


def _claims_owner(cluster):
    """The conductor that gets the API process's coalesced claims (claim_routing = process)."""
    key = routing.process_key('claims', socket.gethostname(), cluster.procs['api'].pid)
    return cluster.ring.owner(key)


def _check_database(http, providers, answers):
    """The invariants: 2xx written, nothing-written 503 absent, usages = allocations."""
    for consumer, rp, status, code, _ in answers:
        got = {p: a['resources'] for p, a in
               http.get('/allocations/%s' % consumer).json()['allocations'].items()}
        if status == 204:
            assert got == {rp: {'VCPU': 1}}, (consumer, got)
        elif code != 'berth.outcome_unknown':
            assert got == {}, (consumer, status, code, got)
    for rp in providers:
        usages = http.get('/resource_providers/%s/usages' % rp).json()['usages']
        allocs = http.get('/resource_providers/%s/allocations' % rp).json()['allocations']
        total = sum(a['resources'].get('VCPU', 0) for a in allocs.values())
        assert usages.get('VCPU', 0) == total <= CAPACITY, (rp, usages, total)


def _claimer(url, providers, answers, lock, stop):
    http = fixtures.PlacementClient(url, version='1.28')
    i = 0
    while not stop.is_set():
        consumer, rp = str(uuidlib.uuid4()), providers[i % len(providers)]
        i += 1
        started = time.monotonic()
        resp = http.put('/allocations/%s' % consumer, timeout=RPC_TIMEOUT + 30, json={
            'allocations': {rp: {'resources': {'VCPU': 1}}}, 'consumer_generation': None,
            'project_id': str(uuidlib.uuid4()), 'user_id': str(uuidlib.uuid4())})
        took = time.monotonic() - started
        code = None
        if resp.status_code >= 400:
            code = resp.json()['errors'][0].get('code')
        with lock:
            answers.append((consumer, rp, resp.status_code, code, took))
    http.close()


def test_kill_9_of_the_claims_conductor_answers_every_claim_in_15s(make_cluster,
                                                                  tmp_path_factory):
    cluster = make_cluster()
    with cluster.serving(['k1', 'k2'], tmp_path_factory.mktemp('api')):
        http = fixtures.PlacementClient(cluster.api_url, version='1.28')
        providers = _providers(http, 'kill9')
        victim = _claims_owner(cluster)
        answers, lock, stop = [], threading.Lock(), threading.Event()
        threads = [threading.Thread(target=_claimer, args=(cluster.api_url, providers,
                                                           answers, lock, stop))
                   for _ in range(6)]
        for t in threads:
            t.start()
        time.sleep(3)
        cluster.procs[victim].send_signal(signal.SIGKILL)
        killed = time.monotonic()
        tc.wait_for(lambda: victim not in cluster.ring.members(), 'the ring to drop it')
        dropped = time.monotonic() - killed
        time.sleep(BOUND + 3)
        stop.set()
        for t in threads:
            t.join(RPC_TIMEOUT + 40)
        cluster.procs.pop(victim).wait(10)
        statuses = collections.Counter(a[2] for a in answers)
        worst = max(a[4] for a in answers)
        print('kill -9 of %s: the ring dropped it after %.1fs; %d claims %s; the '
              'slowest answered in %.1fs' % (victim, dropped, len(answers),
                                             dict(statuses), worst))
        assert set(statuses) == {204}, statuses
        assert worst <= BOUND, worst
        _check_database(http, providers, answers)
        http.close()


def test_broker_gone_after_a_claim_went_out_answers_outcome_unknown(
        make_cluster, rabbitmq, tmp_path_factory):
    # a long tooz timeout: the stopped conductor stays in the ring throughout
    cluster = make_cluster(tooz_timeout=60)
    with cluster.serving(['u1'], tmp_path_factory.mktemp('api')):
        http = fixtures.PlacementClient(cluster.api_url, version='1.28')
        providers = _providers(http, 'unknown')
        cluster.procs['u1'].send_signal(signal.SIGSTOP)
        answers, lock = [], threading.Lock()
        claimer = threading.Thread(target=_claimer, args=(
            cluster.api_url, providers[:1], answers, lock, _Once()))
        try:
            claimer.start()
            time.sleep(4)       # the first attempt went out and timed out (2.5 s)
            rabbitmq.stop_broker()
            claimer.join(RPC_TIMEOUT + 40)
        finally:
            cluster.procs['u1'].send_signal(signal.SIGCONT)
            if rabbitmq.proc is None:
                rabbitmq.start()
        assert len(answers) == 1, answers
        consumer, _, status, code, took = answers[0]
        print('claim answered %d %s after %.1fs' % (status, code, took))
        assert (status, code) == (503, 'berth.outcome_unknown'), answers
        http.close()


class _Once:
    """An Event-like stop flag that lets one loop round run."""

    def __init__(self):
        self.rounds = 0

    def is_set(self):
        self.rounds += 1
        return self.rounds > 1


def test_a_stopped_conductor_writes_nothing_its_callers_sent_elsewhere(make_cluster,
                                                                      tmp_path_factory):
    """SIGSTOP: the claim goes to the new owner; after SIGCONT the first never lands.

    The claim is deleted through the new owner while the first conductor is
    stopped; if the first conductor then committed the claim it was sent
    (its deadline is far away), the consumer would have allocations again.
    """
    cluster = make_cluster()
    with cluster.serving(['s1', 's2'], tmp_path_factory.mktemp('api')):
        http = fixtures.PlacementClient(cluster.api_url, version='1.28')
        rp = _providers(http, 'sigstop')[0]
        victim = _claims_owner(cluster)
        cluster.procs[victim].send_signal(signal.SIGSTOP)
        try:
            answers, lock = [], threading.Lock()
            _claimer(cluster.api_url, [rp], answers, lock, _Once())
            consumer, _, status, code, took = answers[0]
            print('claim sent to stopped %s answered %d %s after %.1fs'
                  % (victim, status, code, took))
            assert status == 204 and took <= BOUND, answers
            assert victim not in cluster.ring.members()
            assert http.delete('/allocations/%s' % consumer).status_code == 204
        finally:
            cluster.procs[victim].send_signal(signal.SIGCONT)
        # the resumed conductor gets the claim it was sent (deadline: 30 s on)
        tc.wait_for(lambda: victim in cluster.ring.members(), 'it to join again')
        time.sleep(3)
        got = http.get('/allocations/%s' % consumer).json()['allocations']
        assert got == {}, got
        _check_database(http, [rp], [])
        log = (cluster.workdir / ('%s.log' % victim)).read_text()
        assert 'sent before this conductor last joined' in log, log[-3000:]
        http.close()
