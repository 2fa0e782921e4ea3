"""Group commit of waiting ``create_allocation`` calls: one RPC call per batch per conductor.

Concurrent POST /v1/allocations for the same owner conductor would each pay
a whole oslo.messaging call (send, dispatch, reply) on the API, the broker
and the conductor.  Here the first request for a host sends at once; the
requests that arrive while that host already has ``in_flight`` calls
outstanding queue up and the next free sender takes all of them (at most
``max_batch``) in one ``create_allocations`` call (RPC 1.5).  Every request
still gets its own answer: its allocation's outcome, None (not known in
time: the row stays ``allocating`` for its conductor), or the
ServiceUnavailable of a batch that could not be sent (each request then
deletes its own row and answers 503).

A sender that takes over the turn (its call waited while another was out)
may wait up to ``linger`` seconds before it sends, for as many new requests
as the call just answered: their callers tend to send their next requests
at once, and with one call out at a time per conductor the concurrent
requests otherwise settle into two halves that take turns, each half a call
of its own.  Likewise the first request soon after (:data:`RETURN_LINGERS`
lingers) a call of several requests left the conductor idle waits for the rest of that
call's callers (it is most likely one of them): otherwise it went alone and
the others queued behind it, one call in two carrying a single request.
It waits only under concurrency (the first request to a conductor idle for
longer, or after a call of one request, goes at once), never longer than
``linger``, and not at all with ``linger`` 0 (the default).

Every request keeps the deadline it arrived with (common.deadline, opened by
berth-api as the request arrived): one that passed it while queued is
answered RequestExpired (503, nothing sent), and a call carries the earliest
deadline of its requests, so none of them is written after its caller's.

Only requests of the same caller share a call: the conductor checks the
allocation rules on the context of the message (conductor.manager.authz),
so a batch carries one caller's context and that caller's rows only.
"""

from __future__ import annotations

from collections.abc import Callable
import threading
import time
from typing import Any, Generic, TypeVar

from common import deadline, exception

# what one request hands to ``send``: an allocation id, or a claim's dict
# (conductor/rpcapi/claim_batch.py coalesces claims with the same machinery)
Item = TypeVar('Item')
# most (host, caller) keys remembered as just gone idle (cleared beyond it)
IDLE_KEYS = 1024
# how long after a call left its conductor idle (in lingers) its callers count
# as coming back: each has to get its answer and send its next request, a
# few ms under load, longer than the linger the first of them may wait
RETURN_LINGERS = 10


def caller_key(ctx: Any) -> Any:
    """What the conductor's policy check sees of ``ctx``: requests batch only when equal."""
    values = getattr(ctx, 'to_policy_values', None)
    if values is None:
        return None
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                        for k, v in dict(values()).items()))


class _Entry(Generic[Item]):
    """One request's allocation waiting for its batch."""

    __slots__ = ('alloc_id', 'done', 'result', 'error', 'lead', 'deadline')

    def __init__(self, alloc_id: Item) -> None:
        self.alloc_id = alloc_id
        self.deadline = deadline.current()    # its request's (None: none open)
        self.done = threading.Event()
        self.result: Any = None
        self.error: Exception | None = None
        self.lead = False    # set with ``done``: this entry's thread sends the next batch


class _Host:
    __slots__ = ('pending', 'sending', 'answered', 'rejoining')

    def __init__(self) -> None:
        self.pending: list[_Entry[Any]] = []
        self.sending = 0
        self.answered = 0   # requests the call before the next sender's answered
        # the next sender is one of ``answered``, back after its call went idle
        self.rejoining = False


class AllocationBatcher(Generic[Item]):
    """Coalesces concurrent waiting allocation calls per conductor host.

    :param send: ``send(ctx, host, allocation_ids, wait) -> [result]``, one
        result per id, in order; raises ServiceUnavailable when not sent.
    :param in_flight: how many batch calls one host may have outstanding.
    :param max_batch: the most allocations one call carries.
    :param linger: seconds a sender that took over the turn may wait for
        requests to join its batch (see the module's doc); 0: none.
    :param linger_below: linger only when the call just answered carried
        fewer requests than this (0: whatever it carried).  Merging the two
        halves saves one call in two: a call's whole CPU shared by few
        requests when calls are small, little per request when they are
        large, for the same added latency.
    """

    def __init__(self, send: Callable[[Any, str, list[Item], float], list[Any]],
                 in_flight: int = 1, max_batch: int = 32, linger: float = 0,
                 linger_below: int = 0, method: str = 'create_allocations') -> None:
        self._send = send
        self.method = method
        self.in_flight = max(1, in_flight)
        self.max_batch = max(1, max_batch)
        self.linger = max(0.0, linger)
        self.linger_below = max(0, linger_below)
        self._lock = threading.Lock()
        self._joined = threading.Condition(self._lock)   # a request queued
        self._hosts: dict[tuple[str, Any], _Host] = {}
        # key -> (until when, requests its last call answered): gone idle just now
        self._idle: dict[tuple[str, Any], tuple[float, int]] = {}

    def run(self, ctx: Any, host: str, alloc_id: Item, wait: float) -> Any:
        """The outcome of ``alloc_id`` on ``host`` (see ConductorAPI.create_allocation)."""
        entry: _Entry[Item] = _Entry(alloc_id)
        key = (host, caller_key(ctx))
        with self._lock:
            state = self._hosts.get(key)
            if state is None:
                state = self._hosts[key] = _Host()
                state.answered = self._just_idle(key)
                state.rejoining = bool(state.answered)
            if state.sending < self.in_flight:
                state.sending += 1
                entry.lead = True
            else:
                state.pending.append(entry)
                if state.answered:      # a sender may be lingering for it
                    self._joined.notify_all()
        if not entry.lead:
            entry.done.wait()       # a sender always answers or hands over
            if entry.lead:          # handed over: this thread sends the next batch
                entry.done.clear()
        if entry.lead:
            self._send_batch(ctx, key, entry, wait)
        if entry.error is not None:
            raise entry.error
        return entry.result

    def _send_batch(self, ctx: Any, key: tuple[str, Any], first: _Entry[Item],
                    wait: float) -> None:
        """Send ``first`` and what waits for ``key`` (host, caller); answer them; hand over."""
        host = key[0]
        with self._lock:
            state = self._hosts[key]
            if state.answered and self.linger and (
                    not self.linger_below or state.answered < self.linger_below):
                want = min(self.max_batch - 1,
                           len(state.pending) + state.answered - state.rejoining)
                self._joined.wait_for(lambda: len(state.pending) >= want, self.linger)
            state.answered, state.rejoining = 0, False
            take = self.max_batch - 1
            batch = [first] + state.pending[:take]
            del state.pending[:take]
        now = time.time()
        live: list[_Entry[Any]] = []
        nxt: _Entry[Any] | None
        for entry in batch:
            if entry.deadline is not None and entry.deadline <= now:
                entry.error = exception.RequestExpired(method=self.method)
            else:
                live.append(entry)
        try:
            if live:
                with deadline.exactly(min((e.deadline for e in live
                                           if e.deadline is not None), default=None)):
                    results = self._send(ctx, host, [e.alloc_id for e in live], wait)
                for entry, result in zip(live, results):
                    entry.result = result
        except Exception as exc:   # not sent: every request of the batch answers 503
            for entry in live:
                entry.error = exc
        finally:
            with self._lock:
                if state.pending:
                    nxt = state.pending.pop(0)
                    nxt.lead = True     # the sending turn passes on
                    state.answered = len(batch)
                else:
                    nxt = None
                    state.sending -= 1
                    if not state.sending:
                        del self._hosts[key]    # one entry per caller: keep none idle
                        self._went_idle(key, len(batch))
            for entry in batch:
                if entry is not first:
                    entry.done.set()
            if nxt is not None:
                nxt.done.set()

    def _went_idle(self, key: tuple[str, Any], answered: int) -> None:
        """Remember for a while that ``key``'s last call answered ``answered`` (lock held).

        Its callers tend to come back together: the first of them then
        lingers for the others (:meth:`_just_idle`) instead of going alone
        and leaving the rest to queue behind it, which kept one call in two
        at a single request.  A call of one request is not remembered: a
        lone caller never waits.
        """
        if self.linger and answered > 1:
            if len(self._idle) >= IDLE_KEYS:
                self._idle.clear()
            self._idle[key] = (time.monotonic() + RETURN_LINGERS * self.linger, answered)

    def _just_idle(self, key: tuple[str, Any]) -> int:
        """What ``key``'s last call answered if it went idle just now, else 0."""
        until, answered = self._idle.pop(key, (0.0, 0))
        return answered if until > time.monotonic() else 0
