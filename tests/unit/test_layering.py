"""The import arrows of DESIGN.md: cli -> api, conductor -> objects -> db.

api never imports db or the conductor's server side; objects never import
api, conductor or cli; db imports nothing above it; common imports nothing of
berth's; conductor.rpcapi never imports the server side or the API.
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
}


def _imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def _violations(package, banned):
    found = []
    for path in sorted((ROOT / package).rglob('*.py')):
        for name in _imports(path):
            for prefix in banned:
                if name == prefix or name.startswith(prefix + '.'):
                    found.append('%s imports %s' % (path.relative_to(ROOT), name))
    return found


@pytest.mark.parametrize('package', sorted(FORBIDDEN))
def test_arrows(package):
    assert _violations(package, FORBIDDEN[package]) == []


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
