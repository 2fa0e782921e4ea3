"""Claims in flight on this conductor: units being claimed that a search cannot see yet.

Concurrent schedule-and-claim requests on one conductor search, rank and
claim at the same time; without this record they read the same usage and
all choose the same best host, and all but one lose.  Each request chooses
under this record's lock and holds its choice here until its claim
transaction ends, and every ranking counts what is held as used.  A
committed claim stays counted for the searches that started before it
committed (their read may predate it) and is dropped once none is left.

The record is per conductor process and only an optimisation: POST /claims
is routed by consumer uuid, so claims on one tree also come through other
conductors (and PUT /allocations through the tree's owner), which this
record never sees.  Those races are still decided by the database: the
claim's own transaction checks capacity and provider generations, and a
lost race moves on to the next candidate.
"""

import contextlib
import itertools
import threading


class InFlight:
    """Per provider and resource class, the units held by claims under way."""

    def __init__(self):
        self._lock = threading.Lock()
        self._choosing = threading.Lock()
        self._clock = itertools.count(1)
        self._held = {}        # token -> [allocations, committed at (None: in flight)]
        self._views = {}       # token -> when the search started

    @contextlib.contextmanager
    def view(self):
        """Bracket a search; yields the moment it started (for :meth:`pending`)."""
        with self._lock:
            started = next(self._clock)
            self._views[started] = started
        try:
            yield started
        finally:
            with self._lock:
                del self._views[started]
                self._prune()

    def pending(self, since):
        """``{rp uuid: {class: units}}`` a search started at ``since`` cannot see.

        That is every claim in flight, and every claim committed after ``since``.
        """
        totals: dict[str, dict[str, int]] = {}
        with self._lock:
            for allocations, committed in self._held.values():
                if committed is not None and committed < since:
                    continue
                for rp, resources in allocations.items():
                    per_rp = totals.setdefault(rp, {})
                    for rc, amount in resources.items():
                        per_rp[rc] = per_rp.get(rc, 0) + amount
        return totals

    @contextlib.contextmanager
    def choosing(self, since):
        """Choose under this record's lock: yields :meth:`pending` for ``since``.

        Call :meth:`hold` with the choice before leaving, so that no other
        request of this conductor ranks between this one's choice and its hold.
        """
        with self._choosing:
            yield self.pending(since)

    def hold(self, allocations):
        """Hold ``{rp uuid: {class: units}}`` until :meth:`release`; returns a token."""
        with self._lock:
            token = next(self._clock)
            self._held[token] = [allocations, None]
        return token

    def release(self, token, committed):
        """The claim of ``token`` ended: committed (counted by older searches) or not."""
        with self._lock:
            if committed:
                self._held[token][1] = next(self._clock)
            else:
                del self._held[token]
            self._prune()

    def _prune(self):
        oldest = min(self._views, default=None)
        for token in [t for t, (_, committed) in self._held.items()
                      if committed is not None and (oldest is None or committed < oldest)]:
            del self._held[token]

    def __len__(self):
        with self._lock:
            return len(self._held)
