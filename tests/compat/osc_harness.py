"""osc-placement's functional tests against real berths: a fresh one per test.

The tests' base module takes its Placement from
``placement.tests.functional.fixtures`` (:mod:`tests.compat.osc_env.berth_placement_env`
stands in for it, laid out as that package in a scratch directory on
``PYTHONPATH``).  Its ``PlacementFixture`` asks :class:`BerthPool`, a small
HTTP control server on loopback in this process, for a berth per test
(``POST /berths`` -> ``{"id", "endpoint"}``) and gives it back at cleanup
(``DELETE /berths/<id>``).  The tests themselves run unmodified in the
suite venv (``osc_env/osc_driver.py``), driving the ``openstack`` CLI.
"""

import http.server
import itertools
import json
import os
import shutil
import subprocess
import threading

from oslo_policy import opts as policy_opts

from tests import fixtures

ENV_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'osc_env')
DRIVER = os.path.join(ENV_DIR, 'osc_driver.py')
RUN_TIMEOUT = 540   # under pytest-timeout's 600 s, so a hang fails with this module's message
START_LOCK = threading.Lock()


class BerthPool:
    """Embedded berths started and stopped on request of the tests' fixture."""

    def __init__(self, work_dir):
        self.work_dir = str(work_dir)
        self.ids = itertools.count(1)
        self.running = {}
        self.lock = threading.Lock()
        self.stoppers = []
        self.started = 0

    def start(self):
        berth_id = next(self.ids)
        state = os.path.join(self.work_dir, 'berth-%d' % berth_id)
        conf = fixtures.make_conf(state)
        for group, opts in policy_opts.list_opts():
            conf.register_opts(opts, group=group)
        # Placement's fixture for these tests: its legacy policy defaults
        conf.set_override('enforce_new_defaults', False, group='oslo_policy')
        self.database(conf)
        with START_LOCK:   # alembic's migration context is process-global
            stack = fixtures.start_embedded(conf)
        with self.lock:
            self.running[berth_id] = stack
            self.started += 1
        return {'id': berth_id, 'endpoint': stack.placement_url}

    def database(self, conf):
        """Lay the database the next berth starts on (a fresh one; a subclass may copy)."""
        fixtures.fresh_database(self.work_dir, conf)

    def stop(self, berth_id):
        """Stop berth ``berth_id`` off the test's path (its servers' shutdown waits)."""
        with self.lock:
            stack = self.running.pop(berth_id, None)
        if stack is not None:
            thread = threading.Thread(target=stack.stop, daemon=True, name='stop-berth')
            thread.start()
            self.stoppers.append(thread)

    def close(self):
        for berth_id in list(self.running):
            self.stop(berth_id)
        for thread in self.stoppers:
            thread.join(timeout=60)


def _handler(pool):
    class Control(http.server.BaseHTTPRequestHandler):
        def _answer(self, status, body=None):
            data = json.dumps(body).encode() if body is not None else b''
            self.send_response(status)
            self.send_header('content-length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            if self.path != '/berths':
                return self._answer(404)
            self._answer(200, pool.start())

        def do_DELETE(self):
            prefix, _, berth_id = self.path.rpartition('/')
            if prefix != '/berths' or not berth_id.isdigit():
                return self._answer(404)
            pool.stop(int(berth_id))
            self._answer(204)

        def log_message(self, *args):
            pass

    return Control


class ControlServer:
    """The loopback control endpoint of a :class:`BerthPool`."""

    def __init__(self, pool):
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _handler(pool))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                       name='osc-control')
        self.thread.start()
        self.url = 'http://127.0.0.1:%d' % self.httpd.server_address[1]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=30)


def fixture_package(root):
    """``root``/placement/tests/functional/fixtures/{placement,capture}.py -> our stand-ins."""
    parts = ('placement', 'tests', 'functional', 'fixtures')
    pkg = os.path.join(root, *parts)
    os.makedirs(pkg, exist_ok=True)
    for depth in range(1, len(parts) + 1):
        open(os.path.join(root, *parts[:depth], '__init__.py'), 'w').close()
    shutil.copy(os.path.join(ENV_DIR, 'berth_placement_env.py'), root)
    for name, cls in (('placement', 'PlacementFixture'), ('capture', 'Logging')):
        with open(os.path.join(pkg, name + '.py'), 'w') as f:
            f.write('from berth_placement_env import %s  # noqa: F401\n' % cls)
    return root


def run_suite(venv, work_dir, modules=(), workers=1, driver=DRIVER, pool=None):
    """(outcomes, berths started): the driver's entries over ``workers`` processes.

    ``driver`` (osc-placement's by default) is run by the venv's python with a
    results file and its share of ``modules``; ``pool`` gives the berths
    (fresh ones by default).
    """
    work_dir = str(work_dir)
    shim = fixture_package(os.path.join(work_dir, 'shim'))
    pool = pool or BerthPool(os.path.join(work_dir, 'berths'))
    control = ControlServer(pool)
    env = dict(os.environ, BERTH_OSC_CONTROL=control.url, PYTHONPATH=shim,
               PATH=os.path.join(venv, 'bin') + os.pathsep + os.environ.get('PATH', ''))
    env.pop('OS_CLOUD', None)
    shares = _shares(modules, workers)
    procs = []
    try:
        for i, share in enumerate(shares):
            out = os.path.join(work_dir, 'results-%d.json' % i)
            log = open(os.path.join(work_dir, 'driver-%d.log' % i), 'wb')
            procs.append((out, log, subprocess.Popen(
                [os.path.join(venv, 'bin', 'python'), driver, out] + list(share),
                env=env, cwd=work_dir, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL)))
        outcomes = []
        for out, log, proc in procs:
            rc = proc.wait(timeout=RUN_TIMEOUT)
            log.close()
            if not os.path.exists(out):
                raise AssertionError('osc driver exited %s without results; log %s:\n%s'
                                     % (rc, log.name, _tail(log.name)))
            with open(out) as f:
                outcomes += json.load(f)
    finally:
        for _, log, proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
            log.close()
        control.close()
        pool.close()
    return outcomes, pool.started


def _shares(modules, workers):
    """The test modules split over ``workers`` drivers (one driver: discovery)."""
    if workers <= 1 or not modules:
        return [list(modules)]
    return [list(modules[i::workers]) for i in range(workers)]


def _tail(path, lines=30):
    with open(path, errors='replace') as f:
        return ''.join(f.readlines()[-lines:])


def test_modules(venv):
    """The ``test_*`` module names of osc_placement.tests.functional in ``venv``."""
    out = subprocess.run(
        [os.path.join(venv, 'bin', 'python'), '-c',
         'import os, osc_placement.tests.functional as f; '
         'print(os.path.dirname(f.__file__))'],
        capture_output=True, text=True, check=True, timeout=120).stdout.strip()
    return sorted(n[:-3] for n in os.listdir(out) if n.startswith('test_') and n.endswith('.py'))

