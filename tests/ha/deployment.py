"""The chaos deployment on clustered servers, and one run of load across one fault.

:class:`HADeployment` is :class:`tests.chaos.deployment.Deployment` (PostgreSQL,
berth-api under gunicorn, three ``berth-conductor`` processes) with a
three-node RabbitMQ cluster on quorum queues (``rabbit='cluster'``) and/or a
three-member etcd behind a gateway (``tooz='cluster'``), and versioned
notifications on a topic of its own.

:class:`Watched` puts the chaos load on it (claims, schedule-and-claims,
node allocations), listens to the notifications, watches the conductor
ring (a tooz observer) and samples the invariants; :func:`run_fault` adds
one ``fault(dep)`` while the load runs and the ring changes the berth logs
got, and returns what the test asserts: every answer, the invariant
violations, lost acknowledged writes, ring changes, notifications, and the
worst request.  bench/ha_faults.py uses :class:`Watched` for faults over
minutes.
"""

import collections
import os
import re
import shutil
import threading
import time
import uuid as uuidlib

import oslo_messaging as messaging
import requests

from common import rpc
from common.conf import builder
from tests.chaos import deployment as chaos_deployment
from tests.chaos import invariants
from tests.chaos import load as chaos_load
from tests.chaos import run as chaos_run
from tests.ha import etcd_cluster, rabbit_cluster

# what berth's doc/source/deployment.md recommends for a RabbitMQ cluster (berth's
# own default kombu_reconnect_delay = 0.1, common.rpc, is part of it)
RABBIT_CLUSTER_CONF = ('[oslo_messaging_rabbit]\n'
                       'rabbit_quorum_queue = true\n'
                       'rabbit_interval_max = 5\n'
                       'kombu_failover_strategy = round-robin\n'
                       'heartbeat_timeout_threshold = 30\n'
                       '[conductor]\nrpc_send_retries = 6\n')
SETTLE = 120          # liveness bound for the deployment to go quiet (not a timing)
# oslo.messaging's rabbit driver: "... AMQP server on H:P is unreachable" and
# "Reconnected to AMQP server on H:P"
AMQP_LINE = re.compile(r'AMQP server on \S+ is unreachable|Reconnected to AMQP server')
RING_LINE = re.compile(r'Conductor ring \(([^)]+)\): (\d+) members; joined (\[[^\]]*\]), '
                       r'left (\[[^\]]*\])')


def missing_binaries(rabbit, tooz):
    """``{server: [missing binaries]}`` of what an HA deployment needs."""
    found = chaos_deployment.missing_binaries('etcd')
    for kind, cluster in ((rabbit, rabbit_cluster.RabbitCluster),
                          (tooz, etcd_cluster.EtcdCluster)):
        if kind == 'cluster' and cluster.missing():
            found[cluster.name] = cluster.missing()
    return found


def require(rabbit, tooz):
    """Skip loudly (fail under BERTH_REQUIRE_SERVICES=1) unless every server is installed."""
    import pytest
    missing = missing_binaries(rabbit, tooz)
    if missing:
        reason = ('!!! HA tier SKIPPED: servers not installed: %s; install the Debian '
                  'packages (see .ci/run) !!!' % missing)
        if os.environ.get('BERTH_REQUIRE_SERVICES') == '1':
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)


class HADeployment(chaos_deployment.Deployment):
    """The chaos deployment with clustered RabbitMQ and/or etcd (see module docstring)."""

    def __init__(self, workdir, rabbit='cluster', tooz='single', tooz_timeout=5,
                 extra_conf=''):
        self.topic = 'berth_ha_%s' % uuidlib.uuid4().hex[:8]
        extra = ('[oslo_messaging_notifications]\ndriver = messagingv2\ntopics = %s\n'
                 % self.topic)
        if rabbit == 'cluster':
            extra += RABBIT_CLUSTER_CONF
        extra += extra_conf
        super().__init__(workdir, conductors=3, tooz='etcd', tooz_timeout=tooz_timeout,
                         extra_conf=extra)
        if rabbit == 'cluster':
            self.rabbitmq = rabbit_cluster.RabbitCluster(self.workdir)
        if tooz == 'cluster':
            self.tooz = etcd_cluster.EtcdCluster(self.workdir)


class Notifications:
    """A notification listener on the deployment's topic: ``{uuid: [(time, event)]}``."""

    def __init__(self, dep):
        self.conf = builder.build(config_files=[dep.config])
        rpc.register_opts(self.conf)
        self.transport = messaging.get_notification_transport(self.conf)
        self.seen = collections.defaultdict(list)
        self.lock = threading.Lock()
        self.server = messaging.get_notification_listener(
            self.transport, [messaging.Target(topic=dep.topic)], [self],
            executor='threading')
        self.server.start()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        data = payload.get('ironic_object.data', {}) if isinstance(payload, dict) else {}
        with self.lock:
            self.seen[data.get('uuid')].append((time.monotonic(), event_type))

    error = info

    def events(self, uuid):
        with self.lock:
            return [e for _, e in self.seen.get(uuid, ())]

    def stop(self):
        self.server.stop()
        self.server.wait()
        self.transport.cleanup()


class RingWatch(threading.Thread):
    """A tooz observer of the conductor group: every member set it reads, with times."""

    def __init__(self, url):
        super().__init__(daemon=True)
        from tooz import coordination
        self.coord = coordination.get_coordinator(url, b'ha-observer-%s'
                                                  % uuidlib.uuid4().hex[:6].encode())
        self.coord.start()
        self.sets = []            # (monotonic, frozenset of hosts)
        self.errors = 0
        self.stopping = threading.Event()

    def run(self):
        from conductor import ring
        while not self.stopping.wait(0.5):
            try:
                found = self.coord.get_members(ring.GROUP).get()
            except Exception:         # the backend answering nothing is an error, no change
                self.errors += 1
                continue
            self.sets.append((time.monotonic(), frozenset(m.decode() for m in found)))

    def changes(self, expected):
        """Reads that did not return exactly ``expected``."""
        return [(t, sorted(s)) for t, s in self.sets if s != frozenset(expected)]

    def stop(self):
        self.stopping.set()
        self.join(30)
        self.coord.stop()


def log_offsets(workdir):
    """``{log file: size}`` of every berth log now (ring changes are read past these)."""
    return {name: os.path.getsize(os.path.join(workdir, name))
            for name in os.listdir(workdir) if name.endswith('.log')}


def ring_changes(workdir, offsets):
    """Ring rebuilds every berth process logged since ``offsets``: ``[(log, line)]``.

    A process's first ring line is its first read of the group, not a change
    (:func:`ring_first_reads`): an API worker builds its app, ring reader
    included, on its first request (api.wsgi), and under load gunicorn may
    give a worker its first request only after the fault, even during the
    final checks.
    """
    return _ring_lines(workdir, offsets)[0]


def ring_first_reads(workdir, offsets):
    """The first ring line of each berth process that started its ring since ``offsets``."""
    return _ring_lines(workdir, offsets)[1]


def _ring_lines(workdir, offsets):
    """``(changes, first reads)`` since ``offsets``, each ``[(log, line)]``, told apart by
    whether the line's process (its pid, the third field of berth's log format)
    logged a ring line before."""
    changes, first = [], []
    for name in sorted(os.listdir(workdir)):
        if not name.endswith('.log'):
            continue
        with open(os.path.join(workdir, name), 'rb') as f:
            data = f.read()
        cut = offsets.get(name, 0)
        seen = {_pid(line) for line in data[:cut].decode(errors='replace').splitlines()
                if RING_LINE.search(line)}
        for line in data[cut:].decode(errors='replace').splitlines():
            if RING_LINE.search(line):
                (changes if _pid(line) in seen else first).append((name, line.strip()))
                seen.add(_pid(line))
    return changes, first


def _pid(line):
    fields = line.split(None, 3)
    return fields[2] if len(fields) > 2 else None


def log_lines(workdir, offsets, pattern):
    """Lines matching ``pattern`` the berth logs got since ``offsets``: ``[(log, line)]``."""
    found = []
    for name in sorted(os.listdir(workdir)):
        if not name.endswith('.log'):
            continue
        with open(os.path.join(workdir, name), errors='replace') as f:
            f.seek(offsets.get(name, 0))
            found += [(name, line.strip()) for line in f if pattern.search(line)]
    return found


class Watched:
    """The chaos load on ``dep``, with the notification listener, ring observer and sampler.

    Shared by :func:`run_fault` (one fault) and bench/ha_faults.py (faults
    for minutes): ``stop_load()`` ends the traffic, ``finish(since)`` lets the
    deployment settle and checks it.
    """

    def __init__(self, dep, seed=21, out=print):
        self.dep = dep
        self.providers, _ = chaos_run._topology(dep, probe_providers=0, probe_nodes=0)
        self.checker = invariants.Checker(dep.db_url)
        self.continuous = chaos_run.Continuous(self.checker, out=out)
        self.continuous.start()
        self.notes = Notifications(dep)
        self.watch = RingWatch(dep.tooz.url(dep.tooz_timeout))
        self.watch.start()
        self.recorder = chaos_load.Recorder()
        self.traffic = chaos_load.Load(self.recorder, seed, dep.placement_url,
                                       dep.baremetal_url, self.providers,
                                       chaos_run.LOAD_NODES).start()

    def stop_load(self):
        self.traffic.stop()
        return time.monotonic()

    def finish(self, since):
        """Settle and check; the part of run_fault's result that ends the run.

        ``missing_notifications``: settled node allocations created after
        ``since`` without a create notification.
        """
        settled = _settle(self.checker)
        self.continuous.stop()
        self.watch.stop()
        final = self.checker.check() or []
        records = self.recorder.snapshot()
        final += invariants.check_records(self.checker, records)
        with requests.Session() as http:
            http.headers.update({'X-Auth-Token': 'admin',
                                 'OpenStack-API-Version': 'placement 1.28'})
            final += invariants.check_usages(self.checker, http, self.dep.placement_url,
                                             self.providers, chaos_load.PROJECT)
        nodes = self.checker.node_allocations()
        lost = lost_writes(self.checker, records)
        missing_notes = _wait_notifications(self.notes, records, since, nodes)
        self.notes.stop()
        self.checker.dispose()
        return {
            'records': records, 'settled': settled, 'lost': lost,
            'violations': [v for _, v in self.continuous.violations] + final,
            'timed_violations': list(self.continuous.violations),
            'ring_reads': self.watch.changes(self.dep.hosts),
            'ring_read_errors': self.watch.errors,
            'missing_notifications': missing_notes,
            'dead': self.dep.dead(),
        }

    def abort(self):
        """Stop every thread (after an error), checking nothing."""
        self.traffic.stop()
        self.continuous.stop()
        self.watch.stop()
        self.notes.stop()
        self.checker.dispose()


def run_fault(dep, fault, warm=15, after=15, seed=21, out=print):
    """Load ``dep``, call ``fault(dep)`` mid-load; the result dict (module docstring).

    ``fault`` returns ``(injected, repaired)`` monotonic times.
    """
    watched = Watched(dep, seed, out)
    try:
        time.sleep(warm)
        offsets = log_offsets(dep.workdir)
        injected, repaired = fault(dep)
        time.sleep(after)
    except BaseException:
        watched.abort()
        raise
    end = watched.stop_load()
    result = watched.finish(injected)
    result.update({
        'injected': injected, 'repaired': repaired, 'end': end,
        'ring_log': ring_changes(dep.workdir, offsets),
        'ring_first_reads': ring_first_reads(dep.workdir, offsets),
        # the start-up joins: the log check reads the lines it looks for
        'ring_log_all': len(log_lines(dep.workdir, {}, RING_LINE)),
        'amqp_log': log_lines(dep.workdir, offsets, AMQP_LINE),
        'notified_after_kill': sum(1 for u, evs in watched.notes.seen.items() if u and any(
            t > injected for t, _ in evs)),
    })
    report(result, out)
    return result


def assert_rode_through(result):
    """What every one-fault HA test asserts of ``run_fault``'s result: no 5xx and
    no unanswered request, no invariant violated, no berth process dead, and
    answered requests after the repair (the load went on)."""
    records = result['records']
    errors = [(r['kind'], r['op'], r['status'], r['detail']) for r in records
              if r['status'] is None or r['status'] >= 500]
    assert errors == [], errors
    assert sorted(set(result['violations'])) == [], result['violations']
    assert result['dead'] == [], result['dead']
    assert any(r['t0'] > result['repaired'] and r['status'] in (200, 201, 204)
               for r in records), 'no answered request after the repair'


def lost_writes(checker, records):
    """The acknowledged creates (2xx, never deleted) whose write is not stored (quiet run)."""
    by_key = collections.defaultdict(list)
    for record in records:
        by_key[(record['kind'], record['key'])].append(record)
    stored = checker.consumer_allocations()
    nodes = checker.node_allocations()
    lost = []
    for (kind, key), recs in by_key.items():
        want, create = invariants._final_expectation(recs)
        if want != 'present':
            continue
        if kind == 'node':
            gone = nodes.get(key) not in invariants.SETTLED
        else:
            have = stored.get(key)
            gone = have is None or not invariants._same_claim(create['expect'], have)
        if gone:
            lost.append(create)
    return lost


def _settle(checker):
    start = time.monotonic()
    while time.monotonic() - start < SETTLE and checker.allocating():
        time.sleep(1)
    return time.monotonic() - start


def _wait_notifications(notes, records, injected, nodes, deadline=60):
    """Node allocations created after the kill that settled without a create notification."""
    wanted = {r['key'] for r in records if r['kind'] == 'node' and r['op'] == 'create'
              and r['outcome'] == 'ok' and r['t0'] > injected
              and nodes.get(r['key']) in invariants.SETTLED}

    def missing():
        return sorted(u for u in wanted if not any(
            e in ('baremetal.allocation.create.end', 'baremetal.allocation.create.error')
            for e in notes.events(u)))
    end = time.monotonic() + deadline
    while missing() and time.monotonic() < end:
        time.sleep(1)
    return missing()


def report(result, out=print):
    """Print what the HA tier measures (requests, 5xx, worst request, ring, notes)."""
    records = result['records']
    window = [r for r in records if result['injected'] <= r['t0'] <= result['repaired']]
    worst = max(records, key=lambda r: r['t1'] - r['t0'], default=None)
    out('ha: %d requests (%d while the fault was on), %d x 5xx, %d without answer'
        % (len(records), len(window), sum(1 for r in records
                                          if (r['status'] or 0) >= 500),
           sum(1 for r in records if r['status'] is None)))
    if worst is not None:
        out('ha: worst request %.2fs (%s %s %s -> %s), fault %.1fs..%.1fs after load start'
            % (worst['t1'] - worst['t0'], worst['kind'], worst['op'], worst['key'],
               worst['status'], result['injected'] - records[0]['t0'],
               result['repaired'] - records[0]['t0']))
    slow = sorted(records, key=lambda r: r['t0'] - r['t1'])[:5]
    out('ha: slowest requests (start relative to the fault, seconds taken): %s' % ', '.join(
        '%s %s %+.1f %.2fs' % (r['kind'], r['op'], r['t0'] - result['injected'],
                               r['t1'] - r['t0']) for r in slow))
    by_status = collections.Counter((r['kind'], r['op'], r['status']) for r in records)
    out('ha: answers %s' % dict(sorted(by_status.items(), key=str)))
    out('ha: settled in %.1fs; ring rebuilds logged since the fault: %d (and %d first '
        'reads of processes started since); observer reads off the 3 hosts: %d (%d read '
        'errors)' % (result['settled'], len(result['ring_log']),
                     len(result['ring_first_reads']), len(result['ring_reads']),
                     result['ring_read_errors']))
    out('ha: broker disconnections and reconnections logged since the fault: %d'
        % len(result['amqp_log']))
    out('ha: acknowledged writes lost: %d' % len(result['lost']))
    out('ha: allocations notified after the kill: %d; settled ones missing a create '
        'notification: %d' % (result['notified_after_kill'],
                              len(result['missing_notifications'])))
    for line in sorted(set(result['violations']))[:20]:
        out('ha: VIOLATION %s' % line)


def finish(workdir, failed):
    """Keep (and print the ends of) the logs of a failed run; remove a passed one."""
    if failed:
        chaos_deployment.print_log_tails(workdir)
    elif os.environ.get('BERTH_HA_KEEP_LOGS') == '1':
        print('ha: logs kept in %s' % workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)

