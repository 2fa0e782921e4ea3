"""Faults on a seeded random schedule, and the probe that times each recovery.

A fault breaks one part of a :class:`tests.chaos.deployment.Deployment`,
holds it broken for a random time, then repairs it (a restart); an API
worker kill has no repair (gunicorn forks a new worker).  Recovery is the
time from the repair until one full :class:`Prober` round succeeds: a claim
and its deletion on every probe provider (so every conductor that owns one
answers) and a node allocation that reaches ``active`` and is deleted.
"""

import random
import signal
import time
import uuid as uuidlib

import requests

from tests.chaos import load

KINDS = ('conductor_kill9', 'conductor_sigterm', 'rabbitmq_restart',
         'postgresql_restart', 'tooz_restart', 'api_worker_kill')
PROBE_CLASS = 'CUSTOM_CHAOS_PROBE'
PROBE_NODES = 'chaos-probe'


def schedule(seed, kinds=KINDS, count=None, each_once=False, gap=(5, 20), hold=(2, 12)):
    """``[(gap before, kind, hold)]``: each kind once (shuffled) or ``count`` random."""
    rng = random.Random(seed)
    if each_once:
        picked = list(kinds)
        rng.shuffle(picked)
    else:
        picked = [rng.choice(kinds) for _ in range(count)]
    return [(rng.uniform(*gap), kind, rng.uniform(*hold)) for kind in picked]


class Fault:
    """One injected fault: kind, target and its timeline (monotonic seconds)."""

    def __init__(self, kind, target, injected):
        self.kind = kind
        self.target = target
        self.injected = injected
        self.repaired = None
        self.recovered = None

    @property
    def recovery(self):
        """Seconds from the repair to the first full probe round (None: never)."""
        return None if self.recovered is None else self.recovered - self.repaired

    @property
    def outage(self):
        return None if self.recovered is None else self.recovered - self.injected


def inject(dep, kind, hold, rng, stopping=None):
    """Break ``kind``, keep it broken ``hold`` seconds, repair it; the :class:`Fault`."""
    now = time.monotonic
    if kind in ('conductor_kill9', 'conductor_sigterm'):
        host = rng.choice(sorted(dep.live_conductors()))
        sig = signal.SIGKILL if kind == 'conductor_kill9' else signal.SIGTERM
        fault = Fault(kind, host, now())
        dep.kill_conductor(host, sig)
        _hold(hold, stopping)
        dep.start_conductor(host)
    elif kind == 'api_worker_kill':
        api = rng.choice(('placement', 'baremetal'))
        fault = Fault(kind, api, now())
        fault.target = '%s pid %d' % (api, dep.kill_api_worker(api, rng.randrange(64)))
    else:
        part = kind.split('_')[0]
        stop, start = {'rabbitmq': (dep.stop_rabbitmq, dep.start_rabbitmq),
                       'postgresql': (dep.stop_postgresql, dep.start_postgresql),
                       'tooz': (dep.stop_tooz, dep.start_tooz)}[part]
        fault = Fault(kind, part if part != 'tooz' else dep.tooz_kind, now())
        stop()
        _hold(hold, stopping)
        start()
    fault.repaired = now()
    return fault


def _hold(seconds, stopping):
    if stopping is None:
        time.sleep(seconds)
    else:
        stopping.wait(seconds)


class Prober:
    """Rounds of probe requests, recorded like the load (kind ``claim`` / ``node``)."""

    def __init__(self, recorder, placement_url, baremetal_url, providers):
        self.rec = recorder
        self.placement_url = placement_url
        self.nodes_url = baremetal_url + '/v1/allocations'
        self.providers = providers
        self.placement = requests.Session()
        self.placement.headers.update({'X-Auth-Token': 'admin', 'OpenStack-API-Version':
                                       'placement %s' % load.PLACEMENT_VERSION})
        self.baremetal = requests.Session()
        self.baremetal.headers.update(load.BM_HEADERS)

    def round(self):
        """True when every probe claim and one node allocation worked end to end."""
        for rp in self.providers:
            if not self._claim(rp):
                return False
        return self._node()

    def _claim(self, rp):
        consumer = str(uuidlib.uuid4())
        allocations = {rp: {'resources': {PROBE_CLASS: 1}}}
        status, _, _ = self.rec.call(
            self.placement, 'claim', 'create', consumer, 'PUT',
            '%s/allocations/%s' % (self.placement_url, consumer), expect=allocations,
            json={'allocations': allocations, 'project_id': 'chaos-probe',
                  'user_id': 'chaos-probe', 'consumer_generation': None})
        if status != 204:
            return False
        status, _, _ = self.rec.call(self.placement, 'claim', 'delete', consumer, 'DELETE',
                                     '%s/allocations/%s' % (self.placement_url, consumer))
        # a failed delete leaves a probe unit held; capacity is ample
        return status == 204

    def _node(self, settle=20):
        alloc = str(uuidlib.uuid4())
        status, _, _ = self.rec.call(self.baremetal, 'node', 'create', alloc, 'POST',
                                     self.nodes_url, json={'uuid': alloc,
                                                           'resource_class': PROBE_NODES})
        ok = status == 201
        deadline = time.monotonic() + settle
        state = None
        while ok and time.monotonic() < deadline:
            try:
                state = self.baremetal.get('%s/%s' % (self.nodes_url, alloc),
                                           timeout=load.TIMEOUT).json().get('state')
            except (requests.RequestException, ValueError):
                state = None
            if state in ('active', 'error'):
                break
            time.sleep(0.2)
        ok = ok and state == 'active'
        for _ in range(20):         # free the probe node whatever happened
            status, _, _ = self.rec.call(self.baremetal, 'node', 'delete', alloc, 'DELETE',
                                         '%s/%s' % (self.nodes_url, alloc))
            if status in (204, 404):
                break
            time.sleep(0.5)
        return ok and status == 204

    def wait_recovered(self, deadline=180, stopping=None):
        """Probe until a round succeeds; its end time (monotonic), or None."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.round():
                return time.monotonic()
            if stopping is not None and stopping.is_set():
                return None
            time.sleep(0.5)
        return None

    def close(self):
        self.placement.close()
        self.baremetal.close()
