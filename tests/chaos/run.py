"""One chaos run: deployment, topology, load, seeded faults, invariants, the report.

``run()`` is shared by the pytest tier (tests/chaos/test_chaos.py, a short
run with every fault kind once) and ``bench/chaos.py`` (long runs).  The
report has one row per fault kind (and ``none`` for the time between
faults): faults injected, requests sent while that fault was active (from
injection to recovery), 5xx answers, requests without any answer, recovery
and outage times, and invariant violations (which must be 0).
"""

import json
import random
import statistics
import threading
import time
import uuid as uuidlib

import requests
import sqlalchemy as sa

from db import models
from objects.baremetal import node as node_obj
from tests.chaos import deployment, invariants
from tests.chaos import faults as chaos_faults
from tests.chaos import load as chaos_load

LOAD_NODES = 'chaos-load'
RECOVERY_DEADLINE = 120   # seconds after a repair before a fault counts as unrecovered


class Continuous(threading.Thread):
    """Runs the snapshot invariants every ``interval`` s; keeps violations with times."""

    def __init__(self, checker, interval=2.0, out=None):
        super().__init__(daemon=True)
        self.checker = checker
        self.interval = interval
        self.out = out
        self.seen = set()
        self.stopping = threading.Event()
        self.violations = []          # (monotonic time, message)

    def run(self):
        while not self.stopping.wait(self.interval):
            self.sample()

    def sample(self):
        found = self.checker.check()
        now = time.monotonic()
        self.violations += [(now, v) for v in found or ()]
        for line in set(found or ()) - self.seen:      # say it as soon as it is seen
            self.seen.add(line)
            if self.out is not None:
                self.out('chaos: VIOLATION seen: %s' % line)
        return found

    def stop(self):
        self.stopping.set()
        self.join(60)


def _topology(dep, load_providers=12, probe_providers=6, load_nodes=6, probe_nodes=3):
    """Providers (through the API) and nodes (in the database); the provider uuids.

    Sized below what the load holds at once (75 claims for 48 VCPU, 8 node
    allocations for 6 nodes), so writes race for the last units.
    """
    http = requests.Session()
    http.headers.update({'X-Auth-Token': 'admin',
                         'OpenStack-API-Version': 'placement 1.28'})
    base = dep.placement_url
    resp = http.put('%s/resource_classes/%s' % (base, chaos_faults.PROBE_CLASS))
    assert resp.status_code in (201, 204), resp.text

    def provider(name, inventories):
        rp = str(uuidlib.uuid4())
        resp = http.post(base + '/resource_providers', json={'name': name, 'uuid': rp})
        assert resp.status_code == 200, resp.text
        resp = http.put('%s/resource_providers/%s/inventories' % (base, rp), json={
            'resource_provider_generation': 0, 'inventories': inventories})
        assert resp.status_code == 200, resp.text
        return rp

    loads = [provider('chaos-%d' % i, {'VCPU': {'total': 4},
                                       'MEMORY_MB': {'total': 4096}})
             for i in range(load_providers)]
    probes = [provider('chaos-probe-%d' % i, {chaos_faults.PROBE_CLASS: {'total': 100000}})
              for i in range(probe_providers)]
    http.close()
    # the nodes go into the table the database has now (reflected), naming
    # only columns every release has: the rolling upgrade seeds an older
    # release's schema, before this release's expand migration
    engine = sa.create_engine(dep.db_url)
    nodes = sa.Table('nodes', sa.MetaData(), autoload_with=engine)
    with engine.begin() as conn:
        for rc, count in ((LOAD_NODES, load_nodes), (chaos_faults.PROBE_NODES, probe_nodes)):
            for _ in range(count):
                conn.execute(nodes.insert().values(
                    uuid=str(uuidlib.uuid4()), driver='fake-hardware',
                    resource_class=rc, provision_state=node_obj.AVAILABLE,
                    power_state=node_obj.POWER_OFF, maintenance=False,
                    created_at=models._now()))
    engine.dispose()
    return loads, probes


def _percentiles(values):
    values = [v for v in values if v is not None]
    if not values:
        return '-', '-'
    return '%.1f' % statistics.median(values), '%.1f' % max(values)


def summarize(faults, records, violations, end):
    """Rows per fault kind: windows are injection..recovery (or ``end``)."""
    windows = [(f.injected, f.recovered or end, f.kind) for f in faults]

    def kind_at(t):
        for start, stop, kind in windows:
            if start <= t <= stop:
                return kind
        return 'none'

    rows = {}
    for kind in ('none',) + chaos_faults.KINDS:
        mine = [f for f in faults if f.kind == kind]
        rows[kind] = {'faults': len(mine), 'requests': 0, '5xx': 0, 'no_answer': 0,
                      'recovery': _percentiles([f.recovery for f in mine]),
                      'outage': _percentiles([f.outage for f in mine]),
                      'unrecovered': sum(1 for f in mine if f.recovered is None),
                      'violations': 0}
    for record in records:
        row = rows[kind_at(record['t0'])]
        row['requests'] += 1
        if record['status'] is None:
            row['no_answer'] += 1
        elif record['status'] >= 500:
            row['5xx'] += 1
    for t, _ in violations:
        rows[kind_at(t) if t is not None else 'none']['violations'] += 1
    return rows


def print_table(rows, out=print):
    head = ('fault kind', 'faults', 'requests', '5xx', 'no answer', 'recovery p50/max s',
            'outage p50/max s', 'unrecovered', 'violations')
    out(' | '.join(head))
    for kind, r in rows.items():
        out(' | '.join(str(c) for c in (
            kind, r['faults'], r['requests'], r['5xx'], r['no_answer'],
            '%s / %s' % r['recovery'], '%s / %s' % r['outage'], r['unrecovered'],
            r['violations'])))


def run(workdir, seed, minutes=None, each_once=False, kinds=chaos_faults.KINDS,
        tooz='etcd', out=print, plan=None, budget=None):
    """A whole run; the result dict (rows, violations, counts).  See module docstring.

    ``plan`` (``[(gap, kind, hold)]``, default drawn from ``seed``) is the
    fault schedule; ``budget`` the seconds the faults may take, counted from
    the start of the load (deployment start-up excluded): a fault that would
    start past it is not injected, and ``result['stopped']`` says why.
    ``result['injected']`` lists the kinds injected, in order.
    """
    out('chaos: seed %d (replay with --seed %d)' % (seed, seed))
    rng = random.Random(seed)
    started = time.monotonic()
    dep = deployment.Deployment(workdir, conductors=3, tooz=tooz).start()
    out('chaos: deployment up in %.0fs (logs in %s)' % (time.monotonic() - started,
                                                          workdir))
    checker = prober = None
    try:
        providers, probe_rps = _topology(dep)
        checker = invariants.Checker(dep.db_url)
        continuous = Continuous(checker, out=out)
        continuous.start()
        recorder, probes = chaos_load.Recorder(), chaos_load.Recorder()
        prober = chaos_faults.Prober(probes, dep.placement_url, dep.baremetal_url, probe_rps)
        if prober.wait_recovered(120) is None:
            raise deployment.DeploymentError('the fresh deployment does not answer probes')
        traffic = chaos_load.Load(recorder, rng.random(), dep.placement_url,
                                  dep.baremetal_url, providers, LOAD_NODES).start()
        drawn = chaos_faults.schedule(rng.random(), kinds, count=100000, each_once=each_once)
        plan = drawn if plan is None else plan
        end_at = None if minutes is None else time.monotonic() + minutes * 60
        deadline = None if budget is None else time.monotonic() + budget
        done, stopped = [], None
        for gap, kind, hold in plan:
            if end_at is not None and time.monotonic() + gap > end_at:
                break
            if deadline is not None and time.monotonic() + gap > deadline:
                stopped = 'budget of %ss spent before %s' % (budget, kind)
                out('chaos: stopping early: %s' % stopped)
                break
            time.sleep(gap)
            fault = chaos_faults.inject(dep, kind, hold, rng)
            fault.recovered = prober.wait_recovered(RECOVERY_DEADLINE)
            done.append(fault)
            out('chaos: %-18s %-14s hold %4.1fs  recovery %s' % (
                kind, fault.target, hold,
                '%.1fs' % fault.recovery if fault.recovery is not None else 'NEVER'))
            dead = dep.dead()
            if dead:
                continuous.violations.append((time.monotonic(),
                                              'berth processes died: %s' % dead))
            if dead or fault.recovered is None:
                stopped = 'dead: %s' % dead if dead else 'no recovery from %s' % kind
                out('chaos: stopping early: %s' % stopped)
                break
        if end_at is not None:
            time.sleep(max(0, end_at - time.monotonic()))
        traffic.stop()
        end = time.monotonic()
        settled = _settle(checker, prober)
        continuous.stop()
        last = continuous.sample()
        final = [(None, v) for v in (['database unreachable'] if last is None else last)]
        all_records = recorder.snapshot() + probes.snapshot()
        final += [(None, v) for v in invariants.check_records(checker, all_records)]
        with requests.Session() as http:
            http.headers.update({'X-Auth-Token': 'admin',
                                 'OpenStack-API-Version': 'placement 1.28'})
            try:
                final += [(None, v) for v in invariants.check_usages(
                    checker, http, dep.placement_url, providers + probe_rps,
                    chaos_load.PROJECT)]
            except requests.RequestException as exc:
                final.append((None, 'usages: the API did not answer: %s' % exc))
        violations = continuous.violations + final
        rows = summarize(done, recorder.snapshot(), violations, end)
        result = _result(seed, rows, violations, recorder.snapshot(), checker,
                         settled, time.monotonic() - started)
        result['injected'] = [f.kind for f in done]
        result['recovered'] = [f.kind for f in done if f.recovered is not None]
        result['stopped'] = stopped
        _report(result, rows, out)
        return result
    finally:
        if prober is not None:
            prober.close()
        if checker is not None:
            checker.dispose()
        dep.stop()


def _settle(checker, prober, deadline=RECOVERY_DEADLINE):
    """Seconds until the deployment answers probes and nothing is left allocating."""
    start = time.monotonic()
    prober.wait_recovered(deadline)
    while time.monotonic() - start < deadline:
        try:
            if not checker.allocating():
                break
        except Exception:     # the database may still be coming back
            pass
        time.sleep(1)
    return time.monotonic() - start


def _result(seed, rows, violations, records, checker, settled, wall):
    outcomes = {}
    for record in records:
        key = '%s %s %s' % (record['kind'], record['op'], record['outcome'])
        outcomes[key] = outcomes.get(key, 0) + 1
    errors = {}
    for record in records:
        if record['status'] is None or record['status'] >= 500:
            key = '%s %s %s %s' % (record['status'], record['kind'], record['op'],
                                   record['detail'][:120])
            errors[key] = errors.get(key, 0) + 1
    return {'seed': seed, 'wall_s': round(wall, 1), 'settle_s': round(settled, 1),
            'requests': len(records), 'samples': checker.samples,
            'samples_skipped': checker.skipped,
            'violations': [v for _, v in violations], 'outcomes': outcomes,
            'errors': errors, 'rows': {k: dict(v, recovery=list(v['recovery']),
                                               outage=list(v['outage']))
                                       for k, v in rows.items()}}


def _report(result, rows, out):
    out('')
    print_table(rows, out)
    out('')
    out('invariant samples: %d (%d while the database was away); settled in %.1fs'
        % (result['samples'], result['samples_skipped'], result['settle_s']))
    distinct = {}
    for line in result['violations']:
        distinct[line] = distinct.get(line, 0) + 1
    for line, count in list(distinct.items())[:50]:
        out('VIOLATION (x%d): %s' % (count, line))
    for key, count in sorted(result['errors'].items(), key=lambda kv: -kv[1])[:15]:
        out('5xx/no answer x%d: %s' % (count, key))
    out(json.dumps({'seed': result['seed'], 'wall_s': result['wall_s'],
                    'requests': result['requests'],
                    'violations': len(result['violations']),
                    'rows': result['rows'], 'outcomes': result['outcomes']},
                   sort_keys=True))
