"""Rolling upgrade from the previous release under load, in both orders (issue 21).

The previous release (git tag ``previous_release.TAG``) runs from a venv of
its own (:mod:`tests.ha.previous_release`, cached per machine); this tree
runs from the test venv.  PostgreSQL, RabbitMQ and etcd on free loopback
ports are started once for the module; each order gets a new database and
conductor host names of its own (a0-a2, c0-c2), three conductors and the two
APIs (gunicorn,
``--reuse-port`` so a new API master starts on the port before the old one
stops: what a load balancer in front of several API hosts gives an
operator), all of the previous release and ``berth-manage db sync`` of the
previous release.  Under a steady load of claims, schedule-and-claims and
node allocations through the APIs (tests/chaos/load.py):

* ``api_first``: new ``berth-manage db sync`` (expand only); new APIs pinned
  with ``[upgrade_levels] conductor = <old RPC version>``; each conductor
  stopped gracefully (SIGTERM) and started from the new release, one by
  one; the APIs restarted without the pin; ``berth-manage db contract``.
* ``conductors_first``: expand; new conductors one by one beside the old
  APIs; then the new APIs; contract.

Each step waits for answered requests of every kind, not for a time.  Checked:
no 5xx, nothing left ``allocating``, no RPC version error in any process log,
the chaos invariants on a snapshot after every step and continuously, every
answer against the stored state and the usages at the end;
``berth-manage db contract`` refuses while an old conductor runs (checked
in the first order) and ``berth-manage status`` says when it is safe.

Run: ``.venv/bin/pytest -m ha -s tests/ha/test_rolling_upgrade.py`` (prints
a table per order).  Measured on the shared 2-core box (load average
about 24 from other work): api_first 146 s, conductors_first 148 s, the
module 327 s with the servers' start-up.  Before the servers were shared,
four runs took 7.0-9.5 min.  Most of it is process start-ups
(``berth-manage``, conductors, gunicorn masters), not waiting.
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
import requests

from tests import services
from tests.chaos import deployment, invariants
from tests.chaos import load as chaos_load
from tests.chaos import run as chaos_run
from tests.ha import previous_release
from tests.ha.conftest import MARKS

pytestmark = MARKS

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'
# answered requests of each kind a step waits for before the next step
PER_STEP = {'claim': 10, 'schedule': 5, 'node': 4}
STEP_CAP = 180          # seconds a step may wait for them before the test fails
RPC_VERSION_ERRORS = re.compile(
    r'UnsupportedVersion|RPCVersionCapError|does not support RPC version|'
    r'is incompatible\.|needs conductor RPC API')


class MixedDeployment(deployment.Deployment):
    """A chaos deployment whose processes each run the old or the new release."""

    # 0.1.0 neither signs nor verifies RPC messages: a deployment upgrading
    # from it runs unsigned, explicitly, until every process runs the new
    # release (the release note's upgrade section)
    rpc_conf = '[rpc]\nallow_unsigned = true\n'

    def __init__(self, workdir, release, servers, prefix):
        super().__init__(workdir, conductors=3, api_workers=2)
        # the servers are the module's (both orders share them); hosts and
        # the database are each order's own
        shutil.rmtree(self.postgresql.dir, ignore_errors=True)
        self.postgresql, self.rabbitmq, self.tooz = servers
        self.hosts = ['%s%d' % (prefix, i) for i in range(3)]
        self.release = release
        self.old_cwd = os.path.join(self.workdir, 'old-cwd')     # nothing to import
        os.makedirs(self.old_cwd, exist_ok=True)
        self.old_env = previous_release.clean_env(PYTHONWARNINGS='ignore::DeprecationWarning')
        self.runs = {}        # process name -> 'old' | 'new' (+ pin)

    def start(self):
        try:
            subprocess.run([services.PG_BIN + '/psql', '-q', '-h', self.postgresql.host,
                            '-p', str(self.postgresql.port), '-U', 'postgres',
                            '-c', 'DROP DATABASE IF EXISTS berth WITH (FORCE)',
                            '-c', 'CREATE DATABASE berth'], check=True,
                           stdout=subprocess.DEVNULL)
            self._write_config()
            self.manage('old', 'db', 'sync')
            for host in self.hosts:
                self.start_conductor(host, 'old')
            self.replace_apis('old')
        except BaseException:
            self.stop()
            raise
        return self

    def manage(self, release, *args):
        """``berth-manage`` of one release; the CompletedProcess."""
        return self.manage_all((release,) + args)[0]

    def manage_all(self, *calls):
        """Several ``berth-manage`` runs at once (``(release, *args)`` each), in order."""
        procs = []
        for release, *args in calls:
            if release == 'old':
                argv, cwd, env = [self.release.bin('berth-manage')], self.old_cwd, \
                    self.old_env
            else:
                argv, cwd, env = [os.path.join(deployment.BIN, 'berth-manage')], \
                    self.source, self.env
            argv += ['--config-file', self.config] + list(args)
            procs.append((argv, subprocess.Popen(argv, stdout=subprocess.PIPE,
                                                 stderr=subprocess.PIPE, text=True,
                                                 cwd=cwd, env=env)))
        done = []
        for argv, proc in procs:
            out, err = proc.communicate(timeout=300)
            done.append(subprocess.CompletedProcess(argv, proc.returncode, out, err))
        return done

    def start_conductor(self, host, release='new'):
        host_conf = os.path.join(self.workdir, '%s.conf' % host)
        with open(host_conf, 'w') as f:
            f.write('[DEFAULT]\nhost = %s\n' % host)
        old = release == 'old'
        binary = self.release.bin('berth-conductor') if old else \
            os.path.join(deployment.BIN, 'berth-conductor')
        proc = deployment.Process(
            host, [binary, '--config-file', self.config, '--config-file', host_conf],
            os.path.join(self.workdir, '%s.log' % host),
            env=self.old_env if old else self.env, cwd=self.old_cwd if old else self.source)
        since = _log_size(proc.log)
        self.conductors[host] = proc.start()
        self.runs[host] = release
        _wait_for_log(proc, 'Conductor %s started' % host, since)
        return proc

    def start_api(self, name, release='new', pin=None):
        """Start ``name``'s gunicorn of ``release`` on its port (``--reuse-port``).

        ``(running one or None, new Process, its log offset, description)``;
        :meth:`replace_apis` waits for the new one and stops the old one.
        """
        port = self.placement_port if name == 'placement' else self.baremetal_port
        app = 'api.wsgi:application' if name == 'placement' else \
            'api.wsgi:baremetal_application'
        config = self.config
        if pin:
            config = os.path.join(self.workdir, 'api-pinned.conf')
            with open(self.config) as src, open(config, 'w') as dst:
                dst.write(src.read() + '\n[upgrade_levels]\nconductor = %s\n' % pin)
        old = release == 'old'
        if old:
            head = [self.release.bin('python'), '-m', 'gunicorn', '--chdir', self.old_cwd]
            env, cwd = dict(self.old_env, BERTH_CONFIG_FILE=config), self.old_cwd
        else:
            head = [os.path.join(deployment.BIN, 'gunicorn'), '--chdir', self.source]
            env, cwd = dict(self.env, BERTH_CONFIG_FILE=config), self.source
        previous = self.apis.get(name)
        proc = deployment.Process(name, head + [
            '--bind', '%s:%d' % (self.host, port), '--reuse-port',
            '--workers', str(self.api_workers), '--worker-class', 'gthread',
            '--threads', '8', '--timeout', '90', '--graceful-timeout', '10',
            '--preload', '--no-control-socket', '--name', 'berth-' + name, app],
            os.path.join(self.workdir, '%s-%s.log' % (name, release)), env=env, cwd=cwd)
        since = _log_size(proc.log)
        proc.start()
        return previous, proc, since, release + (' pinned to %s' % pin if pin else '')

    def replace_apis(self, release='new', pin=None):
        """Both APIs of ``release``: the new masters answer before the old ones stop."""
        started = {name: self.start_api(name, release, pin)
                   for name in ('placement', 'baremetal')}
        for name, (previous, proc, since, runs) in started.items():
            _wait_for_log(proc, 'Booting worker', since)
        for name, (previous, proc, since, runs) in started.items():
            if previous is not None:
                previous.signal(signal.SIGTERM, wait=60)
            self.apis[name] = proc
            self.runs[name] = runs

    def replace_conductor(self, host):
        """Stop the conductor ``host`` gracefully and start it from the new release."""
        code = self.kill_conductor(host, signal.SIGTERM)
        assert code == 0, 'conductor %s did not stop cleanly (%s):\n%s' % (
            host, code, self.conductors[host].tail())
        self.start_conductor(host, 'new')

    def stop(self):
        """Stop this order's berth processes; the shared servers stay up."""
        procs = list(self.apis.values()) + list(self.conductors.values())
        for proc in procs:
            if proc.alive():
                proc.proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.signal(signal.SIGTERM, wait=30)

    def logs(self):
        return sorted(os.path.join(self.workdir, n) for n in os.listdir(self.workdir)
                      if n.endswith('.log'))


def _log_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _wait_for_log(proc, text, since, deadline=120):
    """Wait until ``proc`` logs ``text`` after offset ``since`` of its (shared) log."""
    end = time.monotonic() + deadline
    while True:
        with open(proc.log, errors='replace') as f:
            f.seek(since)
            if text in f.read():
                return
        if not proc.alive():
            raise deployment.DeploymentError('%s exited:\n%s' % (proc.name, proc.tail()))
        if time.monotonic() > end:
            raise deployment.DeploymentError('%s did not log %r:\n%s'
                                             % (proc.name, text, proc.tail()))
        time.sleep(0.2)


@pytest.fixture(scope='module')
def release():
    """The previous release, built (or from the cache); skip loudly when it cannot be."""
    try:
        return previous_release.build()
    except previous_release.Unavailable as exc:
        # a checkout without the tag's history (RELEASES names its commit):
        # a loud skip here, a failure under BERTH_REQUIRE_SERVICES=1 (CI)
        reason = ('!!! rolling upgrade SKIPPED: cannot build the previous release: %s '
                  '(tag %s) !!!' % (exc, previous_release.TAG))
        if REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)


@pytest.fixture(scope='module')
def servers():
    """PostgreSQL, RabbitMQ and etcd on free loopback ports, shared by both orders."""
    missing = deployment.missing_binaries('etcd')
    if missing:
        reason = ('!!! rolling upgrade SKIPPED: servers not installed: %s !!!' % missing)
        if REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
    workdir = tempfile.mkdtemp(prefix='berth-upgrade-servers-')
    started = []
    try:
        for kind in (services.PostgreSQL, services.Etcd, services.RabbitMQ):
            started.append(kind(workdir).start())
        yield tuple(started[i] for i in (0, 2, 1))    # postgresql, rabbitmq, tooz
    finally:
        for server in reversed(started):
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


class Run:
    """One upgrade run: the deployment, its load, the checks after every step."""

    def __init__(self, release, servers, prefix):
        self.release = release
        self.workdir = tempfile.mkdtemp(prefix='berth-upgrade-')
        self.dep = MixedDeployment(self.workdir, release, servers, prefix)
        self.steps = []              # (name, seconds, requests, 5xx, no answer, violations)
        self.recorder = chaos_load.Recorder()
        self.checker = self.continuous = self.traffic = None

    def start(self):
        t0 = time.monotonic()
        self.dep.start()
        self.providers, _ = chaos_run._topology(self.dep, probe_providers=1, probe_nodes=1)
        self.checker = invariants.Checker(self.dep.db_url)
        self.continuous = chaos_run.Continuous(self.checker, out=print)
        self.continuous.start()
        # a steady load that leaves the 2-core box room for the upgrade itself
        self.traffic = chaos_load.Load(self.recorder, 7, self.dep.placement_url,
                                       self.dep.baremetal_url, self.providers,
                                       chaos_run.LOAD_NODES, claimers=2, schedulers=1,
                                       allocators=2).start()
        self.step('all old (start-up %.0fs)' % (time.monotonic() - t0), lambda: None)
        return self

    def step(self, name, action):
        """Do ``action`` under load, then wait for answers of every kind; record the step."""
        t0 = time.monotonic()
        first = len(self.recorder.snapshot())
        action()
        while True:
            mine = self.recorder.snapshot()[first:]
            answered = {k: sum(1 for r in mine if r['kind'] == k and r['status'])
                        for k in PER_STEP}
            if all(answered[k] >= n for k, n in PER_STEP.items()):
                break
            assert time.monotonic() - t0 < STEP_CAP, (
                'step %r: the load did not flow (%s answered)' % (name, answered))
            time.sleep(0.5)
        found = self.checker.check()
        assert found is not None, 'step %r: the database did not answer' % name
        self.steps.append((name, time.monotonic() - t0, len(mine),
                           sum(1 for r in mine if r['status'] and r['status'] >= 500),
                           sum(1 for r in mine if r['status'] is None), found))
        print('upgrade: %-32s %5.1fs %5d requests %s' % (name, self.steps[-1][1],
                                                         len(mine), found or ''))
        assert not self.dep.dead(), 'step %r: processes died: %s' % (name, self.dep.dead())

    def finish(self):
        """Stop the load, settle, and every final check; the list of problems."""
        self.traffic.stop()
        settled = chaos_run._settle(self.checker, _NoProber())
        self.continuous.stop()
        problems = ['%s (continuous)' % v for _, v in self.continuous.violations]
        last = self.checker.check()
        problems += ['database unreachable at the end'] if last is None else last
        records = self.recorder.snapshot()
        problems += invariants.check_records(self.checker, records)
        with requests.Session() as http:
            http.headers.update({'X-Auth-Token': 'admin',
                                 'OpenStack-API-Version': 'placement 1.28'})
            problems += invariants.check_usages(self.checker, http, self.dep.placement_url,
                                                self.providers, chaos_load.PROJECT)
        problems += ['node allocation %s left allocating' % u
                     for u in self.checker.allocating()]
        errors = [r for r in records if r['status'] and r['status'] >= 500]
        problems += ['%d x 5xx, e.g. %s' % (len(errors), errors[:3])] if errors else []
        for path in self.dep.logs():
            with open(path, errors='replace') as f:
                bad = [line.strip() for line in f if RPC_VERSION_ERRORS.search(line)]
            if bad:
                problems.append('RPC version errors in %s: %s' % (path, bad[:3]))
        for name, _, _, _, _, found in self.steps:
            problems += ['after step %r: %s' % (name, v) for v in found]
        self.report(records, settled)
        return problems

    def report(self, records, settled):
        print('\nrolling upgrade %s -> this tree (logs in %s)'
              % (self.release.tag, self.workdir))
        print('step | seconds | requests | 5xx | no answer | invariant violations')
        for name, seconds, count, e5, none, found in self.steps:
            print('%s | %.1f | %d | %d | %d | %d' % (name, seconds, count, e5, none,
                                                      len(found)))
        print('total requests %d; settled in %.1fs; runs: %s'
              % (len(records), settled, self.dep.runs))
        for r in records:
            if r['status'] is None:
                print('no answer: %s %s %s (%s)' % (r['kind'], r['op'], r['key'],
                                                    r['detail']))

    def close(self, keep):
        if self.traffic is not None and not self.traffic.stopping.is_set():
            self.traffic.stop()          # a failed step: no load into the next test
        if self.continuous is not None and not self.continuous.stopping.is_set():
            self.continuous.stop()
        if self.checker is not None:
            self.checker.dispose()
        self.dep.stop()
        if keep:
            deployment.print_log_tails(self.workdir, 60)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


class _NoProber:
    def wait_recovered(self, _deadline):
        return 0.0


def _contract_refused_while_old(status, contract):
    """Mid-upgrade (an old conductor runs): status says not yet, contract refuses."""
    out = ' '.join(status.stdout.split())
    assert 'Contract step | Warning | Not safe yet' in out, out
    assert '0.1.0' in out, out
    assert contract.returncode == 2 and 'refused' in contract.stderr, (contract.stdout,
                                                                      contract.stderr)


def _contract_when_all_new(run):
    status, contract = run.dep.manage_all(('new', 'status'), ('new', 'db', 'contract'))
    out = ' '.join(status.stdout.split())
    # status ran beside the contract: before it ("safe now") or after it
    assert ('Contract step | Success | Every conductor runs' in out
            or 'Contract step | Warning | Safe now' in out), out
    assert contract.returncode == 0, (contract.stdout, contract.stderr)


def _expand(run, check_refusal):
    done = run.dep.manage('new', 'db', 'sync')
    assert done.returncode == 0, (done.stdout, done.stderr)
    if check_refusal:
        _contract_refused_while_old(*run.dep.manage_all(('new', 'status'),
                                                    ('new', 'db', 'contract')))


def _upgrade(release, servers, order):
    run = Run(release, servers, order[0])
    t0 = time.monotonic()
    problems = ['did not finish']
    try:
        run.start()
        pin = release.rpc_api_version
        # the refusal mid-upgrade is the same in both orders: checked in one
        run.step('db sync (expand)' + ('; contract refused' if order == 'api_first' else ''),
                 lambda: _expand(run, check_refusal=order == 'api_first'))
        if order == 'api_first':
            run.step('new APIs pinned to %s' % pin,
                     lambda: run.dep.replace_apis('new', pin=pin))
        for host in run.dep.hosts:
            run.step('conductor %s new' % host, lambda h=host: run.dep.replace_conductor(h))
        run.step('new APIs, no pin' if order == 'api_first' else 'new APIs',
                 lambda: run.dep.replace_apis('new'))
        run.step('db contract', lambda: _contract_when_all_new(run))
        problems = run.finish()
        print('%s: %.0fs in all' % (order, time.monotonic() - t0))
    finally:
        run.close(keep=bool(problems))
    assert problems == [], problems[:20]


def test_previous_release_builds(release):
    assert release.version() == release.tag
    assert re.fullmatch(r'\d+\.\d+', release.rpc_api_version)


def test_api_first_then_conductors_one_by_one(release, servers):
    _upgrade(release, servers, 'api_first')


def test_conductors_first_then_api(release, servers):
    _upgrade(release, servers, 'conductors_first')
