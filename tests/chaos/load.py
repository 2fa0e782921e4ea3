"""Load for the chaos runs: claims, schedule-and-claims and node allocations, all recorded.

Every request and its answer is kept in a :class:`Recorder` with an outcome
the invariant checker relies on (see :func:`classify`):

* ``ok``: a 2xx answer; the write is in the database.
* ``refused``: the answer guarantees nothing was written: any 4xx; a 503 whose
  detail says the request was refused before the write (no conductor alive or
  configured, no free conductor worker); and a 503 of
  ``POST /v1/allocations`` that is not a database error (the API deletes
  the row it stored when the cast cannot be sent: "503 leaves nothing
  behind").
* ``ambiguous``: the write may or may not have happened: other 5xx (a
  conductor that did not answer in time may still commit; a broker that
  failed mid-publish may have delivered, a database connection lost during
  the commit may have committed), and no answer at all (connection
  reset by a killed API worker, client timeout).  The checker accepts either
  state for these, but never a partial or different one.
"""

import collections
import random
import threading
import time
import uuid as uuidlib

import requests

PROJECT, USER = 'chaos-project', 'chaos-user'
PLACEMENT_VERSION = '1.28'
BM_HEADERS = {'X-OpenStack-Ironic-API-Version': '1.60'}
CLAIM = {'VCPU': 1, 'MEMORY_MB': 256}
REFUSED_503 = ('no conductor is alive', 'no conductor is configured', 'no free worker',
               'No conductor is available')
TIMEOUT = (5, 60)


def _detail(body):
    if not isinstance(body, dict):
        return ''
    errors = body.get('errors') or []
    if errors and isinstance(errors[0], dict):
        return '%s %s' % (errors[0].get('code', ''), errors[0].get('detail', ''))
    fault = body.get('error_message')
    return str(fault or '')


def classify(kind, op, status, detail):
    """``'ok'``, ``'refused'`` or ``'ambiguous'`` for one answer (module docstring)."""
    if status is None:
        return 'ambiguous'
    if 200 <= status < 300:
        return 'ok'
    if 400 <= status < 500:
        return 'refused'
    if status == 503 and (any(text in detail for text in REFUSED_503)
                          or (kind == 'node' and op == 'create'
                              and 'database' not in detail)):
        return 'refused'
    return 'ambiguous'


class Recorder:
    """Every request and answer of a run (thread-safe append, snapshot reads)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.records = []

    def call(self, session, kind, op, key, method, url, expect=None, **kwargs):
        """Send one request, record it; return ``(status or None, json body or None)``."""
        t0 = time.monotonic()
        status, body, detail = None, None, ''
        try:
            resp = session.request(method, url, timeout=TIMEOUT, **kwargs)
            status = resp.status_code
            try:
                body = resp.json()
            except ValueError:
                body = None
            detail = _detail(body) if status >= 400 else ''
        except requests.RequestException as exc:
            detail = type(exc).__name__
        record = {'kind': kind, 'op': op, 'key': key, 'status': status,
                  'detail': detail[:300], 't0': t0, 't1': time.monotonic(),
                  'outcome': classify(kind, op, status, detail), 'expect': expect}
        with self._lock:
            self.records.append(record)
        return status, body, record

    def snapshot(self):
        with self._lock:
            return list(self.records)


class Worker(threading.Thread):
    """One load thread: ``step()`` until stopped; holds at most ``hold`` writes."""

    def __init__(self, recorder, seed, stop, hold):
        super().__init__(daemon=True)
        self.rec = recorder
        self.rng = random.Random(seed)
        self.stopping = stop
        self.hold = hold
        self.held = collections.deque()
        self.session = requests.Session()

    def run(self):
        while not self.stopping.is_set():
            self.step()
            time.sleep(self.rng.uniform(0, 0.05))
        self.session.close()


class PlacementClaimer(Worker):
    """PUT /allocations/{new consumer} on a random provider; deletes the oldest held."""

    kind = 'claim'

    def __init__(self, recorder, seed, stop, url, providers, hold=15):
        super().__init__(recorder, seed, stop, hold)
        self.url = url
        self.providers = providers
        self.refused = False
        self.session.headers.update({'X-Auth-Token': 'admin',
                                     'OpenStack-API-Version':
                                     'placement %s' % PLACEMENT_VERSION})

    def step(self):
        # delete the oldest at the limit, or when the last claim found no room
        # (else full providers and threads under their limit starve the load)
        if self.held and (len(self.held) >= self.hold or self.refused):
            consumer = self.held.popleft()
            self.rec.call(self.session, self.kind, 'delete', consumer, 'DELETE',
                          '%s/allocations/%s' % (self.url, consumer))
            self.refused = False
            return
        self.refused = self.claim() == 'refused'

    def claim(self):
        consumer = str(uuidlib.uuid4())
        rp = self.rng.choice(self.providers)
        allocations = {rp: {'resources': dict(CLAIM)}}
        status, _, record = self.rec.call(
            self.session, self.kind, 'create', consumer, 'PUT',
            '%s/allocations/%s' % (self.url, consumer), expect=allocations,
            json={'allocations': allocations, 'project_id': PROJECT, 'user_id': USER,
                  'consumer_generation': None})
        if record['outcome'] == 'ok':
            self.held.append(consumer)
        return record['outcome']


class ScheduleClaimer(PlacementClaimer):
    """POST /claims (schedule and claim) of one consumer; deletes the oldest held."""

    kind = 'schedule'

    def claim(self):
        consumer = str(uuidlib.uuid4())
        status, body, record = self.rec.call(
            self.session, self.kind, 'create', consumer, 'POST', self.url + '/claims',
            json={'consumer_uuid': consumer, 'project_id': PROJECT, 'user_id': USER,
                  'resources': dict(CLAIM)})
        if record['outcome'] == 'ok':
            # what the answer says was claimed is what must be stored
            record['expect'] = body['claims'][0]['allocations']
            self.held.append(consumer)
        return record['outcome']


class NodeAllocator(Worker):
    """POST /v1/allocations of a resource class; deletes the oldest held once settled."""

    kind = 'node'

    def __init__(self, recorder, seed, stop, url, resource_class, hold=4):
        super().__init__(recorder, seed, stop, hold)
        self.url = url + '/v1/allocations'
        self.resource_class = resource_class
        self.session.headers.update(BM_HEADERS)

    def step(self):
        if len(self.held) >= self.hold:
            alloc = self.held.popleft()
            status, _, record = self.rec.call(self.session, self.kind, 'delete', alloc,
                                              'DELETE', '%s/%s' % (self.url, alloc))
            if status not in (204, 404) and not self.stopping.is_set():
                self.held.append(alloc)     # still allocating, or refused: again later
            return
        alloc = str(uuidlib.uuid4())
        status, _, record = self.rec.call(
            self.session, self.kind, 'create', alloc, 'POST', self.url,
            json={'uuid': alloc, 'resource_class': self.resource_class})
        if record['outcome'] != 'refused':
            self.held.append(alloc)


class Threads:
    """Worker threads started and stopped together (``self.workers``, ``self.stopping``)."""

    def start(self):
        for worker in self.workers:
            worker.start()
        return self

    def stop(self):
        self.stopping.set()
        for worker in self.workers:
            worker.join(120)


class Load(Threads):
    """The load threads of a run, started and stopped together."""

    def __init__(self, recorder, seed, placement_url, baremetal_url, providers,
                 resource_class, claimers=3, schedulers=2, allocators=2):
        self.stopping = threading.Event()
        rng = random.Random(seed)
        self.workers = (
            [PlacementClaimer(recorder, rng.random(), self.stopping, placement_url,
                              providers) for _ in range(claimers)]
            + [ScheduleClaimer(recorder, rng.random(), self.stopping, placement_url,
                               providers) for _ in range(schedulers)]
            + [NodeAllocator(recorder, rng.random(), self.stopping, baremetal_url,
                             resource_class) for _ in range(allocators)])
