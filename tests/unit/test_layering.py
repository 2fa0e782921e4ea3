"""The import arrows of DESIGN.md: cli -> api, conductor -> objects -> db.

api never imports db or the conductor's server side; objects never import
api, conductor or cli; db imports nothing above it; common imports nothing of
berth's; conductor.rpcapi never imports the server side or the API.

Inside objects/ the domains point down too: sql (shared helpers) imports no
other domain; placement imports only sql; the candidate engine, bare metal and
the legacy import build on placement and never on each other.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

FORBIDDEN = {
    'api': ('db', 'conductor.manager', 'conductor.periodic', 'conductor.service', 'cli'),
    'objects': ('api', 'conductor', 'cli'),
    'db': ('objects', 'api', 'conductor', 'cli', 'common'),
    'common': ('api', 'conductor', 'objects', 'db', 'cli'),
    'conductor/rpcapi': ('conductor.manager', 'conductor.periodic', 'api', 'db'),
    'conductor': ('api', 'cli', 'db'),
    'objects/sql': ('objects.placement', 'objects.candidates', 'objects.baremetal',
                    'objects.legacy'),
    'objects/placement': ('objects.candidates', 'objects.baremetal', 'objects.legacy'),
    'objects/candidates': ('objects.baremetal', 'objects.legacy'),
    'objects/baremetal': ('objects.candidates', 'objects.legacy'),
    'objects/legacy': ('objects.candidates', 'objects.baremetal'),
}

# the exceptions of common/ sit below every layer: db raises StorageFull
# (db/storage.py: a full disk named as such by both APIs, and across RPC)
ALLOWED = {'db': ('common.exception',)}

OBJECT_DOMAINS = ('adoption', 'baremetal', 'candidates', 'legacy', 'placement', 'sql')


def _imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def _violations(package, banned, allowed=()):
    found = []
    for path in sorted((ROOT / package).rglob('*.py')):
        for name in _imports(path):
            if name in allowed:
                continue
            for prefix in banned:
                if name == prefix or name.startswith(prefix + '.'):
                    found.append('%s imports %s' % (path.relative_to(ROOT), name))
    return found


@pytest.mark.parametrize('package', sorted(FORBIDDEN))
def test_arrows(package):
    assert _violations(package, FORBIDDEN[package], ALLOWED.get(package, ())) == []


def test_objects_modules_live_in_their_domain():
    # only the process-wide entry points stay at the top of objects/
    loose = sorted(p.name for p in (ROOT / 'objects').glob('*.py'))
    assert loose == ['__init__.py', 'bootstrap.py', 'database.py', 'status.py']
    subpackages = sorted(p.name for p in (ROOT / 'objects').iterdir()
                         if (p / '__init__.py').exists())
    assert subpackages == list(OBJECT_DOMAINS)


# spelled in pieces so this file does not match its own search
_BANNED = ('import ' + 'eventlet', 'monkey' + '_patch(', 'cfg.' + 'CONF')


def test_no_eventlet_and_no_global_conf():
    bad = []
    for top in ('api', 'cli', 'common', 'conductor', 'db', 'objects'):
        for path in (ROOT / top).rglob('*.py'):
            text = path.read_text()
            if any(marker in text for marker in _BANNED):
                bad.append(str(path.relative_to(ROOT)))
    assert bad == []


# the allocation writers that only a conductor calls (DESIGN.md, routing:
# every allocation write goes over RPC to its owner)
CONDUCTOR_WRITERS = ('objects.baremetal.reservation', 'objects.baremetal.deallocation',
                     'objects.baremetal.backfill',
                     'objects.baremetal.mirror')


def _api_writer_uses(path):
    """Imports of the conductor's writers, and node writes told to deallocate."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for name in _imports(path):
        if any(name == w or name.startswith(w + '.') for w in CONDUCTOR_WRITERS):
            yield 'imports %s' % name
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == 'objects.baremetal':
            for alias in node.names:
                if 'objects.baremetal.' + alias.name in CONDUCTOR_WRITERS:
                    yield 'imports objects.baremetal.%s' % alias.name
        if isinstance(node, ast.Call) and any(k.arg == 'deallocate'
                                              for k in node.keywords):
            yield 'line %d passes deallocate=' % node.lineno


def test_no_allocation_write_in_the_api_process():
    found = ['%s %s' % (p.relative_to(ROOT), use)
             for p in sorted((ROOT / 'api').rglob('*.py')) for use in _api_writer_uses(p)]
    assert found == []


def test_the_writer_check_can_fail(tmp_path):
    bad = tmp_path / 'bad.py'
    bad.write_text('from objects.baremetal import backfill\n'
                   'import objects.baremetal.mirror\n'
                   'node_obj.destroy(ctx, n, deallocate=True)\n')
    assert len(list(_api_writer_uses(bad))) == 3
def test_every_logger_is_under_berth():
    """Log lines name berth's modules as berth.<module> (oslo.log levels per prefix)."""
    bad = []
    for top in ('api', 'cli', 'common', 'conductor', 'db', 'objects'):
        for path in (ROOT / top).rglob('*.py'):
            if 'getLogger(__name__)' in path.read_text():
                bad.append(str(path.relative_to(ROOT)))
    assert bad == []


def test_no_handler_imports_another_handler():
    """Shared pieces live in api/common, api/<api>/ or conductor.rpcapi, not in a handler."""
    bad = []
    for api in ('placement', 'baremetal'):
        for path in sorted((ROOT / 'api' / api / 'handlers').glob('*.py')):
            for name in _imports(path):
                if name.startswith(('api.placement.handlers', 'api.baremetal.handlers')):
                    bad.append('%s imports %s' % (path.relative_to(ROOT), name))
    assert bad == []


# Callables that objects/ may take, each with why it cannot lead back up a
# floor: (module, function, parameter).  Everything else in objects/ takes
# data or objects of objects/, never a callable a caller above passes in
# (issue 38: node ordering, the tree lock and the claim writer were such
# callbacks into conductor/).
CALLABLE_ALLOWED = {
    # a memo: computes the answer on a miss, in the caller's own process
    ('objects/candidates/answer_cache.py', 'AnswerCache.get', 'compute'),
    # builds the one value per database (called with objects' classes only)
    ('objects/candidates/per_database.py', 'PerDatabase.__init__', 'factory'),
    # berth-manage's progress lines, called after each batch
    ('objects/legacy/compute_node_import.py', 'run', 'progress'),
    ('objects/legacy/online_migrations.py', 'run', 'progress'),
}


def _callable_names(tree):
    """``Callable`` and the module's aliases of a Callable type (``Order = Callable[...]``)."""
    names = {'Callable'}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if 'Callable' in ast.unparse(node.value):
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _callable_parameters(path, root=ROOT):
    """``(module, function, parameter)`` of each public function or method (its
    constructor included) of ``path`` with a parameter typed as a callable."""
    tree = ast.parse(path.read_text(), filename=str(path))
    callables = _callable_names(tree)
    module = path.relative_to(root).as_posix()

    def typed_callable(annotation):
        if annotation is None:
            return False
        text = ast.unparse(annotation)
        return any(n.id in callables for n in ast.walk(ast.parse(text.strip("'\""),
                                                                  mode='eval'))
                   if isinstance(n, ast.Name))

    functions = [(node.name, node) for node in tree.body if isinstance(node, _FUNCS)]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith('_'):
            functions += [('%s.%s' % (node.name, item.name), item) for item in node.body
                          if isinstance(item, _FUNCS)]
    for name, func in functions:
        last = name.rsplit('.', 1)[-1]
        if last.startswith('_') and last != '__init__':
            continue
        args = func.args
        for param in args.posonlyargs + args.args + args.kwonlyargs:
            if typed_callable(param.annotation):
                yield module, name, param.arg


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def test_no_function_in_objects_takes_a_callable():
    """objects/ is called, it never calls back up: no callable crosses into it."""
    found = [f for p in sorted((ROOT / 'objects').rglob('*.py'))
             for f in _callable_parameters(p)]
    assert sorted(set(found) - CALLABLE_ALLOWED) == []
    assert sorted(CALLABLE_ALLOWED - set(found)) == []     # no stale entry


def test_the_callable_check_can_fail(tmp_path):
    bad = tmp_path / 'bad.py'
    bad.write_text('from collections.abc import Callable\n'
                   'Order = Callable[[int], list]\n'
                   'def reserve(ctx, alloc_id: int, order: Order) -> None: ...\n'
                   'def claim(ctx, hold: "Callable[[], None] | None" = None) -> None: ...\n'
                   'def _private(fn: Callable) -> None: ...\n'
                   'class Writer:\n'
                   '    def __init__(self, write: Callable[[], None]) -> None: ...\n')
    assert list(_callable_parameters(bad, root=tmp_path)) == [
        ('bad.py', 'reserve', 'order'), ('bad.py', 'claim', 'hold'),
        ('bad.py', 'Writer.__init__', 'write')]


def _module_imports(root, package):
    """{module: the modules of ``package`` it imports, at any depth of its code}."""
    modules = {'.'.join(p.relative_to(root).with_suffix('').parts): p
               for p in (root / package).rglob('*.py')}
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
                found.update('%s.%s' % (node.module, a.name) for a in node.names)
        graph[name] = sorted(found & modules.keys() - {name})
    return graph


def _import_circles(graph):
    """Each set of modules that import one another round a circle (sorted)."""
    circles, done = [], set()
    for start in sorted(graph):
        # every module reachable from start; a circle is those that reach start back
        seen = _reach(graph, start)
        if start in seen and start not in done:
            circle = sorted(m for m in seen if start in _reach(graph, m))
            done.update(circle)
            circles.append(circle)
    return circles


def _reach(graph, start):
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_import_circle_in_bench():
    """A bench module builds on others, never back: a circle hides which one is the base."""
    assert _import_circles(_module_imports(ROOT, 'bench')) == []


def test_the_circle_check_can_fail(tmp_path):
    (tmp_path / 'b').mkdir()
    (tmp_path / 'b' / 'base.py').write_text('def main():\n    from b import top\n')
    (tmp_path / 'b' / 'top.py').write_text('from b import base\n')
    (tmp_path / 'b' / 'leaf.py').write_text('import b.base\n')
    assert _import_circles(_module_imports(tmp_path, 'b')) == [['b.base', 'b.top']]
