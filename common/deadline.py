"""Deadlines of RPC writes: stamped by the caller, enforced by the conductor (RPC 1.10).

A caller that stops waiting answers 503; the write it sent must then never
land.  So every message a client sends carries, in its context, the
absolute time (Unix seconds) after which its caller no longer waits:
``berth_deadline``.  The client stamps it at the last step before signing
(:class:`StampingTransport`), so the signature (common.rpc_trust) covers
it: the deadline of a logical call when one is open on the thread
(:func:`bounded`, opened by conductor.rpcapi around a write and its
replays), else now plus the message's own timeout (a call) or the process's
RPC timeout (a cast).

The conductor adds ``[rpc] deadline_grace`` (clock skew: hosts keep their
clocks with NTP) and drops a message whose deadline has passed, at dispatch
(common.rpc_door) and again right before the claim and node-allocation
transactions commit (:func:`check`): one log line, counted in
``berth_rpc_expired{method, where}``, and nothing written.

Every message also carries the time it was sent (``berth_sent``, a context
field older conductors ignore), for its conductor's fence (:class:`Fence`):
a conductor's ring marks the times it (re)joined the ring, and a conductor
drops a message sent before the last of them, and any write while its ring
has not beaten for longer than its membership can lapse (a stopped
process). The client sends a call to another conductor once the ring dropped
the first one (conductor.rpcapi.replay): what the first one was sent can no
longer land.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import contextlib
import logging
import threading
import time
from typing import Any

import oslo_messaging as messaging
from oslo_messaging import transport as msg_transport

from common import exception, metrics

LOG = logging.getLogger('berth.' + __name__)

# the context field that carries the deadline (oslo.context ignores it)
FIELD = 'berth_deadline'
# the context field that carries when the message was sent (Unix seconds)
SENT = 'berth_sent'

_local = threading.local()


def _now(clock: Callable[[], float] | None) -> float:
    return clock() if clock is not None else time.time()


def current() -> float | None:
    """The deadline of the logical call open on this thread (None: none)."""
    return getattr(_local, 'deadline', None)


@contextlib.contextmanager
def bounded(seconds: float, clock: Callable[[], float] | None = None
            ) -> Iterator[float]:
    """Open a logical call of ``seconds`` on this thread: its messages carry its deadline.

    Nested, the earlier deadline wins (an inner call cannot outlive its caller).
    berth-api opens one per request as it arrives (api.common.app), so time
    spent before a message is sent (queued, coalesced) counts.
    """
    with bounded_at(_now(clock) + seconds):
        yield current() or 0.0


@contextlib.contextmanager
def bounded_at(when: float | None) -> Iterator[float | None]:
    """:func:`bounded` to the absolute time ``when`` (Unix seconds; None: no change)."""
    outer = current()
    if when is not None:
        _local.deadline = when if outer is None else min(outer, when)
    try:
        yield _local.deadline if when is not None else outer
    finally:
        _local.deadline = outer


@contextlib.contextmanager
def exactly(when: float | None) -> Iterator[None]:
    """This thread's deadline is ``when`` (None: none) inside, whatever it was.

    For a thread that sends others' requests (a coalesced call carries the
    earliest deadline of its requests, not its own thread's).
    """
    outer = current()
    _local.deadline = when
    try:
        yield
    finally:
        _local.deadline = outer


def remaining(default: float, clock: Callable[[], float] | None = None) -> float:
    """Seconds until the open call's deadline, at most ``default`` (``default``: none open)."""
    when = current()
    if when is None:
        return default
    return min(default, when - _now(clock))


def stamp(ctxt: dict[str, Any], timeout: float,
          clock: Callable[[], float] | None = None) -> dict[str, Any]:
    """``ctxt`` (a context dict) with its deadline: the open call's, else now + ``timeout``.

    A context that carries one already (a peer forwarding its caller's) keeps it.
    """
    if isinstance(ctxt.get(FIELD), (int, float)):
        return ctxt
    deadline = current()
    if deadline is None:
        deadline = _now(clock) + timeout
    return dict(ctxt, **{FIELD: round(deadline, 3), SENT: round(_now(clock), 3)})


class StampingTransport(msg_transport.RPCTransport):
    """An RPC transport whose messages leave with a deadline (then ``inner``'s ``_send``).

    :param inner: the transport that sends (a SigningTransport signs what
        this one stamped).
    :param default_timeout: seconds for a message sent without a timeout
        (casts): the process's RPC timeout.
    :param replies: a common.rpc_replies.ReplyListener (None: the driver's
        own, set up on the first call): a call waits for it within its
        timeout, else fails undelivered (503) having sent nothing.
    """

    def __init__(self, inner: Any, default_timeout: float, replies: Any = None) -> None:
        super().__init__(inner._driver)
        self.inner = inner
        self.default_timeout = default_timeout
        self.replies = replies

    def _send(self, target: Any, ctxt: dict[str, Any], message: Any,
              wait_for_reply: Any = None, timeout: float | None = None,
              *args: Any, **kwargs: Any) -> Any:
        ctxt = stamp(ctxt, timeout or self.default_timeout)
        if wait_for_reply and self.replies is not None and not self.replies.ready.is_set():
            started = time.monotonic()
            if not self.replies.wait(timeout or self.default_timeout):
                raise messaging.MessageDeliveryFailure(
                    'the reply queue could not be set up: the message broker '
                    'cannot be reached')
            if timeout:     # the call's bound includes the wait
                timeout = max(0.1, timeout - (time.monotonic() - started))
        return self.inner._send(target, ctxt, message, wait_for_reply, timeout,
                                *args, **kwargs)

    def cleanup(self) -> None:
        self.inner.cleanup()


def effective(value: Any, grace: float) -> float | None:
    """The deadline a conductor enforces: the stamped one plus ``grace`` (None: none)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value + grace


def passed(deadline: float | None, clock: Callable[[], float] | None = None) -> bool:
    """Whether ``deadline`` (an effective one, or None) has passed."""
    return deadline is not None and _now(clock) > deadline


def expired(method: str, where: str, deadline: float,
            clock: Callable[[], float] | None = None) -> exception.RequestExpired:
    """Log and count a dropped request; the RequestExpired to raise for it."""
    late = _now(clock) - deadline
    metrics.RPC_EXPIRED.labels(method, where).inc()
    LOG.warning('Dropped %s at %s: its deadline passed %.3fs ago (the caller '
                'no longer waits); nothing was written', method, where, late)
    return exception.RequestExpired(method=method)


def dropped(ctx: Any, where: str, clock: Callable[[], float] | None = None) -> bool:
    """Whether ``ctx``'s deadline has passed (then logged and counted as dropped)."""
    value = getattr(ctx, 'deadline', None)
    if value is None or not passed(value, clock):
        return False
    expired(getattr(ctx, 'rpc_method', None) or 'write', where, value, clock)
    return True


def check(ctx: Any, where: str, clock: Callable[[], float] | None = None) -> None:
    """RequestExpired when ``ctx``'s deadline (grace included) has passed; else nothing.

    Called right before a write commits; a context without a deadline (a
    conductor's own periodic work) never expires.  A message that the fence
    excludes (the conductor's :class:`Fence`, which the door's serializer
    gave the context) is dropped the same way.
    """
    deadline = getattr(ctx, 'deadline', None)
    own = getattr(ctx, 'fence', None)
    if deadline is not None and own is not None and own.excludes(getattr(ctx, 'sent', None)):
        raise fenced_out(getattr(ctx, 'rpc_method', None) or 'write', where)
    if deadline is not None and passed(deadline, clock):
        raise expired(getattr(ctx, 'rpc_method', None) or 'write', where, deadline,
                      clock)


# --- the fence: one per conductor host (set by conductor.ring) ---

class Fence:
    """One conductor's fence: what it must no longer write.

    Its ring moves it (:meth:`close`, :meth:`beat`); its door
    (common.rpc_door) and its commits (:func:`check`, through the context
    the door's serializer tags with it) read it.  One per conductor, never
    per process: conductors that share a process (``berth serve``'s embedded
    ones, or several deployments in one test process) each fence their own
    messages only.
    """

    def __init__(self, host: str) -> None:
        self.host = host
        self.since = 0.0                    # Unix seconds: messages sent before are dropped
        self.beat_at: float | None = None   # monotonic: the ring's last beat
        self.lapse = 0.0                    # seconds without a beat after which we are out

    def close(self, at: float | None = None) -> None:
        """Drop from now on every message sent before ``at`` (default: now).

        Called by the conductor's ring when it joins the ring, and when it
        finds that its membership lapsed (it was stopped, or starved): its
        callers may have sent those messages' calls to another conductor
        meanwhile.
        """
        self.since = max(self.since, time.time() if at is None else at)

    def beat(self, lapse: float) -> None:
        """The ring beat (every 0.2 s); without a beat for ``lapse`` s the conductor is fenced.

        A gap longer than ``lapse`` since the previous beat (the process was
        stopped) fences what was sent before now (:meth:`close`).  ``0``: no
        lapse (a conductor that left the ring serves its last calls).
        """
        now = time.monotonic()
        if self.beat_at is not None and self.lapse and now - self.beat_at > self.lapse:
            LOG.warning('Conductor %s did not run for %.1fs (its ring membership '
                        'may have lapsed): messages sent before now are dropped',
                        self.host, now - self.beat_at)
            self.close()
        self.beat_at, self.lapse = now, lapse

    def excludes(self, sent: Any) -> bool:
        """Whether a message sent at ``sent`` (Unix seconds; None: unknown) must not write."""
        if (self.beat_at is not None and self.lapse
                and time.monotonic() - self.beat_at > self.lapse):
            return True     # stopped until just now: no beat yet
        return (isinstance(sent, (int, float)) and not isinstance(sent, bool)
                and sent < self.since)


_fences: dict[str, Fence] = {}
_fences_lock = threading.Lock()


def fence_of(host: str) -> Fence:
    """The fence of conductor ``host`` in this process (made on first use)."""
    with _fences_lock:
        found = _fences.get(host)
        if found is None:
            found = _fences[host] = Fence(host)
        return found


def fenced_out(method: str, where: str) -> exception.RequestExpired:
    """Log and count a message the fence dropped; the RequestExpired to raise for it."""
    metrics.RPC_EXPIRED.labels(method, where).inc()
    LOG.warning('Dropped %s at %s: it was sent before this conductor last joined '
                'the ring (its caller may have sent it elsewhere); nothing was '
                'written', method, where)
    return exception.RequestExpired(method=method)
