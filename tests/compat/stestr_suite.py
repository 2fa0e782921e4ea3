"""Run a community suite with stestr inside its own venv and judge its results.

:func:`run` starts ``stestr run --subunit`` with the suite venv's Python on
the test ids a regex selects, and reads the subunit stream back with that
venv's ``python-subunit`` (a short script, :data:`PARSER`), so the results are
a plain ``{test id: (status, text)}``.  :func:`judge` prints the suite's
counts and every failure, and fails the calling test on any failure that the
module's reviewed lists do not name.  Tempest's ids carry ``[id-…,attrs]``
suffixes; :func:`short_id` drops them, so the lists name tests plainly.
"""

import json
import os
import re
import subprocess
import sys

import pytest

# Turns a subunit v2 file into JSON {id: [status, text]}, run by the suite's python.
PARSER = '''\
import json, sys
import subunit, testtools
found = {}
def on_test(test):
    text = '\\n'.join(d.as_text() for k, d in sorted(test['details'].items())
                      if k in ('traceback', 'reason'))
    found[test['id']] = [test['status'], text]
with open(sys.argv[1], 'rb') as stream:
    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    subunit.ByteStreamToStreamResult(stream, non_subunit_name='stdout').run(result)
    result.stopTestRun()
with open(sys.argv[2], 'w') as out:
    json.dump(found, out)
'''

PASSED = ('success', 'xfail')
FAILED = ('fail', 'uxsuccess')
SKIPPED = ('skip',)
# a test of a class whose setUpClass skipped: listed, never started
NOT_RUN = ('exists',)


def short_id(test_id):
    """``pkg.mod.Class.test_x[id-…,smoke]`` → ``pkg.mod.Class.test_x``."""
    return re.sub(r'\[.*\]$', '', test_id)


def run(venv, workdir, top_dir, test_path, selection, env, concurrency=2, timeout=1200):
    """``{short test id: (status, text)}`` of the tests ``selection`` (a regex) picks."""
    os.makedirs(workdir, exist_ok=True)
    stream = os.path.join(workdir, 'results.subunit')
    log = os.path.join(workdir, 'stestr.log')
    argv = [os.path.join(venv, 'bin', 'stestr'), '--test-path', test_path,
            '--top-dir', top_dir, 'run', '--subunit', '--concurrency', str(concurrency),
            selection]
    with open(stream, 'wb') as out, open(log, 'wb') as err:
        # stestr exits 1 when a test fails: the results say which
        subprocess.run(argv, cwd=workdir, env=env, stdout=out, stderr=err,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    parsed = os.path.join(workdir, 'results.json')
    script = os.path.join(workdir, 'parse_subunit.py')
    with open(script, 'w') as f:
        f.write(PARSER)
    done = subprocess.run([os.path.join(venv, 'bin', 'python'), script, stream, parsed],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        pytest.fail('reading %s failed:\n%s' % (stream, done.stderr))
    with open(parsed) as f:
        found = {short_id(k): tuple(v) for k, v in json.load(f).items()}
    if not found:
        text = []
        for path in (log, stream):
            with open(path, 'rb') as f:
                text.append(f.read()[-4000:].decode('utf-8', 'replace'))
        pytest.fail('stestr ran no test (%s):\n%s' % (' '.join(argv), '\n'.join(text)))
    return found


def suite_env(**extra):
    """The environment for a suite's process: ours less Python and OpenStack settings."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OS_', 'PYTHON', 'VIRTUAL_ENV', 'OPENSTACKSDK_', 'TEMPEST_'))}
    env.update(extra)
    return env


def _last_line(text):
    lines = [line for line in (text or '').strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ''


def judge(suite, results, expected, pending, prefix=''):
    """Print counts and failures; fail on a failure neither ``expected`` nor ``pending`` names.

    ``expected`` and ``pending`` map test ids (without ``prefix``) to why
    they fail.  A listed test that was not run at all is a failure too (a
    stale or misspelt entry); an expected failure that passes fails the suite
    (the reviewed list must say what berth does not offer), a pending one that
    passes is printed so the temporary list shrinks.
    """
    def name(test_id):
        return test_id[len(prefix):] if test_id.startswith(prefix) else test_id

    by_status = {}
    for test_id, (status, _) in results.items():
        by_status.setdefault(status, []).append(test_id)
    passed = sum(len(by_status.get(s, ())) for s in PASSED)
    failed = sorted(t for s in FAILED for t in by_status.get(s, ()))
    skipped = sorted(by_status.get('skip', ()))
    not_run = sum(len(by_status.get(s, ())) for s in NOT_RUN)
    print('\n=== %s: %d passed, %d failed, %d skipped (+%d in skipped classes)'
          % (suite, passed, len(failed), len(skipped), not_run), file=sys.stderr)
    unexpected = []
    for test_id in failed:
        short = name(test_id)
        if short in expected:
            why = 'expected: ' + expected[short]
        elif short in pending:
            why = 'PENDING: ' + pending[short]
        else:
            why = 'UNEXPECTED: ' + _last_line(results[test_id][1])
            unexpected.append(test_id)
        print('  FAIL %s -- %s' % (short, why), file=sys.stderr)
    for test_id in skipped:
        print('  skip %s -- %s' % (name(test_id), _last_line(results[test_id][1])),
              file=sys.stderr)
    ran = {name(t) for t in results}
    missing = sorted(t for t in set(expected) | set(pending) if t not in ran)
    now_pass = sorted(t for t in set(expected) | set(pending)
                      if t in ran and name_status(results, prefix + t) in PASSED)
    for test_id in now_pass:
        print('  listed but PASSES now (remove it from the list): %s' % test_id,
              file=sys.stderr)
    problems = []
    if unexpected:
        problems.append('%d unexpected failures:\n%s' % (len(unexpected), '\n'.join(
            '%s\n    %s' % (t, (results[t][1] or '').strip()[-1500:].replace('\n', '\n    '))
            for t in unexpected)))
    if missing:
        problems.append('listed tests that did not run: %s' % ', '.join(missing))
    stale = [t for t in now_pass if t in expected]
    if stale:
        problems.append('expected failures that pass now (berth offers the feature: '
                        'remove them from EXPECTED_FAILURES): %s' % ', '.join(stale))
    if problems:
        pytest.fail('%s: %s' % (suite, '\n'.join(problems)))
    return passed, len(failed), len(skipped)


def name_status(results, test_id):
    entry = results.get(test_id)
    return entry[0] if entry else None
