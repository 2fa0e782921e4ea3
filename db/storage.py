"""A write that failed because the database's storage is full, named as such.

SQLite answers SQLITE_FULL ("database or disk is full") when its file or
its WAL cannot grow (a full disk, or ``PRAGMA max_page_count``); PostgreSQL
SQLSTATE 53100 (disk_full: "could not extend file"); MySQL/MariaDB errors
1114 (ER_RECORD_FILE_FULL) and 1021 (ER_DISK_FULL).  oslo.db passes these on
as an OperationalError or a plain DBError, which the APIs would report as
"the database cannot be reached" or as a 500.  The write transactions of
db.api raise :class:`common.exception.StorageFull` instead (HTTP 507
``berth.storage_full``); the transaction was rolled back, so the same write
succeeds once space has been freed.
"""

from collections.abc import Iterator
import contextlib
from typing import Any

from common.exception import BerthException, StorageFull

SQLITE_FULL = 13
POSTGRESQL_DISK_FULL = '53100'
MYSQL_FULL = (1114, 1021)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps: oslo.db's inner exception, SQLAlchemy's DBAPI one."""
    seen = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        cur = todo.pop()
        if cur is None or id(cur) in seen:
            continue
        seen.add(id(cur))
        yield cur
        todo += [getattr(cur, 'inner_exception', None), getattr(cur, 'orig', None),
                 cur.__cause__, cur.__context__]


def is_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) says the database's storage is full."""
    for cur in _causes(exc):
        if getattr(cur, 'sqlite_errorcode', None) == SQLITE_FULL:
            return True
        if POSTGRESQL_DISK_FULL in (getattr(cur, 'pgcode', None),
                                    getattr(cur, 'sqlstate', None)):
            return True
        args = getattr(cur, 'args', ())
        if (args and type(args[0]) is int and args[0] in MYSQL_FULL
                and type(cur).__module__.split('.')[0] in ('pymysql', 'MySQLdb')):
            return True
        if 'database or disk is full' in str(cur):      # sqlite3 before 3.11 codes
            return True
    return False


@contextlib.contextmanager
def naming_full(transaction: Any) -> Iterator[Any]:
    """``transaction`` (a context manager) whose full-storage failure is StorageFull."""
    try:
        with transaction as session:
            yield session
    except BerthException:
        raise
    except Exception as exc:
        if is_full(exc):
            raise StorageFull() from exc
        raise
