"""Leader/follower queues: who arrives while a batch is being written waits for the next.

The shape of every group commit in berth: callers queue their entries under
a key; the caller that finds the key idle leads, writing whatever is queued
(up to ``max_batch`` entries) in one go; the entries that arrived meanwhile
wait, and when the leader is done the head of what is left leads the next
batch.  Nothing waits on purpose: a lone caller writes at once.  Used by the
conductor's claims (conductor/manager/claim_batch.py) and the API's new node
allocation rows (objects/baremetal/allocation_inserts.py).

An entry is any object with a ``lead`` flag and a ``wake`` Event
(:class:`Entry` is the least one); what a batch means is the ``write``
callable's: ``write(key, batch)``, which sets each entry's outcome on the
entry itself and must not raise for one entry's sake.
"""

import collections
from collections.abc import Callable, Hashable, Sequence
import threading
from typing import Any


class Entry:
    """What the queue needs of an entry: ``lead`` when it must write the next batch."""

    __slots__ = ('lead', 'wake')

    def __init__(self) -> None:
        self.lead = False
        self.wake = threading.Event()


class GroupQueues:
    """Per key, a queue of entries and at most one leader writing from it.

    :param write: ``write(key, batch)`` writes ``batch`` (a list of entries
        of ``key``, in queue order); called by the leading caller's thread.
    :param max_batch: the most entries one write takes (None: all queued).
    """

    def __init__(self, write: Callable[[Any, list], None], max_batch: int | None = None):
        self._write = write
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._queues: dict[Hashable, collections.deque] = {}   # present while led

    def waiting(self, key: Hashable) -> int:
        """Entries queued under ``key`` and not yet taken by a write."""
        with self._lock:
            return len(self._queues.get(key, ()))

    def submit(self, key: Hashable, entries: Sequence[Any]) -> None:
        """Queue ``entries`` under ``key``; return once every one has been written."""
        with self._lock:
            queue = self._queues.get(key)
            entries[0].lead = queue is None
            if queue is None:
                queue = self._queues[key] = collections.deque()
            queue.extend(entries)
        for entry in entries:
            if not entry.lead:
                entry.wake.wait()
            if entry.lead:
                self._lead(key)

    def _lead(self, key: Hashable) -> None:
        """Write the next batch of ``key``, wake it and hand over the lead."""
        with self._lock:
            queue = self._queues[key]
            size = len(queue) if self.max_batch is None else min(len(queue), self.max_batch)
            batch = [queue.popleft() for _ in range(size)]
        try:
            self._write(key, batch)
        finally:
            with self._lock:
                successor = queue[0] if queue else None
                if successor is None:
                    del self._queues[key]
                else:
                    successor.lead = True
            for entry in batch:
                entry.lead = False
                entry.wake.set()
            if successor is not None:
                successor.wake.set()
