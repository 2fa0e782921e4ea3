"""Concurrent ``create_allocations`` calls of one conductor share their first pass.

Each API process sends its allocations in ``create_allocations`` calls, and
a conductor behind several API processes (or one sending a lone allocation
beside a batch) runs several such calls at once, each on its own RPC thread.
Their first passes (objects/baremetal/reservation.py ``reserve_many``: one
transaction, the allocations of one shape reserved by one statement) go
together here, through a leader/follower queue (common/group_queue.py): a
call that finds no first pass running runs its own at once; calls that
arrive meanwhile wait for it and then go in one transaction together.
Nothing waits on purpose.

A call whose caller's deadline has passed is left out (its rows get no
first pass; conductor/manager/node_allocations.py drops them).  Should the
shared transaction fail, every call's rows get no first pass and go one by
one, as when a call's own batch failed.
"""

from __future__ import annotations

import logging
from typing import Any

from common import deadline, group_queue
from objects.baremetal import reservation

LOG = logging.getLogger('berth.' + __name__)


class _Entry(group_queue.Entry):
    __slots__ = ('ctx', 'alloc_ids', 'firsts')

    def __init__(self, ctx: Any, alloc_ids: list[int]) -> None:
        super().__init__()
        self.ctx = ctx
        self.alloc_ids = alloc_ids
        self.firsts: list[Any] = [None] * len(alloc_ids)


def _expired(ctx: Any) -> bool:
    value = getattr(ctx, 'deadline', None)
    return value is not None and deadline.passed(value)


class FirstPasses:
    """The shared first passes of one conductor ``host``'s allocation calls."""

    def __init__(self, host: str) -> None:
        self.host = host
        self._queue = group_queue.GroupQueues(self._write)

    def reserve(self, ctx: Any, alloc_ids: list[int]) -> list[Any]:
        """``reserve_many``'s answer for ``alloc_ids`` (None for a row left out).

        Never raises: a failed shared transaction answers None for every row.
        """
        entry = _Entry(ctx, list(alloc_ids))
        self._queue.submit(None, [entry])
        return entry.firsts

    def _write(self, _key: Any, batch: list[_Entry]) -> None:
        live = [entry for entry in batch if not _expired(entry.ctx)]
        ids = list(dict.fromkeys(i for entry in live for i in entry.alloc_ids))
        if not ids:
            return
        try:
            done = dict(zip(ids, reservation.reserve_many(live[0].ctx, ids, self.host)))
        except Exception as exc:    # noqa: BLE001 - every row then goes alone
            # the class only: a database error's text carries the statement
            LOG.debug('Shared first pass of allocations %s rolled back: %s', ids,
                      type(exc).__name__)
            return
        for entry in live:
            entry.firsts = [done.get(i) for i in entry.alloc_ids]
