"""tests/quick.py (``make test-quick``): which functional tests a change touches."""

from tests import quick

TESTS = ['tests/functional/test_claims.py', 'tests/functional/test_claims_many.py',
         'tests/functional/test_quotas.py', 'tests/functional/test_allocations.py',
         'tests/functional/test_traits.py']
SOURCES = {
    'tests/functional/test_claims.py': 'from tests.functional import claim_helpers\n',
    'tests/functional/test_claims_many.py': 'import requests\n',
    'tests/functional/test_quotas.py': 'from tests.functional.claim_helpers import claim\n',
    'tests/functional/test_allocations.py': ('from api.placement.handlers import (\n'
                                             '    allocation,\n)\n'),
    'tests/functional/test_traits.py': 'from tests import fixtures\n',
}


def _touched(changed):
    return quick.touched_tests(changed, TESTS, SOURCES.__getitem__)


def test_a_changed_test_file_runs_first():
    assert _touched(['tests/functional/test_traits.py', 'api/placement/handlers/claims.py'])[0] \
        == ('tests/functional/test_traits.py', 'changed')


def test_a_changed_module_touches_the_tests_named_after_it():
    assert [t for t, _ in _touched(['api/placement/handlers/claims.py'])] == [
        'tests/functional/test_claims.py', 'tests/functional/test_claims_many.py']


def test_a_changed_helper_touches_the_tests_that_import_it():
    touched = dict(_touched(['tests/functional/claim_helpers.py']))
    assert touched == {
        'tests/functional/test_claims.py': 'imports tests/functional/claim_helpers.py',
        'tests/functional/test_quotas.py': 'imports tests/functional/claim_helpers.py'}


def test_an_import_inside_parentheses_counts():
    assert [t for t, _ in _touched(['api/placement/handlers/allocation.py'])] == [
        'tests/functional/test_allocations.py']


def test_a_generic_module_name_touches_nothing_by_name():
    # tests/fixtures.py is imported by test_traits.py, but "fixtures" names no test
    assert _touched(['common/utils.py']) == []
    assert _touched(['tests/fixtures.py']) == [
        ('tests/functional/test_traits.py', 'imports tests/fixtures.py')]


def test_no_touched_test_runs_the_smoke_subset():
    chosen, left = quick.select(['README.md'], TESTS, SOURCES.__getitem__)
    assert [t for t, _ in chosen] == list(quick.SMOKE) and left == []


def test_more_than_the_limit_are_named_not_run():
    chosen, left = quick.select(['tests/functional/claim_helpers.py',
                                 'api/placement/handlers/claims.py'],
                                TESTS, SOURCES.__getitem__, limit=2)
    assert [t for t, _ in chosen] == ['tests/functional/test_claims.py',
                                      'tests/functional/test_claims_many.py']
    assert left == ['tests/functional/test_quotas.py']


def test_the_smoke_subset_exists():
    assert all((quick.ROOT / path).is_file() for path in quick.SMOKE)


def test_module_names():
    assert quick.module_name('api/placement/claims.py') == 'api.placement.claims'
    assert quick.module_name('common/__init__.py') == 'common'
    assert quick.module_name('README.md') is None
