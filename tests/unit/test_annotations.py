"""The public entry points of objects/ carry type annotations (issue 15).

Every public (non-underscore) module-level function and every public method
of a public class in the modules below must annotate its return value and
every parameter other than self/cls, so readers and type checkers see what
the API and the conductors hand to the object layer.
"""

import ast
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
