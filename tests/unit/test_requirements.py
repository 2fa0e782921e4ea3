"""Every third-party module the shipped packages import is a declared requirement.

A wheel installs what ``requirements.txt`` lists (pbr's install_requires) and
nothing else: a module imported but only present through the test
requirements works in every test and dies in an operator's venv.  The other
way round, a requirement nothing imports is dead weight for packagers.
"""

import ast
import configparser
from importlib import metadata
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHIPPED = ('api', 'cli', 'common', 'conductor', 'db', 'objects')
# declared although no module imports them, and why
NOT_IMPORTED = {
    'gunicorn': 'the WSGI server etc/berth/gunicorn.conf.py runs berth under',
}


def normalize(name):
    """A distribution name as PEP 503 compares them (oslo.config == oslo-config)."""
    return re.sub(r'[-_.]+', '-', name).lower()


def _requirement_name(line):
    line = line.split('#', 1)[0].strip()
    match = re.match(r'[A-Za-z0-9][A-Za-z0-9._-]*', line)
    return normalize(match.group(0)) if match else None


def declared_requirements():
    lines = (ROOT / 'requirements.txt').read_text().splitlines()
    return {name for name in map(_requirement_name, lines) if name}


def declared_extras():
    parser = configparser.ConfigParser()
    parser.read(ROOT / 'setup.cfg')
    return {name for _extra, value in parser.items('extras')
            for name in map(_requirement_name, value.splitlines()) if name}


def top_level_imports(paths, root=ROOT):
    """{top-level module name: first file importing it} of absolute imports."""
    found = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split('.', 1)[0], path.relative_to(root))
    return found


def shipped_files():
    return sorted(p for pkg in SHIPPED for p in (ROOT / pkg).rglob('*.py'))


def undeclared(imports, declared, distributions):
    """``module (file): distributions`` for each import no declared requirement covers."""
    problems = []
    for module, where in sorted(imports.items()):
        if module in sys.stdlib_module_names or module in SHIPPED or module == '__future__':
            continue
        dists = {normalize(d) for d in distributions.get(module, ())}
        if not dists & declared:
            problems.append('%s (%s): %s' % (module, where, sorted(dists) or 'not installed'))
    return problems


def test_every_imported_module_is_declared():
    problems = undeclared(top_level_imports(shipped_files()),
                          declared_requirements() | declared_extras(),
                          metadata.packages_distributions())
    assert not problems, ('imported but not in requirements.txt (or a setup.cfg extra): %s'
                          % '; '.join(problems))


def test_every_requirement_is_imported():
    distributions = metadata.packages_distributions()
    used = {normalize(d) for module in top_level_imports(shipped_files())
            for d in distributions.get(module, ())}
    unused = declared_requirements() - used - set(NOT_IMPORTED)
    assert not unused, 'declared but never imported: %s' % sorted(unused)


def test_the_check_catches_an_undeclared_import(tmp_path):
    probe = tmp_path / 'probe.py'
    probe.write_text('import yaml\nfrom oslo_config import cfg\nimport json\n'
                     'from common import rpc\nfrom . import sibling\n')
    problems = undeclared(top_level_imports([probe], root=tmp_path),
                          declared_requirements(), metadata.packages_distributions())
    # PyYAML is installed (a test requirement pulls it in) but berth does not declare it
    assert problems == ["yaml (probe.py): ['pyyaml']"]


def test_the_keystone_extra_counts_only_as_an_extra():
    assert 'keystonemiddleware' in declared_extras()
    assert 'keystonemiddleware' not in declared_requirements()
