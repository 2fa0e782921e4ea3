"""The RPC client names every version it sends or checks (conductor/rpcapi/version.py).

A literal ``'1.6'`` at a call site says nothing of what 1.6 brought, and two
call sites of one method could drift apart; the version history names each.
"""

import ast
import pathlib
import re

from conductor.rpcapi import version as rpc_version

ROOT = pathlib.Path(__file__).resolve().parents[2]
_VERSION = re.compile(r'\d+\.\d+')


def _literal_versions(path):
    """``line: 'x.y'`` of each version-like string constant in ``path``'s code (not docstrings)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return ['%d: %r' % (node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and _VERSION.fullmatch(node.value) and id(node) not in docstrings]


def test_the_client_names_its_versions():
    found = {str(p.relative_to(ROOT)): _literal_versions(p)
             for p in sorted((ROOT / 'conductor' / 'rpcapi').glob('*.py'))
             if p.name != 'version.py'}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_check_can_fail(tmp_path):
    bad = tmp_path / 'bad.py'
    bad.write_text('"""1.0"""\nclient.prepare(version=\'1.6\')\n')
    assert _literal_versions(bad) == ["2: '1.6'"]


def test_each_named_version_is_in_the_history():
    names = ('PING', 'NODE_ALLOCATIONS', 'PLACEMENT_WRITES', 'SCHEDULE_AND_CLAIM',
             'ALLOCATION_WAIT', 'ALLOCATION_BATCH', 'NODE_WRITES', 'COMPUTE_NODE_WRITES',
             'REPLAY', 'CLAIM_BATCH', 'REPLY_SIGNING')
    for name in names:
        assert '* %s - ' % getattr(rpc_version, name) in rpc_version.__doc__, name
        assert rpc_version.allows(rpc_version.RPC_API_VERSION, getattr(rpc_version, name))
