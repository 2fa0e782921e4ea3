"""The upgrade gate of the compute-node write path: every conductor new enough.

Each conductor publishes the RPC API version it speaks in its tooz member
capabilities (``rpc_api_version``, conductor/service.py).  The gate is open
when every live member publishes at least
:data:`conductor.rpcapi.version.COMPUTE_NODE_WRITES`; until then a create
writes a legacy row only and a read migrates nothing, so a conductor that
does not know providers-for-compute-nodes never meets a half-new world.
``berth-manage status`` reports it (cli/manage_status.py).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

from conductor.rpcapi import version as rpc_version


def parse(version: Any) -> tuple[int, ...] | None:
    """``'1.7'`` -> (1, 7); None for anything else."""
    try:
        return tuple(int(p) for p in str(version).split('.'))
    except (TypeError, ValueError):
        return None


def at_least(version: Any, needed: str) -> bool:
    """Whether a published ``version`` is ``needed`` or later (unknown: no)."""
    have, want = parse(version), parse(needed)
    return have is not None and want is not None and have >= want


@dataclasses.dataclass(frozen=True)
class GateState:
    """``open`` when every member is new enough; ``old``: [(host, version)]."""
    open: bool
    needed: str
    members: int
    old: tuple[tuple[str, str | None], ...] = ()

    def describe(self) -> str:
        if self.open:
            return ('All %d conductor(s) speak RPC %s or later: the compute-node '
                    'write path is on.' % (self.members, self.needed))
        if not self.members:
            return 'No conductor is a member of the ring: the compute-node write path is off.'
        return ('The compute-node write path is off until every conductor speaks RPC '
                '%s: older: %s.' % (self.needed, ', '.join(
                    '%s (%s)' % (host, version or 'unknown') for host, version in self.old)))


def evaluate(described: list[dict[str, Any]],
             needed: str = rpc_version.COMPUTE_NODE_WRITES) -> GateState:
    """The gate over ``Ring.describe()``'s answer."""
    old = tuple((m['host'], (m.get('capabilities') or {}).get('rpc_api_version'))
                for m in described
                if not at_least((m.get('capabilities') or {}).get('rpc_api_version'),
                                needed))
    return GateState(open=bool(described) and not old, needed=needed,
                     members=len(described), old=old)


class UpgradeGate:
    """The gate over a ring, re-read at most every ``ttl`` seconds.

    :param ring: anything with ``describe()`` (conductor.ring.Ring).
    """

    def __init__(self, ring: Any, ttl: float = 10.0,
                 needed: str = rpc_version.COMPUTE_NODE_WRITES) -> None:
        self.ring = ring
        self.ttl = ttl
        self.needed = needed
        self._lock = threading.Lock()
        self._cached: tuple[float, GateState] | None = None

    def state(self) -> GateState:
        with self._lock:
            now = time.monotonic()
            if self._cached is not None and now - self._cached[0] < self.ttl:
                return self._cached[1]
            state = evaluate(self.ring.describe(), self.needed)
            self._cached = (now, state)
            return state

    def forget(self) -> None:
        """Read the ring again on the next :meth:`state` (tests, after a join)."""
        with self._lock:
            self._cached = None
