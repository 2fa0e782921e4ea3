"""Answers of read-only queries, kept while the database has not changed.

Each entry is keyed on the database's change token (db.api.Database.
change_token: SQLite's data_version, which moves on every commit from any
connection or process; PostgreSQL's snapshot, which moves whenever any
transaction completes, db/change.py) plus the caller's key.  An answer is stored only when
the token read before its computation equals the token read after it: no
commit happened in between, so the computation saw exactly the state the
token names; a later request that reads the same token sees that state too.
A computation may instead name the token of its own snapshot (it returns
``(answer, token)``): then the answer is kept only when that token equals
the one looked up.  With a replica (``[database] slave_connection``) this is
the only way an answer is kept: the watcher's connection and the read's
may reach different servers, each at its own replay position, and a
lagging server's answer must never be filed under a newer server's token
(doc/source/architecture.md, "Where reads go").
Backends without an exact detector (token None) cache nothing.  A new token
drops every older entry.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Hashable
import threading
from typing import Any

from db import api as db_api
from objects.candidates import per_database

# every answer kept is RSS: at N=10,000 one no-limit answer is ~5 MB, and
# 64 MiB of them were a third of the process (bench/candidates_tail.py)
MAX_BYTES = 16 * 1024 * 1024
READ = object()         # get()'s default token: read the database's change token there
_CACHES = per_database.PerDatabase(lambda: AnswerCache(0))


class AnswerCache:
    """At most ``entries`` answers (encoded JSON, ``max_bytes`` by len() in all) of one token.

    Least recently used answers go first.
    """

    def __init__(self, entries, max_bytes=MAX_BYTES):
        self.entries = entries
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._token = None
        self._answers = collections.OrderedDict()
        self._bytes = 0
        self._flights = {}             # (token, key) -> Event set when computed
        self.hits = self.misses = 0

    def get(self, db: db_api.Database, key: Hashable, compute: Callable[[], Any],
            token: Any = READ) -> Any:
        """``compute()``'s answer for ``key`` at the database's current state.

        ``compute`` must open its own read transaction (none may be open
        around this call, or its snapshot could predate the token).  It
        returns the answer, or (answer, token of the snapshot it read in).
        ``token``: ``db.change_token()`` as the caller read it just before,
        outside any transaction (the caller's search then needs no second
        read); by default it is read here.
        """
        if token is READ:
            token = db.change_token()
        if token is None or self.entries <= 0:
            return _split(compute())[0]
        with self._lock:
            if token == self._token and key in self._answers:
                self._answers.move_to_end(key)
                self.hits += 1
                return self._answers[key]
            self.misses += 1
            # one computation per question and state: the others wait for it
            flight = self._flights.get((token, key))
            leader = flight is None
            if flight is None:
                flight = self._flights[(token, key)] = threading.Event()
        if not leader:
            flight.wait()
            return self.get(db, key, compute, token)  # its answer, or ours if it kept none
        try:
            return self._compute(db, token, key, compute)
        finally:
            with self._lock:
                del self._flights[(token, key)]
            flight.set()

    def _compute(self, db, token, key, compute):
        answer, seen = _split(compute())
        if seen is not None:
            current = seen == token    # read in exactly the state looked up
        else:
            # before == after proves the state only when the read ran where
            # the watcher looks (no replica)
            current = db.replica_engine is None and db.change_token() == token
        if not current or getattr(answer, 'streamed', False) or len(answer) > self.max_bytes:
            # something committed meanwhile (not provably current), or an
            # answer made as it is sent (objects.candidates.wire.Streamed)
            return answer
        with self._lock:
            if _older(token, self._token):
                return answer          # newer answers are already kept
            if token != self._token:
                self._token = token
                self._answers.clear()
                self._bytes = 0
            old = self._answers.pop(key, None)
            if old is not None:
                self._bytes -= len(old)
            self._answers[key] = answer
            self._bytes += len(answer)
            while len(self._answers) > self.entries or self._bytes > self.max_bytes:
                self._bytes -= len(self._answers.popitem(last=False)[1])
        return answer


def _split(computed):
    """(answer, token of its snapshot or None) of what ``compute`` returned."""
    if isinstance(computed, tuple):
        return computed
    return computed, None


def _older(token, than):
    """Whether ``token`` names an earlier state than ``than``.

    SQLite tokens are (pid, version): versions grow within a process; a
    token of another process (a forked worker inherits its parent's cache)
    is never older: it replaces.  PostgreSQL tokens ('pg', xmax, ...) order
    by xmax first (a guess only: a wrong one costs a cache entry, never
    freshness, as entries are looked up by equal tokens).
    """
    return than is not None and token[0] == than[0] and token < than


def for_database(db: db_api.Database, entries: int) -> AnswerCache:
    """The process's AnswerCache of ``db`` (made on first use with ``entries``)."""
    cache = _CACHES(db)
    cache.entries = entries
    return cache
