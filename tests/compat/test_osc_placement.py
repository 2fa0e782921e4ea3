"""osc-placement's own functional tests, unmodified, against berth.

The wheel ships ``osc_placement/tests/functional``; it comes from the package
index with the ``openstack`` CLI and oslotest into a venv of its own (pinned
in ``osc-placement-pins.txt``).  The tests drive the CLI in process against
the endpoint their base module's ``PlacementFixture`` gives them: here a
fresh berth per test (:mod:`tests.compat.osc_harness`).  Prints each module's
counts and the total; fails on any failure that :data:`EXPECTED_FAILURES`
does not name, and on an entry there that passes.

``BERTH_COMPAT_WORKERS`` (default 2) driver processes split the modules.
"""

import collections
import os
import time

import pytest

from tests.compat import osc_harness, suite_venv

pytestmark = [pytest.mark.compat, pytest.mark.integration]

PINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'osc-placement-pins.txt')
# the tests in osc-placement 4.9.1's functional package
UPSTREAM_TESTS = 160
COUNT_AS = {'pass': 'passed', 'xfail': 'passed', 'skip': 'skipped',
            'fail': 'failed', 'error': 'failed', 'xpass': 'failed'}

# test id -> why it fails against berth (reviewed; keep short)
EXPECTED_FAILURES = {}


def _report(outcomes, berths, seconds):
    per_class = collections.defaultdict(collections.Counter)
    for o in outcomes:
        # osc_placement.tests.functional.<module>.<class>.<test>
        name = '.'.join(o['name'].split('.')[3:5])
        per_class[name][COUNT_AS[o['status']]] += 1
    print('\nosc-placement 4.9.1 functional tests against berth:')
    total = collections.Counter()
    for module, counts in sorted(per_class.items()):
        total.update(counts)
        print('  %-52s %3d passed %3d failed %3d skipped' % (
            module, counts['passed'], counts['failed'], counts['skipped']))
    print('  total: %d passed, %d failed, %d skipped of %d tests, %d berths, %.0fs' % (
        total['passed'], total['failed'], total['skipped'], len(outcomes), berths, seconds))
    return total


@pytest.mark.filterwarnings('ignore:Policy .* was deprecated:UserWarning')
def test_osc_placement_functional(tmp_path):
    venv = suite_venv.require('osc-placement', PINS)
    modules = osc_harness.test_modules(venv)
    assert modules, 'no osc_placement functional test modules in %s' % venv
    workers = int(os.environ.get('BERTH_COMPAT_WORKERS', '2'))
    started = time.monotonic()
    outcomes, berths = osc_harness.run_suite(venv, tmp_path, modules, workers=workers)
    _report(outcomes, berths, time.monotonic() - started)
    failed = ['%s [%s]\n%s' % (o['name'], o['status'], o['detail']) for o in outcomes
              if COUNT_AS[o['status']] == 'failed' and o['name'] not in EXPECTED_FAILURES]
    passed = {o['name'] for o in outcomes if COUNT_AS[o['status']] == 'passed'}
    assert not failed, '%d unexpected failure(s):\n\n%s' % (len(failed), '\n\n'.join(failed))
    stale = sorted(passed & set(EXPECTED_FAILURES))
    assert not stale, 'expected failures that now pass (drop them): %s' % stale
    assert len(outcomes) == UPSTREAM_TESTS, len(outcomes)
