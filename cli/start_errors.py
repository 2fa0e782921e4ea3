"""One line for the start failures an operator causes and can fix.

A long-running command whose start fails prints ``<name>: cannot start:
<line>`` (cli/lifecycle.py).  For the mistakes below the line says what is
wrong and what to change, and no traceback is logged: the exception's own
text (a driver's multi-line error, a socket's errno) is not an instruction.
Anything else keeps its traceback in the log: it is a bug to report.
"""

import errno
import re
from typing import Any

# the schema is missing or older than the code (SQLite, PostgreSQL, MySQL/MariaDB)
_NO_SCHEMA = ('no such table', 'no such column', 'undefinedtable', 'undefinedcolumn',
              "doesn't exist", 'unknown column')
_NO_SCHEMA_PG = re.compile(r'(relation|column) "[^"]+" does not exist')
# the database server is not there (any driver's wording; db/connect.py retried it)
_UNREACHABLE = ('could not connect to server', 'connection refused',
                "can't connect to mysql server", 'no route to host', 'timeout expired',
                'unable to open database file')
_ADDRESS = re.compile(r"\(?'?([0-9a-fA-F.:]+)'?,\s*(\d+)\)?")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _port_options(conf: Any, port: int) -> list[str]:
    """The options that set ``port``, as an operator would change them."""
    names = []
    for group, name in (('api', 'placement_port'), ('api', 'baremetal_port'),
                        ('metrics', 'conductor_port')):
        try:
            value = getattr(getattr(conf, group), name)
        except Exception:       # a ConfigOpts without that group
            continue
        if value == port:
            names.append('[%s] %s' % (group, name))
    return names


def describe(exc: BaseException, conf: Any = None) -> str | None:
    """The one line for ``exc``, or None when it is not an operator's mistake."""
    text = str(exc).lower()
    if isinstance(exc, OSError) and (exc.errno == errno.EADDRINUSE
                                     or 'address already in use' in text):
        match = _ADDRESS.search(str(exc))
        where = ('%s:%s' % match.groups()) if match else 'a listening address'
        options = _port_options(conf, int(match.group(2))) if match and conf else []
        change = (' or '.join(options) if options else 'the port options') + \
            ' (berth serve: --placement-port / --baremetal-port)'
        return ('%s is already in use by another program: stop it or change %s'
                % (where, change))
    if any(word in text for word in _NO_SCHEMA) or _NO_SCHEMA_PG.search(text):
        return ('the database has no berth schema, or an older one (%s): run '
                '`berth-manage --config-file <the same file> db sync`'
                % _first_line(exc)[:160])
    if any(word in text for word in _UNREACHABLE):
        return ('the database cannot be reached (%s): is its server running, and is '
                '[database] connection right?' % _first_line(exc)[:160])
    return None
