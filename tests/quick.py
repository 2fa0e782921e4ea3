"""``make test-quick``: the loop to run before a commit, in under 3 minutes on 2 cores.

    python tests/quick.py [--list] [--base REF]

Runs, stopping at the first failure: ``ruff check .``, ``mypy`` (setup.cfg's
``[mypy]``), the unit tier (``pytest -n auto tests/unit``), then the
functional tests the current change touches, also with ``-n auto``:

* the change is every file that differs between the merge-base of ``HEAD``
  and the base (``--base``, else ``$BERTH_QUICK_BASE``, else ``origin/main``,
  else ``main``) and the working tree, untracked files included;
* a ``tests/functional/test_*.py`` file is touched when it changed itself,
  when its name carries the name of a changed module (``api/.../claims.py``
  touches ``test_claims.py`` and ``test_claims_many.py``), or when it imports
  a changed module (``tests/functional/claim_helpers.py`` touches every test
  that imports it);
* at most ``MAX_FILES`` files run (the changed tests first, then the name
  matches, then the imports), the others are named so that
  ``make test-functional`` can be run for them;
* a change that touches no functional test (docs only, or no change at all)
  runs ``SMOKE``: an embedded berth started, its version documents,
  microversion negotiation, error bodies and health check answered.

``--list`` prints the functional test files it would run, and why, and runs
nothing.  The full tiers stay ``make test``'s; this is the short loop only.
Standard library only.
"""

import argparse
import ast
import os
import pathlib
import re
import resource
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
FUNCTIONAL = 'tests/functional'
MAX_FILES = 6
# run when a change touches no functional test: a few seconds each on 2 cores
SMOKE = ('tests/functional/test_root_and_conventions.py',
         'tests/functional/test_healthcheck.py')
# module names too common to say which test a change is about
GENERIC = {'__init__', 'utils', 'base', 'common', 'conf', 'opts', 'fixtures',
           'helpers', 'conftest', 'api', 'db', 'models', 'main', 'app', 'test'}


def _git(*args):
    done = subprocess.run(['git', *args], cwd=ROOT, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def base_commit(base=None):
    """The merge-base of HEAD and the first base that exists, or None."""
    for ref in [base] if base else [os.environ.get('BERTH_QUICK_BASE'), 'origin/main',
                                    'main']:
        if ref:
            found = _git('merge-base', 'HEAD', ref)
            if found:
                return found.strip()
    return None


def changed_files(base=None):
    """Paths (relative to the root) the change touches: committed since the
    merge-base, staged, unstaged and untracked."""
    paths = set()
    commit = base_commit(base)
    if commit:
        paths.update((_git('diff', '--name-only', commit) or '').split())
    else:
        paths.update((_git('diff', '--name-only', 'HEAD') or '').split())
    paths.update((_git('ls-files', '--others', '--exclude-standard') or '').split())
    return sorted(paths)


def module_name(path):
    """``api/placement/claims.py`` -> ``api.placement.claims``; None for a non-module."""
    if not path.endswith('.py'):
        return None
    parts = path[:-3].split('/')
    if parts[-1] == '__init__':
        parts = parts[:-1]
    return '.'.join(parts) if parts else None


def imported_modules(source):
    """Every module a test file imports, ``from a.b import c`` giving a.b and a.b.c."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update('%s.%s' % (node.module, alias.name) for alias in node.names)
    return names


def _name_matches(stem, test_stem):
    return bool(re.search(r'(^|_)%s(_|$)' % re.escape(stem), test_stem))


def touched_tests(changed, tests=None, read=None):
    """``[(test file, reason)]`` in order: changed tests, name matches, import matches."""
    if tests is None:
        tests = sorted(str(p.relative_to(ROOT))
                       for p in (ROOT / FUNCTIONAL).glob('test_*.py'))
    read = read or (lambda path: (ROOT / path).read_text())
    modules = {m: path for path in changed if (m := module_name(path))}
    stems = {pathlib.PurePath(path).stem: path for path in changed
             if path.endswith('.py') and not path.startswith(FUNCTIONAL + '/test_')}
    direct, by_name, by_import = [], [], []
    for test in tests:
        test_stem = pathlib.PurePath(test).stem[len('test_'):]
        if test in changed:
            direct.append((test, 'changed'))
            continue
        named = [path for stem, path in stems.items()
                 if stem not in GENERIC and len(stem) > 3 and _name_matches(stem, test_stem)]
        if named:
            by_name.append((test, 'named after %s' % named[0]))
            continue
        imports = imported_modules(read(test))
        hit = sorted(path for m, path in modules.items()
                     if m in imports and not m.endswith('__init__'))
        if hit:
            by_import.append((test, 'imports %s' % hit[0]))
    return direct + by_name + by_import


def select(changed, tests=None, read=None, limit=MAX_FILES):
    """(files to run with their reasons, files left out)."""
    found = touched_tests(changed, tests, read)
    if not found:
        return [(t, 'smoke subset (the change touches no functional test)')
                for t in SMOKE], []
    return found[:limit], [t for t, _ in found[limit:]]


def _cpu():
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _step(title, argv):
    """Run one step; its wall time and the CPU time of its processes are printed
    (on a shared machine the CPU time says what the step costs, the wall time
    what the load made of it)."""
    print('==== test-quick: %s' % title, flush=True)
    started, cpu = time.monotonic(), _cpu()
    rc = subprocess.call(argv, cwd=ROOT)
    took = time.monotonic() - started
    print('==== test-quick: %s: %s in %.0f s (CPU %.0f s)'
          % (title, 'ok' if rc == 0 else 'FAILED (exit %d)' % rc, took, _cpu() - cpu),
          flush=True)
    return rc, took


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--list', action='store_true',
                        help='print the functional tests the change touches; run nothing')
    parser.add_argument('--base', help='compare with this ref (default: origin/main, main)')
    args = parser.parse_args(argv)
    changed = changed_files(args.base)
    chosen, left = select(changed)
    for test, why in chosen:
        print('functional: %s (%s)' % (test, why))
    if left:
        print('functional: %d more touched, not run here (make test-functional runs them): %s'
              % (len(left), ' '.join(left)))
    if args.list:
        return 0
    py = sys.executable
    steps = [
        ('ruff check .', [py, '-m', 'ruff', 'check', '.']),
        ('mypy', [py, '-m', 'mypy']),
        ('unit tier', [py, '-m', 'pytest', '-n', 'auto', '-q', 'tests/unit']),
        ('touched functional tests', [py, '-m', 'pytest', '-n', 'auto', '-q',
                                      *[t for t, _ in chosen]]),
    ]
    total, cpu = 0.0, _cpu()
    for title, step in steps:
        rc, took = _step(title, step)
        total += took
        if rc != 0:
            print('test-quick: failed at %s after %.0f s' % (title, total))
            return rc
    print('test-quick: passed in %.0f s (CPU %.0f s)' % (total, _cpu() - cpu))
    return 0


if __name__ == '__main__':
    sys.exit(main())
