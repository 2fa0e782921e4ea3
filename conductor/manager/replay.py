"""The ledger of recent calls: a replayed call answers its first attempt's outcome.

A client of RPC 1.8 sends every write call with a ``call_id`` (a uuid made
once per logical call) and, when an attempt is not answered in time, sends
the same call again with the same id (conductor/rpcapi/replay.py).  The
first attempt may well have run: its reply can be lost with a RabbitMQ node
that dies, after the write committed.  Running the write again could claim
twice or answer a conflict, so this conductor keeps, per ``(call_id,
method)``, what the first attempt did:

* an id it does not know runs normally (and is recorded);
* a replay while the first attempt still runs waits for it (single flight:
  the write runs once) and answers what it answers;
* a replay after it ended gets the recorded answer, or the recorded
  exception raised again (typed errors cross as they did the first time).

The ledger is bounded: at most ``size`` entries (the oldest go first) and
``ttl`` seconds per entry, which must outlast the client's whole call
(``[conductor] rpc_timeout``).  It is per conductor process: replays go to
the conductor of the first attempt (the client never moves a call with an
id), so a conductor that restarted or died forgets, and a replay then runs
the call (or times out) as any call would.
"""

import collections
import copy
import logging
import threading
import time

from common import exception

LOG = logging.getLogger('berth.' + __name__)


class _Entry:
    """One call: running until :meth:`finish`, then its answer or exception."""

    __slots__ = ('created', 'done', 'result', 'error')

    def __init__(self, created):
        self.created = created
        self.done = threading.Event()
        self.result = None
        self.error = None

    def finish(self, result, error):
        self.result, self.error = result, error
        self.done.set()

    def outcome(self):
        if self.error is not None:
            raise _detached(self.error)
        return self.result


def _detached(error):
    """A copy of ``error`` without its traceback and chained causes.

    What the ledger keeps and what a replay raises: the first attempt's
    frames (and their locals) are not kept alive for ``ttl`` seconds, and
    replays raised at the same time do not share one exception object.
    An exception that cannot be copied is kept as it is.
    """
    try:
        return copy.copy(error)
    except Exception:              # an __init__ that its args cannot rebuild
        return error


def caller(ctx):
    """Who a call is from, as far as its policy checks go (its ledger key)."""
    return (ctx.user_id, ctx.project_id, ctx.system_scope, ctx.domain_id,
            tuple(sorted(ctx.roles or ())), ctx.project_name)


class CallLedger:
    """Recent calls by ``(call_id, method)`` (see the module docstring).

    :param size: most entries kept; the oldest is dropped beyond it.
    :param ttl: seconds an entry is kept after its first attempt started;
        also the longest a replay waits for a first attempt still running.
    :param clock: monotonic seconds (tests pass their own).
    """

    def __init__(self, size=4096, ttl=300.0, clock=time.monotonic):
        self.size = size
        self.ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._entries = collections.OrderedDict()     # key -> _Entry, oldest first

    def run(self, call_id, method, func, caller=None):
        """``func()`` once per ``(call_id, method, caller)``; a replay answers the
        first outcome.

        ``call_id`` None (a client older than 1.8): ``func()``, nothing recorded.
        ``caller`` (:func:`caller`): a call with a recorded id from another
        caller is another call, so nobody gets another caller's answer.
        """
        if call_id is None:
            return func()
        if not isinstance(call_id, str) or len(call_id) > 64:
            raise exception.Invalid(reason='call_id must be a string of at most '
                                           '64 characters')
        key = (call_id, method) if caller is None else (call_id, method, caller)
        with self._lock:
            now = self._clock()
            self._expire(now)
            entry = self._entries.get(key)
            first = entry is None
            if entry is None:
                entry = self._entries[key] = _Entry(now)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
        if not first:
            return self._replay(entry, call_id, method)
        try:
            result = func()
        except BaseException as exc:
            entry.finish(None, _detached(exc))
            raise
        entry.finish(result, None)
        return result

    def _replay(self, entry, call_id, method):
        running = not entry.done.is_set()
        LOG.info('Call %s of %s is a replay: answering its first attempt%s',
                 call_id, method, ' once it ends' if running else '')
        if not entry.done.wait(self.ttl):
            raise exception.ServiceUnavailable(
                reason='the first attempt of call %s is still running' % call_id)
        return entry.outcome()

    def _expire(self, now):
        while self._entries:
            key, entry = next(iter(self._entries.items()))
            if now - entry.created < self.ttl:
                return
            del self._entries[key]

    def __len__(self):
        with self._lock:
            return len(self._entries)

    def __contains__(self, key):
        with self._lock:
            return key in self._entries
