"""New node allocation rows of concurrent POSTs stored in one transaction (group commit).

``POST /v1/allocations`` stores its row before it hands it to a conductor,
one transaction each: under many callers that is one BEGIN, INSERT and
COMMIT per allocation on the database and a session per request in the API.
:func:`create` instead lets the rows that arrive while one insert is out
wait for it to end and then go together, in one multi-row INSERT of one
transaction (nothing is delayed on purpose: a lone caller writes at once,
exactly as :func:`objects.baremetal.allocation.create`).

Each caller still gets what ``allocation.create`` would give it: its row's
id, or its own error.  A batch the database refuses as a whole (a name or
uuid taken, a lost connection) is not guessed at: each of its rows is then
written again on its own, by its own caller's context, so the error is that
row's.  A row with a per-project ``extra`` cap to check, and an engine that
cannot return a multi-row INSERT's ids in order, take the single-row path.

On a server engine (PostgreSQL, MySQL) a batch is written on a plain
SQLAlchemy connection (``Database.core_writer``), not an ORM session: the same
statements, listeners and error translation, without a session built and
torn down per transaction (~10 % of the API's CPU per POST in a profile).
SQLite's writes stay in the session, behind the process's write lock.
"""

import threading
from typing import Any
import weakref

from common import group_queue
from common.node_allocation_contract import NewAllocation
from db import api as db_api
from objects.baremetal import allocation, extra_usage

# one queue per Database object (an embedded process may hold several)
_GROUPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_GROUPS_LOCK = threading.Lock()


class _Entry(group_queue.Entry):
    __slots__ = ('ctx', 'new', 'conductor_affinity', 'result', 'error')

    def __init__(self, ctx: Any, new: NewAllocation, conductor_affinity: str | None) -> None:
        super().__init__()
        self.ctx = ctx
        self.new = new
        self.conductor_affinity = conductor_affinity
        self.result: Any = None
        self.error: Exception | None = None


def _group(db: Any) -> group_queue.GroupQueues:
    with _GROUPS_LOCK:
        group = _GROUPS.get(db)
        if group is None:
            group = _GROUPS[db] = group_queue.GroupQueues(lambda _key, batch: _write(batch))
        return group


def create(ctx: Any, new: NewAllocation, conductor_affinity: str | None,
           extra_cap: int = 0) -> allocation.NodeAllocation:
    """:func:`objects.baremetal.allocation.create`, grouped with concurrent callers."""
    if extra_cap and extra_usage.size(new.extra):
        # locks its owner's row
        return allocation.create(ctx, new, conductor_affinity, extra_cap)
    entry = _Entry(ctx, new, conductor_affinity)
    _group(ctx.db).submit(None, [entry])
    if entry.error is not None:
        raise entry.error
    return entry.result


def _write(batch: list[_Entry]) -> None:
    """Store ``batch``'s rows, setting each entry's result or error."""
    db = batch[0].ctx.db
    if len(batch) > 1 or not db.is_sqlite:
        try:
            insert = _insert_many if db.is_sqlite else _insert_on_connection
            for entry, alloc in zip(batch, insert(batch[0].ctx, batch)):
                entry.result = alloc
            return
        except Exception:   # noqa: BLE001 - each row again, alone: its own error
            pass
    for entry in batch:
        try:
            entry.result = allocation.create(entry.ctx, entry.new, entry.conductor_affinity)
        except Exception as exc:   # noqa: BLE001 - the caller's to raise
            entry.error = exc


@db_api.writer
def _insert_many(ctx: Any, batch: list[_Entry]) -> list[Any]:
    """One transaction, one INSERT per set of columns; the rows in ``batch`` order."""
    return _insert_rows(ctx.session, batch)


def _insert_on_connection(ctx: Any, batch: list[_Entry]) -> list[Any]:
    """:func:`_insert_many` in a transaction of a plain connection (server engines).

    The database layer's Core writer (db.api.Database.core_writer), the one
    the conductors' claims use: the primary, oslo.db's transaction bookkeeping.
    """
    with ctx.db.core_writer(ctx) as conn:
        return _insert_rows(conn, batch)


def _insert_rows(conn: Any, batch: list[_Entry]) -> list[Any]:
    """``batch``'s rows inserted through ``conn`` (a session or a connection)."""
    dialect = conn.get_bind().dialect if hasattr(conn, 'get_bind') else conn.dialect
    now = allocation.stamp_for(dialect.name)
    rows = [allocation.new_row(entry.new, entry.conductor_affinity, now) for entry in batch]
    if len(rows) == 1:      # any engine: the single-row INSERT and its primary key
        row = rows[0]
        alloc_id = conn.execute(allocation.INSERT, dict(
            row, extra_bytes=extra_usage.size(row.get('extra')))).inserted_primary_key[0]
        return [allocation.as_written(row, alloc_id)]
    if not getattr(dialect, 'insert_executemany_returning_sort_by_parameter_order',
                   False):
        raise NotImplementedError('no ordered RETURNING of a multi-row INSERT')
    ids: list[int] = [0] * len(rows)
    by_columns: dict[frozenset[str], list[int]] = {}
    for index, row in enumerate(rows):
        by_columns.setdefault(frozenset(row), []).append(index)
    for indexes in by_columns.values():
        stored = conn.execute(
            allocation.INSERT_RETURNING_ID,
            [dict(rows[i], extra_bytes=extra_usage.size(rows[i].get('extra')))
             for i in indexes]).scalars().all()
        for i, alloc_id in zip(indexes, stored):
            ids[i] = alloc_id
    return [allocation.as_written(row, alloc_id) for row, alloc_id in zip(rows, ids)]
