"""SQL is built only through SQLAlchemy expressions: no string-formatted SQL in our source.

The scan parses every module of api/, objects/, db/, conductor/, cli/ and common/
and fails on:

* a statement handed to ``text()``, ``execute()``, ``exec_driver_sql()`` (or a
  DB-API ``executescript``/``executemany``) as a string built at run time
  (f-string, ``%``, ``.format()``, concatenation) or as a literal that is not
  one of the connection-control statements SQLAlchemy cannot express
  (``PRAGMA``, ``BEGIN``, ``SET TRANSACTION``);
* any string built at run time that looks like SQL, wherever it is built
  (a query string assembled first and executed later).
"""

import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ('api', 'objects', 'db', 'conductor', 'cli', 'common')
SINKS = {'text', 'execute', 'exec_driver_sql', 'executescript', 'executemany'}
CONTROL = re.compile(r'^\s*(PRAGMA\s+\w+(\s*=\s*\w+)?|BEGIN( IMMEDIATE)?|'
                     r'SET TRANSACTION( READ ONLY| READ WRITE)?|'
                     # MySQL: a read-only snapshot, a session's SQL mode
                     r'START TRANSACTION WITH CONSISTENT SNAPSHOT(, READ ONLY)?|'
                     r"SET SESSION sql_mode = CONCAT\(@@SESSION\.sql_mode, ',[A-Z_]+'\))\s*$",
                     re.I)
SQL = re.compile(r'\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\S+\s+SET\b|'
                 r'\bDELETE\s+FROM\b|\b(ALTER|DROP|CREATE)\s+TABLE\b|'
                 r'\bWHERE\s+\S+\s*(=|<|>|\bIN\b|\bLIKE\b)', re.I)


def _literal_text(node):
    """The constant text pieces of a string expression (for the SQL look-alike test)."""
    return ' '.join(n.value for n in ast.walk(node)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str))


def _is_built_string(node):
    """A string assembled at run time: f-string, %, .format(), or + with a literal."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        return any(isinstance(n, ast.Constant) and isinstance(n.value, str)
                   for n in (node.left, node.right)) or any(
            _is_built_string(n) for n in (node.left, node.right))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == 'format'):
        return isinstance(node.func.value, (ast.Constant, ast.JoinedStr))
    return False


def _sink_name(call):
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def scan_source(source, filename='<source>'):
    """``[(line, why)]`` for every string-formatted or raw SQL in ``source``."""
    hits = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and _sink_name(node) in SINKS and node.args:
            arg = node.args[0]
            if _is_built_string(arg):
                hits.append((node.lineno, '%s() of a string built at run time'
                             % _sink_name(node)))
            elif isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                if not CONTROL.match(arg.value):
                    hits.append((node.lineno, '%s() of raw SQL %r'
                                 % (_sink_name(node), arg.value[:60])))
        if _is_built_string(node) and SQL.search(_literal_text(node)):
            hits.append((node.lineno, 'SQL assembled as a string'))
    return hits


def _modules():
    for package in PACKAGES:
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, package)):
            for name in sorted(files):
                if name.endswith('.py'):
                    yield os.path.join(dirpath, name)


def test_no_string_formatted_sql_in_our_source():
    modules = list(_modules())
    assert len(modules) > 50  # the scan really walked the tree
    hits = []
    for path in modules:
        with open(path, encoding='utf-8') as f:
            for line, why in scan_source(f.read(), path):
                hits.append('%s:%d: %s' % (os.path.relpath(path, ROOT), line, why))
    assert hits == []


@pytest.mark.parametrize('snippet', [
    "conn.execute(text('SELECT * FROM t WHERE id = %s' % x))",
    "conn.execute(sa.text(f'DELETE FROM t WHERE id = {x}'))",
    "conn.execute(text('UPDATE t SET a = {}'.format(a)))",
    "conn.execute('SELECT 1 FROM t')",
    "conn.exec_driver_sql('DROP TABLE t')",
    "session.execute(text('SELECT id FROM t WHERE name = :n'), {'n': n})",
    "q = 'SELECT id FROM ' + table\nconn.execute(q)",
    "q = f'SELECT id FROM t WHERE name = {name!r}'",
    "cursor.executescript('INSERT INTO t VALUES (1)')",
])
def test_the_scan_finds_string_sql(snippet):
    assert scan_source(snippet)


@pytest.mark.parametrize('snippet', [
    "session.execute(sa.select(t.c.id).where(t.c.name == name))",
    "session.execute(t.update().where(t.c.id == 1).values(a=2))",
    "dbapi_con.execute('PRAGMA journal_mode=WAL')",
    "conn.exec_driver_sql('BEGIN IMMEDIATE')",
    "conn.exec_driver_sql('SET TRANSACTION READ ONLY')",
    "conn.exec_driver_sql('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY')",
    "LOG.info('Updated %s providers where needed', n)",
    "raise ValueError('select one of %s' % choices)",
])
def test_the_scan_accepts_expressions_and_control_statements(snippet):
    assert scan_source(snippet) == []
