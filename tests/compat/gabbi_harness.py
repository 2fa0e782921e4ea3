"""Placement's gabbi files, each against a berth of its own, through the suite venv's gabbi.

For every YAML file: a fresh embedded berth (a copy of a migrated SQLite
file, free loopback ports, noauth2, the file's fixture settings), the file's
fixture data made through the REST API (:mod:`tests.compat.gabbi_fixtures`),
then the file run by a :class:`Driver` (``tests/compat/gabbi_driver.py``
under the venv's python, a long-lived subprocess that answers one JSON line
per file).  ``workers`` files run at once, each on its own driver and berth.
Nothing of Placement is imported here: its YAML files are read as data.
"""

import collections
import concurrent.futures
import glob
import json
import os
import queue
import subprocess
import threading
import time
import traceback

from oslo_middleware import cors
from oslo_policy import opts as policy_opts
import yaml

from common.policies import placement as placement_policies
from tests import fixtures
from tests.compat import gabbi_fixtures

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gabbi_driver.py')
FILE_TIMEOUT = 300
START_LOCK = threading.Lock()
PASSED, FAILED, SKIPPED = 'passed', 'failed', 'skipped'
# a driver's status -> how the tier counts it (gabbi's xfail is a test that
# upstream expects to fail and that does: a pass of the suite)
COUNT_AS = {'pass': PASSED, 'xfail': PASSED, 'skip': SKIPPED,
            'fail': FAILED, 'error': FAILED, 'xpass': FAILED}


class DriverDied(Exception):
    """The gabbi driver process stopped answering."""


class Driver:
    """One ``gabbi_driver.py`` process in the suite venv; jobs in, JSON lines out."""

    def __init__(self, python, log_path):
        self.log = open(log_path, 'ab')
        self.proc = subprocess.Popen([python, DRIVER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, bufsize=1)
        self.answers = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True,
                                       name='gabbi-driver-%d' % self.proc.pid)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def run(self, job, timeout=FILE_TIMEOUT):
        self.proc.stdin.write(json.dumps(job) + '\n')
        self.proc.stdin.flush()
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise DriverDied('no answer for %s within %ss' % (job['file'], timeout)) from None
        if line is None:
            raise DriverDied('the driver exited (%s) on %s' % (self.proc.wait(), job['file']))
        return json.loads(line)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.reader.join(timeout=30)
        self.log.close()


def gabbit_files(venv):
    """The gabbit YAML files of the openstack-placement distribution in ``venv``."""
    found = sorted(glob.glob(os.path.join(
        venv, 'lib', 'python*', 'site-packages', 'placement', 'tests', 'functional',
        'gabbits', '*.yaml')))
    return found


def declared_fixtures(path):
    with open(path) as f:
        return list(yaml.safe_load(f).get('fixtures') or [])


def configure(conf, overrides):
    """``conf`` with ``{'group.name': value}`` set (oslo.policy's options registered first)."""
    for group, opts in policy_opts.list_opts():
        conf.register_opts(opts, group=group)
    conf.register_opts(cors.CORS_OPTS, 'cors')
    for key, value in overrides.items():
        group, _, name = key.rpartition('.')
        conf.set_override(name, value, group=group)
    return conf


FileResult = collections.namedtuple('FileResult', 'name results seconds')


class Runner:
    """Runs gabbit files on fresh berths; ``run_all(files)`` -> [FileResult]."""

    def __init__(self, venv, work_dir, workers=2):
        self.python = os.path.join(venv, 'bin', 'python')
        self.work_dir = str(work_dir)
        self.workers = workers
        self.rules = [rule.name for rule in placement_policies.list_rules()]
        self.stoppers = []

    def _stop_later(self, stack):
        """berth's stop waits on its servers' shutdown: off the files' path."""
        thread = threading.Thread(target=stack.stop, daemon=True, name='stop-berth')
        thread.start()
        self.stoppers.append(thread)

    def run_file(self, path, driver):
        name = os.path.basename(path)
        started = time.monotonic()
        names = declared_fixtures(path)
        state = os.path.join(self.work_dir, os.path.splitext(name)[0])
        os.makedirs(state, exist_ok=True)
        conf = configure(fixtures.make_conf(state),
                         gabbi_fixtures.settings(names, state, self.rules))
        fixtures.fresh_database(self.work_dir, conf)
        with START_LOCK:   # alembic's migration context is process-global
            stack = fixtures.start_embedded(conf)
        client = fixtures.PlacementClient(stack.placement_url, token='admin')
        try:
            env = gabbi_fixtures.seed(names, client)
            host, port = stack.servers['placement'].address
            answer = driver.run({'file': path, 'host': host, 'port': port, 'environ': env})
        finally:
            client.close()
            self._stop_later(stack)
        return FileResult(name, answer['results'], time.monotonic() - started)

    def run_all(self, files):
        drivers = queue.Queue()
        made = [Driver(self.python, os.path.join(self.work_dir, 'driver-%d.log' % i))
                for i in range(self.workers)]
        for d in made:
            drivers.put(d)

        def one(path):
            driver = drivers.get()
            started = time.monotonic()
            try:
                return self.run_file(path, driver)
            except Exception:   # the harness's own trouble: an error of the whole file
                return FileResult(os.path.basename(path), [{
                    'name': '<harness>', 'status': 'error',
                    'detail': traceback.format_exc()}], time.monotonic() - started)
            finally:
                drivers.put(driver)

        # the longest files first, so the pool ends together
        ordered = sorted(files, key=os.path.getsize, reverse=True)
        try:
            with concurrent.futures.ThreadPoolExecutor(self.workers) as pool:
                results = list(pool.map(one, ordered))
        finally:
            for d in made:
                d.close()
            for thread in self.stoppers:
                thread.join(timeout=60)
        return sorted(results, key=lambda r: r.name)


def tally(results):
    """{'passed': n, 'failed': n, 'skipped': n} over driver outcomes."""
    counts = {PASSED: 0, FAILED: 0, SKIPPED: 0}
    for outcome in results:
        counts[COUNT_AS[outcome['status']]] += 1
    return counts
