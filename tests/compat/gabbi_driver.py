"""Runs gabbi YAML files for the compat tier, inside the gabbits suite venv.

Started as a script by the venv's own python (never imported by berth or by
pytest's process): it imports only the standard library and gabbi.  It reads
one JSON job per line on stdin::

    {"file": "/…/gabbits/x.yaml", "host": "127.0.0.1", "port": 8778,
     "environ": {"RP_UUID": "…", …}}

sets ``environ`` in its own ``os.environ`` (what gabbi's ``$ENVIRON`` reads;
the previous job's keys are removed first), runs the file's tests in order
with gabbi's own response handlers and no fixtures (the harness seeded the
berth before sending the job), and answers one JSON line::

    {"file": …, "results": [{"name": …, "status": …, "detail": …}, …]}

``status`` is one of ``pass``, ``fail``, ``error``, ``skip``, ``xfail``
(gabbi's ``xfail: true`` failed, as expected) or ``xpass``.  Anything the
tests print goes to stderr; stdout carries the answers only.
"""

import json
import os
import sys
import traceback
import unittest

from gabbi import handlers, suitemaker, utils


class Recorder(unittest.TestResult):
    """Each test's outcome, in the order the tests ran."""

    def __init__(self):
        super().__init__()
        self.outcomes = []

    def _add(self, test, status, detail=''):
        name = getattr(test, 'test_data', {}).get('name') or str(test)
        self.outcomes.append({'name': name, 'status': status, 'detail': detail[-3000:]})

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


def run_file(job, handler_objects):
    """The outcomes of every test in ``job['file']`` against ``host:port``."""
    path = job['file']
    with open(path) as handle:
        data = utils.load_yaml(handle=handle)
    name = os.path.splitext(os.path.basename(path))[0]
    suite = suitemaker.test_suite_from_dict(
        unittest.defaultTestLoader, name, data, os.path.dirname(path),
        job['host'], job['port'], None, None, handlers=handler_objects,
        test_loader_name='berth_compat')
    result = Recorder()
    suite.run(result)
    # a failure outside any test (a suite-level error) is an error of the file
    for test, err in result.errors:
        if not hasattr(test, 'test_data'):
            result.outcomes.append({'name': str(test), 'status': 'error', 'detail': err})
    return result.outcomes


def main():
    answers = os.fdopen(os.dup(sys.stdout.fileno()), 'w')
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    handler_objects = [handler() for handler in handlers.RESPONSE_HANDLERS]
    previous = ()
    for line in sys.stdin:
        job = json.loads(line)
        for key in previous:
            os.environ.pop(key, None)
        os.environ.update(job['environ'])
        previous = tuple(job['environ'])
        try:
            outcomes = run_file(job, handler_objects)
        except Exception:  # a file gabbi cannot load: the whole file errs
            outcomes = [{'name': '<load>', 'status': 'error',
                         'detail': traceback.format_exc()}]
        answers.write(json.dumps({'file': job['file'], 'results': outcomes}) + '\n')
        answers.flush()


if __name__ == '__main__':
    main()
