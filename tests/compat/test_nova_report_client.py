"""nova's report-client functional tests, unmodified, against an empty and an IMPORTED berth.

``nova/tests/functional/test_report_client.py`` (from the nova 34.0.0 wheel,
in a venv of its own pinned by ``nova-report-client-pins.txt``; nova is never
a dependency of berth) drives nova's ``SchedulerReportClient`` -- what
nova-compute and nova-scheduler send Placement -- against the endpoint of
``placement.tests.functional.fixtures.placement.PlacementFixture``.  The
stand-in of :mod:`tests.compat.osc_harness` answers it with a berth per test,
so each test gets the database it expects, and the tests run as upstream
wrote them (``nova_env/nova_driver.py``).

Two targets:

* ``empty``: a fresh berth per test, as nova's own fixture gives;
* ``imported``: a real Placement 16.0.0 (:mod:`tests.placement_real`) is
  populated as a cloud looks (:func:`tests.adoption_cloud.populate`: nested
  providers, a sharing provider, custom classes and traits, consumers of
  several projects), stopped, and ``berth-manage import placement`` copies
  it into a berth database; every test's berth starts on a copy of that
  database.  A report client working against an adopted cloud is the point
  of the import: only the cloud's own rows may change an answer, and the
  tests whose answers they change are named in :data:`EXPECTED_FAILURES`
  with the reason.

Fails on any failure that :data:`EXPECTED_FAILURES` does not name (or that
does not show the pinned mismatch), on an entry there that passes, and on
any answer about the imported rows that differs from Placement's once a
test gave its berth back.  Part of the compat pass (``make test-nova-report-client`` runs it alone;
``BERTH_NOVA_REPORT_CLIENT=0`` leaves it out locally): 70-78 s for both
targets on 2 busy cores, plus ~80 s once to build its 408 MB venv.
"""

import collections
import os
import shutil
import subprocess
import sys
import time

import pytest

from tests import adoption_cloud, fixtures, placement_real
from tests.compat import osc_harness, suite_venv

pytestmark = [pytest.mark.compat, pytest.mark.integration, pytest.mark.adoption,
              pytest.mark.slow]

HERE = os.path.dirname(os.path.abspath(__file__))
PINS = os.path.join(HERE, 'nova-report-client-pins.txt')
DRIVER = os.path.join(HERE, 'nova_env', 'nova_driver.py')
NOVA = 'nova 34.0.0'
# the tests nova 34.0.0's test_report_client.py holds (ddt's cases counted)
UPSTREAM_TESTS = 18
COUNT_AS = {'pass': 'passed', 'xfail': 'passed', 'skip': 'skipped',
            'fail': 'failed', 'error': 'failed', 'xpass': 'failed'}
# BERTH_NOVA_REPORT_CLIENT=0 leaves it out of a developer's compat run (CI runs it)
OPT_OUT = os.environ.get('BERTH_NOVA_REPORT_CLIENT') == '0'
PREFIX = 'nova.tests.functional.test_report_client.SchedulerReportClientTests.'

# the imported cloud (tests/adoption_cloud.py) holds two compute nodes (VCPU, MEMORY_MB
# with min_unit/step_size 256, DISK_GB) sharing DISK_GB (min_unit/step_size 10) from a
# MISC_SHARES_VIA_AGGREGATE provider: a candidate query the tests count answers
IMPORTED_CANDIDATES = ('the two imported compute nodes are candidates too (VCPU, MEMORY_MB '
                       'and DISK_GB of their own, without the forbidden root traits)')
IMPORTED_SHARED = ('the two imported compute nodes are candidates too, each with its own '
                   'DISK_GB and with the imported sharing provider\'s (10 GB is a multiple '
                   'of its step_size): 4 more')
# target -> {test name (after PREFIX): (why it fails there, the text its failure must show)}.
# The text pins the failure: a berth answering anything else fails the run.
EXPECTED_FAILURES: dict[str, dict[str, tuple[str, str]]] = {
    'empty': {},
    'imported': {
        'test_allocation_candidates_mappings': (IMPORTED_SHARED, 'MismatchError: 3 != 7'),
        # no root_required, no root_forbidden; 15 GB of disk: not from the sharing provider
        'test_allocation_candidates_root_traits_1': (IMPORTED_CANDIDATES,
                                                     'MismatchError: 3 != 5'),
        # root_forbidden COMPUTE_STATUS_DISABLED and COMPUTE_VOLUME_MULTI_ATTACH only
        'test_allocation_candidates_root_traits_5': (IMPORTED_CANDIDATES,
                                                     'MismatchError: 1 != 3'),
    },
}


def cloud_answers(api, cloud):
    """What a client reads about the imported cloud's own rows, which no nova test names."""
    out = {}
    for u in sorted(cloud['providers'].values()):
        base = '/resource_providers/%s' % u
        for path in (base, base + '/inventories', base + '/traits', base + '/aggregates',
                     base + '/usages', base + '/allocations'):
            out[path] = _sorted_lists(api.get(path))
    for c in cloud['consumers']:
        out['/allocations/%s' % c] = api.get('/allocations/%s' % c)
    for project in adoption_cloud.PROJECTS:
        out['/usages?project_id=%s' % project] = api.get('/usages?project_id=%s' % project)
    return out


def _sorted_lists(answer):
    status, body = answer
    if isinstance(body, dict):
        body = {k: sorted(v) if k in ('traits', 'aggregates') else v for k, v in body.items()}
    return status, body


class SnapshotPool(osc_harness.BerthPool):
    """Berths that each start on a copy of ``snapshot`` (a berth SQLite file), or fresh.

    The copies are SQLite whatever ``BERTH_TEST_DB`` says (a file copy is the
    cheap per-test reset); fresh berths follow ``BERTH_TEST_DB``.

    With ``cloud`` and ``reference`` (:func:`cloud_answers` from the Placement
    the snapshot was imported from), each berth is read again when its test
    gives it back: ``drift`` collects every answer about the imported rows
    that is no longer Placement's, ``checked`` counts the berths compared.
    """

    def __init__(self, work_dir, snapshot=None, cloud=None, reference=None):
        super().__init__(work_dir)
        self.snapshot = snapshot
        self.cloud = cloud
        self.reference = reference
        self.drift = []
        self.checked = 0

    def database(self, conf):
        if self.snapshot is None:
            return super().database(conf)
        os.makedirs(str(conf.state_path), exist_ok=True)
        shutil.copy(self.snapshot, os.path.join(str(conf.state_path), 'berth.sqlite'))

    def stop(self, berth_id):
        with self.lock:
            stack = self.running.get(berth_id)
        if stack is not None and self.reference is not None:
            try:
                got = cloud_answers(adoption_cloud.Api(stack.placement_url), self.cloud)
                diffs = adoption_cloud.differences(self.reference, got)
            except Exception as exc:   # recorded, so the test names it; the berth still stops
                diffs = [('(reading berth %d)' % berth_id, None, repr(exc))]
            with self.lock:
                self.checked += 1
                self.drift += [(berth_id,) + d for d in diffs]
        super().stop(berth_id)


def _import(state, source_url):
    """``berth-manage import placement`` into the SQLite berth database under ``state``."""
    cfg = os.path.join(str(state), 'berth-manage.conf')
    with open(cfg, 'w') as f:
        f.write('[DEFAULT]\nstate_path = %s\n' % state)
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'berth-manage'),
                           '--config-file', cfg, 'import', 'placement',
                           '--connection', source_url],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope='module')
def imported(tmp_path_factory):
    """(berth SQLite file imported from a populated real Placement, the cloud, its answers)."""
    venv = placement_real.require_venv()
    work = tmp_path_factory.mktemp('nova-import')
    url = placement_real.sqlite_url(work / 'placement.sqlite')
    service = placement_real.Placement(work, venv, url).start()
    try:
        placement = adoption_cloud.Api(service.url)
        cloud = adoption_cloud.populate(placement)
        reference = cloud_answers(placement, cloud)
    finally:
        service.stop()
    state = work / 'snapshot'
    fixtures.migrated_sqlite(work, state)
    out = _import(state, url)
    assert cloud['consumers'] and 'resource_providers' in out, out
    assert all(status == 200 for status, _ in reference.values()), reference
    return os.path.join(str(state), 'berth.sqlite'), cloud, reference


def _short(name):
    return name.replace(PREFIX, '')


def _expected(target, outcome):
    """The expected failure's reason when ``outcome`` is one, as pinned; else None."""
    why, shows = EXPECTED_FAILURES[target].get(_short(outcome['name']), (None, ''))
    return why if why and shows in outcome['detail'] else None


def _report(target, outcomes, berths, seconds):
    counts = collections.Counter(COUNT_AS[o['status']] for o in outcomes)
    print('\n%s test_report_client against %s berths: %d passed, %d failed, %d skipped '
          'of %d tests, %d berths, %.0fs' % (
              NOVA, target, counts['passed'], counts['failed'], counts['skipped'],
              len(outcomes), berths, seconds))
    for o in outcomes:
        if COUNT_AS[o['status']] != 'passed':
            print('  %-5s %s: %s' % (o['status'], _short(o['name']),
                                     _expected(target, o) or 'UNEXPECTED'))


@pytest.mark.filterwarnings('ignore:Policy .* was deprecated:UserWarning')
@pytest.mark.parametrize('target', ['empty', 'imported'])
def test_nova_report_client(target, request, tmp_path):
    if OPT_OUT:
        pytest.skip('BERTH_NOVA_REPORT_CLIENT=0: nova\'s report-client tests left out '
                    '(a 400 MB nova venv on first use)')
    venv = suite_venv.require('nova-report-client', PINS)
    pool = SnapshotPool(tmp_path / 'berths', *(
        request.getfixturevalue('imported') if target == 'imported' else ()))
    started = time.monotonic()
    outcomes, berths = osc_harness.run_suite(venv, tmp_path, driver=DRIVER, pool=pool)
    _report(target, outcomes, berths, time.monotonic() - started)
    failed = ['%s [%s]\n%s' % (o['name'], o['status'], o['detail']) for o in outcomes
              if COUNT_AS[o['status']] == 'failed' and not _expected(target, o)]
    passed = {_short(o['name']) for o in outcomes if COUNT_AS[o['status']] == 'passed'}
    assert not failed, '%d unexpected failure(s):\n\n%s' % (len(failed), '\n\n'.join(failed))
    stale = sorted(passed & set(EXPECTED_FAILURES[target]))
    assert not stale, 'expected failures that now pass (drop them): %s' % stale
    assert len(outcomes) == UPSTREAM_TESTS, len(outcomes)
    # nova's writes left the imported cloud's rows as Placement answered them
    assert not pool.drift, '\n'.join('berth %d: %s\n  placement: %s\n  berth:     %s' % d
                                      for d in pool.drift[:10])
    assert pool.checked == (berths if pool.reference else 0), (pool.checked, berths)
