"""Type annotations: where they must be whole, and how much of each package has them.

Every public (non-underscore) module-level function and every public method
of a public class in the modules of ``MODULES`` must annotate its return value
and every parameter other than self/cls, so readers and type checkers see what
the API and the conductors hand to the object layer (issue 15).

Every package directory of the service has a floor in ``FLOORS``: the share
of its function signatures (module-level functions and methods of
module-level classes, private ones included) that are fully annotated.  A
package may not fall below its floor, and the floors only go up: a package
more than ``SLACK`` points above its floor fails until the floor is raised to
what it measures (issue 38).  mypy (setup.cfg [mypy], make test-types)
checks what the annotations say.
"""

import ast
import functools
import math
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

MODULES = sorted(
    [p for p in (ROOT / 'objects' / 'placement').glob('*.py')]
    + [ROOT / 'objects' / 'candidates' / ('%s.py' % name)
       for name in ('finder', 'window', 'request', 'provider_search', 'answer_cache')]
    + [p for p in (ROOT / 'objects' / 'legacy').glob('*.py')]
    + [ROOT / 'objects' / ('%s.py' % name) for name in ('status', 'database', 'bootstrap')])

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _public_functions(tree):
    for node in tree.body:
        if isinstance(node, _FUNCS) and not node.name.startswith('_'):
            yield node.name, node, False
        elif isinstance(node, ast.ClassDef) and not node.name.startswith('_'):
            for item in node.body:
                if isinstance(item, _FUNCS) and not item.name.startswith('_'):
                    yield '%s.%s' % (node.name, item.name), item, True


def _missing(path, root=ROOT):
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for name, func, is_method in _public_functions(tree):
        args = func.args
        params = args.posonlyargs + args.args + args.kwonlyargs
        if is_method and params and params[0].arg in ('self', 'cls'):
            decorators = {getattr(d, 'id', None) for d in func.decorator_list}
            if 'staticmethod' not in decorators:
                params = params[1:]
        params += [a for a in (args.vararg, args.kwarg) if a is not None]
        where = '%s:%s %s' % (path.relative_to(root), func.lineno, name)
        for param in params:
            if param.annotation is None:
                found.append('%s: parameter %s' % (where, param.arg))
        if func.returns is None:
            found.append('%s: return' % where)
    return found


# the packages whose modules count towards FLOORS (alembic's scripts excluded)
PACKAGES = ('api', 'cli', 'common', 'conductor', 'db', 'objects')
EXCLUDED = ('db/migrations',)
# package directory -> percent of its signatures fully annotated, never less
# (measured with coverage(); raise a floor when its package gains annotations)
FLOORS = {
    'api': 3.5,             # (5.5 with the api-ref generator, now cli/api_ref)
    'api/baremetal': 0.0,
    'api/baremetal/handlers': 0.0,
    'api/baremetal/schemas': 0.0,
    'api/common': 13.5,
    'api/placement': 0.0,
    'api/placement/handlers': 5.4,
    'api/placement/schemas': 0.0,
    'cli': 39.8,
    'cli/api_ref': 24.1,
    'common': 42.5,
    'common/conf': 3.8,
    'common/policies': 0.0,
    'common/policies/baremetal': 0.0,
    'common/policies/placement': 0.0,
    'conductor': 27.2,
    'conductor/manager': 3.1,
    'conductor/periodic': 0.0,
    'conductor/rpcapi': 100.0,
    'db': 56.2,
    'objects': 87.5,
    'objects/adoption': 65.7,
    'objects/baremetal': 30.2,
    'objects/candidates': 22.0,
    'objects/candidates/weighers': 0.0,
    'objects/legacy': 63.8,
    'objects/placement': 66.8,
    'objects/sql': 12.5,
}
# points a package may stand above its floor before the floor must be raised
SLACK = 2.0


def _signatures(tree):
    """Every module-level function and method of a module-level class: (node, is_method)."""
    for node in tree.body:
        if isinstance(node, _FUNCS):
            yield node, False
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, _FUNCS):
                    yield item, True


def _fully_annotated(func, is_method):
    args = func.args
    params = args.posonlyargs + args.args + args.kwonlyargs
    if is_method and params and params[0].arg in ('self', 'cls'):
        params = params[1:]
    params += [a for a in (args.vararg, args.kwarg) if a is not None]
    return func.returns is not None and all(p.annotation is not None for p in params)


def coverage(root=ROOT, packages=PACKAGES):
    """{package directory: (annotated, total)} over the modules directly in it.

    Directories without a function (data only, such as schemas) are left out.
    """
    counts = {}
    for package in packages:
        for path in sorted((root / package).rglob('*.py')):
            where = path.parent.relative_to(root).as_posix()
            if any(where == e or where.startswith(e + '/') for e in EXCLUDED):
                continue
            done, total = counts.get(where, (0, 0))
            for func, is_method in _signatures(ast.parse(path.read_text(), str(path))):
                done += _fully_annotated(func, is_method)
                total += 1
            counts[where] = (done, total)
    return {where: n for where, n in counts.items() if n[1]}


def percent(done, total):
    """``done`` of ``total`` in percent, rounded down to a tenth (100 when empty)."""
    return math.floor(1000 * done / total) / 10 if total else 100.0


@functools.cache
def _measured():
    """coverage() of the tree, read once per run (each floor's test asks for it)."""
    return coverage()


def test_every_package_has_a_floor():
    assert sorted(_measured()) == sorted(FLOORS)


@pytest.mark.parametrize('package', sorted(FLOORS))
def test_package_coverage_holds_its_floor(package):
    done, total = _measured().get(package, (0, 0))
    measured = percent(done, total)
    assert measured >= FLOORS[package], (
        '%s: %d of %d signatures annotated (%.1f %%), below its floor %.1f %%: '
        'annotate the functions added' % (package, done, total, measured, FLOORS[package]))
    assert measured <= FLOORS[package] + SLACK, (
        '%s: %.1f %% annotated, more than %.1f points above its floor: raise '
        'FLOORS[%r] to %.1f' % (package, measured, SLACK, package, measured))


def test_coverage_counts_signatures(tmp_path):
    pkg = tmp_path / 'pkg'
    (pkg / 'sub').mkdir(parents=True)
    (pkg / 'a.py').write_text(
        'def ok(x: int) -> None:\n    pass\n'
        'def _half(x: int):\n    pass\n'
        'class K:\n'
        '    def m(self) -> int:\n        return 1\n'
        '    def n(self, y) -> int:\n        def inner(z):\n            pass\n'
        '        return 1\n')
    (pkg / 'sub' / 'b.py').write_text('def f(*a: int, **k: int) -> None:\n    pass\n')
    (pkg / 'data').mkdir()
    (pkg / 'data' / 'c.py').write_text('SCHEMA = {}\n')
    assert coverage(tmp_path, ('pkg',)) == {'pkg': (2, 4), 'pkg/sub': (1, 1)}
    assert percent(2, 3) == 66.6
    assert percent(0, 0) == 100.0


def test_modules_exist():
    assert all(path.is_file() for path in MODULES)


@pytest.mark.parametrize('path', MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_public_entry_points_annotated(path):
    assert _missing(path) == []


def test_checker_catches_missing_annotations(tmp_path):
    sample = tmp_path / 'sample.py'
    sample.write_text(
        'def ok(ctx: int) -> None:\n    pass\n'
        'def bad(ctx, *args: int, **kw) -> int:\n    return 1\n'
        'def noret(x: int):\n    pass\n'
        'def _private(x):\n    pass\n'
        'class Thing:\n'
        '    def meth(self, x: int) -> None:\n        pass\n'
        '    @classmethod\n    def make(cls, y) -> None:\n        pass\n'
        '    def _hidden(self, z):\n        pass\n')
    assert _missing(sample, root=tmp_path) == [
        'sample.py:3 bad: parameter ctx',
        'sample.py:3 bad: parameter kw',
        'sample.py:5 noret: return',
        'sample.py:13 Thing.make: parameter y',
    ]
