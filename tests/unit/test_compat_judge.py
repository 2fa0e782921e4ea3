"""The compat tier's verdict (tests.compat.stestr_suite.judge): what fails a suite."""

import pytest

from tests.compat import stestr_suite

PREFIX = 'pkg.tests.'


def _results(**statuses):
    return {PREFIX + name.replace('__', '.'): (status, 'Traceback\nAssertionError: %s' % name)
            for name, status in statuses.items()}


def test_counts_listed_failures_and_passes():
    results = _results(a__test_ok='success', a__test_known='fail', a__test_later='fail',
                       a__test_skip='skip', b__test_class_skipped='exists')
    counts = stestr_suite.judge('suite', results, {'a.test_known': 'no ports'},
                                {'a.test_later': 'in flight'}, prefix=PREFIX)
    assert counts == (1, 2, 1)


def test_an_unlisted_failure_fails_the_suite_with_its_traceback():
    results = _results(a__test_ok='success', a__test_new='fail')
    with pytest.raises(pytest.fail.Exception, match=r'(?s)1 unexpected failures:\n'
                       r'pkg\.tests\.a\.test_new\n.*AssertionError: a__test_new'):
        stestr_suite.judge('suite', results, {}, {}, prefix=PREFIX)


def test_an_unexpected_success_fails_like_a_failure():
    results = _results(a__test_x='uxsuccess')
    with pytest.raises(pytest.fail.Exception, match='1 unexpected failures'):
        stestr_suite.judge('suite', results, {}, {}, prefix=PREFIX)


def test_a_listed_test_that_did_not_run_fails_the_suite():
    results = _results(a__test_ok='success')
    with pytest.raises(pytest.fail.Exception, match='listed tests that did not run: a.test_gone'):
        stestr_suite.judge('suite', results, {'a.test_gone': 'misspelt'}, {}, prefix=PREFIX)


def test_a_listed_test_that_passes_is_reported_not_failed(capsys):
    results = _results(a__test_fixed='success')
    assert stestr_suite.judge('suite', results, {}, {'a.test_fixed': 'merged'},
                              prefix=PREFIX) == (1, 0, 0)
    assert 'listed but PASSES now (remove it from the list): a.test_fixed' in (
        capsys.readouterr().err)


def test_an_expected_failure_that_passes_fails_the_suite():
    results = _results(a__test_fixed='success')
    with pytest.raises(pytest.fail.Exception, match='expected failures that pass now'):
        stestr_suite.judge('suite', results, {'a.test_fixed': 'no ports'}, {},
                           prefix=PREFIX)


def test_short_id_drops_tempest_tags():
    assert stestr_suite.short_id('m.C.test_x[id-1234,negative]') == 'm.C.test_x'
    assert stestr_suite.short_id('m.C.test_x') == 'm.C.test_x'
