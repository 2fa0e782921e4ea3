"""Prebuilt statements whose IN lists are bound value by value, in a few fixed sizes.

An ``expanding`` bind parameter makes SQLAlchemy re-render the compiled SQL
on every execution (measured at ~6% of a claim's CPU).  A statement built
with one bind parameter per value is compiled once and reused as is.  Lists
are padded to the next size of :data:`SIZES` by repeating their last value
(``x IN (a, b, b, b)`` means ``x IN (a, b)``), so each statement has at most
a handful of compiled forms; a longer list uses the expanding form, and an
empty one is ``IN (NULL)``, which matches no row (never negate such a list).

On PostgreSQL every list is one array parameter instead (``x = ANY(%(x)s)``,
which PostgreSQL plans as it plans ``x IN (...)``): one compiled form per
statement whatever the sizes, so a process compiles each statement once,
not once per combination of sizes on first use (a conductor paid ~10 % of
its CPU compiling those in a 1,000-claim run), and binds a list as is.
Builders write ``member(column, param)`` where they would write
``column.in_(param)``.
"""

import threading
from typing import Any

import sqlalchemy as sa

SIZES = (1, 2, 4, 8, 16)
# the size key of a list bound as one PostgreSQL array
ARRAY = 'array'


class _ArrayParam:
    """A list bound as one array parameter (PostgreSQL): ``member`` makes it ``= ANY``."""

    __slots__ = ('bind',)

    def __init__(self, name: str) -> None:
        self.bind: sa.BindParameter[Any] = sa.bindparam(name)


def member(column, param):
    """``column IN param``: ``param`` as a Statement's ``build`` received it."""
    if isinstance(param, _ArrayParam):
        return column == sa.any_(param.bind)
    return column.in_(param)


def _size(count):
    for size in SIZES:
        if count <= size:
            return size
    return None     # expanding


class Statement:
    """A statement built by ``build(**{name: bind parameters})`` per list size.

    ``build`` receives, for every list name, either a list of bind
    parameters (use ``column.in_(params)``) or one expanding parameter.
    """

    def __init__(self, build, *names):
        self._build = build
        self._names = names
        self._forms = {}
        self._lock = threading.Lock()

    def _form(self, sizes):
        form = self._forms.get(sizes)
        if form is None:
            params: dict[str, _ArrayParam | sa.BindParameter[Any] | list[Any]] = {}
            for name, size in zip(self._names, sizes):
                if size is ARRAY:
                    params[name] = _ArrayParam(name)
                elif size is None:
                    params[name] = sa.bindparam(name, expanding=True)
                elif size == 0:
                    params[name] = [sa.null()]
                else:
                    params[name] = [sa.bindparam('%s_%d' % (name, i))
                                    for i in range(size)]
            with self._lock:
                form = self._forms.setdefault(sizes, self._build(**params))
        return form

    def bind(self, values=None, arrays=False, **lists):
        """``(statement, parameters)`` for ``lists`` (name: values) and plain ``values``.

        ``arrays``: bind every list as one array (PostgreSQL only).
        """
        params = dict(values or {})
        if arrays:
            for name in self._names:
                params[name] = list(lists[name])
            return self._form((ARRAY,) * len(self._names)), params
        sizes = []
        for name in self._names:
            items = list(lists[name])
            size = _size(len(items)) if items else 0
            sizes.append(size)
            if size is None:
                params[name] = items
            elif size:
                items += [items[-1]] * (size - len(items))
                for i, item in enumerate(items):
                    params['%s_%d' % (name, i)] = item
        return self._form(tuple(sizes)), params

    def execute(self, conn, values=None, **lists):
        """Run the statement on ``conn`` (a Connection or Session)."""
        statement, params = self.bind(values, arrays=_arrays(conn), **lists)
        return conn.execute(statement, params)


def _arrays(conn):
    """Whether ``conn`` (a Connection or Session) binds lists as arrays: PostgreSQL."""
    dialect = getattr(conn, 'dialect', None)
    if dialect is None:
        dialect = conn.get_bind().dialect
    return dialect.name == 'postgresql'
