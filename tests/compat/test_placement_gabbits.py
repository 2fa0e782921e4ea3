"""Upstream Placement's own gabbi suite, unmodified, against berth.

The gabbit YAML files and gabbi come from the package index
(``openstack-placement`` 16.0.0, pinned in ``gabbits-pins.txt``) into a venv
of their own; every file runs against a fresh berth with its fixture's data
made through the REST API (:mod:`tests.compat.gabbi_harness`).  Prints each
file's counts and the total; fails on any failure that
:data:`EXPECTED_FAILURES` does not name, and on an entry there that passes.

``BERTH_COMPAT_WORKERS`` (default 2) files run at once;
``BERTH_GABBITS=a.yaml,b.yaml`` runs only those files (for a local look).
"""

import os
import time

import pytest

from tests.compat import gabbi_harness, suite_venv

pytestmark = [pytest.mark.compat, pytest.mark.integration]

PINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gabbits-pins.txt')
# the tests in openstack-placement 16.0.0's gabbit files
UPSTREAM_TESTS = 1316

# 'file.yaml: test name' -> why it fails against berth (reviewed; keep short)
EXPECTED_FAILURES = {
    'basic-http.yaml: bad content length not int':
        "never reaches berth: gabbi 4's HTTP client (httpx) refuses to send a "
        "non-integer Content-Length (upstream runs it in-process, through "
        "wsgi-intercept); sent by hand, berth answers it as the gabbit expects "
        "(tests/security/test_http_edge.py)",
}


def _selected(files):
    wanted = os.environ.get('BERTH_GABBITS')
    if not wanted:
        return files
    names = set(wanted.split(','))
    return [f for f in files if os.path.basename(f) in names]


def _report(results, seconds):
    total = {gabbi_harness.PASSED: 0, gabbi_harness.FAILED: 0, gabbi_harness.SKIPPED: 0}
    print('\nPlacement gabbits (openstack-placement 16.0.0) against berth:')
    for res in results:
        counts = gabbi_harness.tally(res.results)
        for key, n in counts.items():
            total[key] += n
        print('  %-48s %3d passed %3d failed %3d skipped  %5.1fs' % (
            res.name, counts['passed'], counts['failed'], counts['skipped'], res.seconds))
    print('  total: %d passed, %d failed, %d skipped of %d tests in %d files, %.0fs' % (
        total['passed'], total['failed'], total['skipped'], sum(total.values()),
        len(results), seconds))
    return total


def _unexpected(results):
    """(failures not in EXPECTED_FAILURES, expected failures that passed)."""
    failed, passed = [], set()
    for res in results:
        for outcome in res.results:
            key = '%s: %s' % (res.name, outcome['name'])
            kind = gabbi_harness.COUNT_AS[outcome['status']]
            if kind == gabbi_harness.FAILED and key not in EXPECTED_FAILURES:
                failed.append('%s [%s]\n%s' % (key, outcome['status'], outcome['detail']))
            elif kind == gabbi_harness.PASSED:
                passed.add(key)
    return failed, sorted(passed & set(EXPECTED_FAILURES))


# the legacy-policy files run on Placement's deprecated defaults, as upstream's do
@pytest.mark.filterwarnings('ignore:Policy .* was deprecated:UserWarning')
def test_placement_gabbits(tmp_path):
    venv = suite_venv.require('placement-gabbits', PINS)
    files = gabbi_harness.gabbit_files(venv)
    assert files, 'no gabbit YAML files in %s' % venv
    files = _selected(files)
    workers = int(os.environ.get('BERTH_COMPAT_WORKERS', '2'))
    started = time.monotonic()
    results = gabbi_harness.Runner(venv, tmp_path, workers=workers).run_all(files)
    total = _report(results, time.monotonic() - started)
    failed, stale = _unexpected(results)
    assert not failed, '%d unexpected failure(s):\n\n%s' % (len(failed), '\n\n'.join(failed))
    assert not stale, 'expected failures that now pass (drop them): %s' % stale
    if len(files) == len(gabbi_harness.gabbit_files(venv)):
        assert sum(total.values()) == UPSTREAM_TESTS, total
