"""Runs osc-placement's functional tests, inside the osc-placement suite venv.

Started as a script by the venv's own python (never imported by berth or by
pytest's process): ``osc_driver.py RESULTS.json [MODULE ...]`` loads the
named modules of ``osc_placement.tests.functional`` (all of its ``test_*``
modules without any), runs them with unittest, and writes one entry per test,
``{"name": test id, "status": pass|fail|error|skip|xfail|xpass, "detail": …}``,
to ``RESULTS.json``.  The tests print through the ``openstack`` CLI, so the
answers go to a file, never to stdout.
"""

import json
import sys
import unittest

PACKAGE = 'osc_placement.tests.functional'


class Recorder(unittest.TestResult):
    """Each test's outcome, in the order the tests ran."""

    def __init__(self):
        super().__init__()
        self.outcomes = []

    def _add(self, test, status, detail=''):
        self.outcomes.append({'name': test.id(), 'status': status, 'detail': detail[-3000:]})

    def addSuccess(self, test):
        self._add(test, 'pass')

    def addFailure(self, test, err):
        self._add(test, 'fail', self._exc_info_to_string(err, test))

    def addError(self, test, err):
        self._add(test, 'error', self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        self._add(test, 'skip', str(reason))

    def addExpectedFailure(self, test, err):
        self._add(test, 'xfail', self._exc_info_to_string(err, test))

    def addUnexpectedSuccess(self, test):
        self._add(test, 'xpass')


def main():
    out_path, modules = sys.argv[1], sys.argv[2:]
    loader = unittest.defaultTestLoader
    if modules:
        suite = loader.loadTestsFromNames(['%s.%s' % (PACKAGE, m) for m in modules])
    else:
        suite = loader.discover(PACKAGE, pattern='test_*.py')
    result = Recorder()
    suite.run(result)   # a module that cannot be imported is an error of its own
    with open(out_path, 'w') as f:
        json.dump(result.outcomes, f)


if __name__ == '__main__':
    main()
