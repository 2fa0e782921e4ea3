"""Coalesced claims: the concurrent claims of one caller for one conductor share a call (1.9).

Every PUT/POST /allocations used to be one oslo.messaging call of its own:
a message out and a reply back through RabbitMQ, a dispatch and a reply
publish on the conductor, all per claim.  Here (as
conductor/rpcapi/allocation_batch.py does for node allocations) the first
claim for a conductor is sent at once; claims for that conductor arriving
while ``in_flight`` calls are outstanding wait, and the next free sender
takes them all (at most ``max_batch``) in one ``claim_resources_many``
call.  That sender may first wait up to ``[conductor] claim_batch_linger``
for as many claims as the call before it answered (the batcher's
``linger``): with one call out per conductor, the concurrent claims
otherwise split into two halves that take turns, and each call carries
fewer claims than there are callers waiting.  The conductor checks and answers each claim on its own
(conductor/manager/claim_many.py), so each request still gets its own
answer: success, or its own error raised typed as a call of its own would
raise it.  A batch is a write call with a ``call_id`` like any other
(conductor/rpcapi/replay.py): a lost reply is replayed and answered from the
conductor's ledger, never written twice.

A client capped below 1.9, with replays off (``rpc_attempt_timeout = 0``)
or on the in-process transport of ``berth serve`` (where a call costs
little and claims are group-committed per transaction anyway) sends each
claim as before; so does it for a minute to a conductor that refused 1.9.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from oslo_messaging._drivers import common as messaging_common

from common import rpc
from conductor.rpcapi import allocation_batch, replay

LOG = logging.getLogger('berth.' + __name__)

METHOD = 'claim_resources_many'
# seconds a conductor that refused 1.9 gets its claims one call each
OLD_SERVER_TTL = 60
# what a claim answers when its batch went to a conductor older than 1.9
RESEND = object()
# what it answers when its batch went to a conductor the ring dropped since:
# resent to the tree's owner, as one that was sent (conductor.rpcapi.replay)
MOVED_SENT = object()


def in_process(transport: Any) -> bool:
    """Whether ``transport`` is berth serve's in-process one (common.rpc_inproc)."""
    driver = getattr(transport, '_driver', None)
    return type(driver).__module__ == 'common.rpc_inproc'


class ClaimSender:
    """Sends claims to conductors, coalescing the concurrent ones per conductor and caller.

    :param client: the oslo.messaging RPC client (conductor topic).
    :param version: the RPC version of ``claim_resources_many``.
    :param attempt_timeout: seconds per attempt (``[conductor] rpc_attempt_timeout``).
    :param budget: seconds for all attempts (``rpc.call_timeout``).
    :param linger: seconds a sender taking over may wait for claims to join
        (``[conductor] claim_batch_linger``).
    :param linger_below: linger only after a call of fewer claims than this
        (``[conductor] claim_batch_linger_below``; 0: after any call).
    """

    def __init__(self, client: Any, version: str, attempt_timeout: float, budget: float,
                 in_flight: int = 1, max_batch: int = 32, linger: float = 0,
                 linger_below: int = 0, alive: Any = None) -> None:
        self.client = client
        self.alive = alive      # ring.is_alive: a batch never waits on a dropped host
        self.version = version
        self.attempt_timeout = attempt_timeout
        self.budget = budget
        self._old_servers: dict[str, float] = {}
        self._batcher = allocation_batch.AllocationBatcher(
            self._send, in_flight=in_flight, max_batch=max_batch, linger=linger,
            linger_below=linger_below, method=METHOD)

    def speaks(self, server: str) -> bool:
        """False for a minute after ``server`` refused 1.9."""
        return self._old_servers.get(server, 0) < time.monotonic()

    def claim(self, ctx: Any, server: str, tree: str | None,
              consumers: list[dict[str, Any]]) -> Any:
        """Claim on ``server``; None, or RESEND when it must go the pre-1.9 way.

        Raises the claim's own error (typed), or the batch's when the call failed.
        """
        answer = self._batcher.run(ctx, server, {'tree': tree, 'consumers': consumers},
                                   0)     # a claim carries no wait: _send ignores it
        if answer is None or answer is RESEND or answer is MOVED_SENT:
            return answer
        with rpc.translate_errors(server, 'claim_resources'):
            raise messaging_common.deserialize_remote_exception(answer['error'],
                                                                rpc.ALLOWED_EXMODS)

    def _send(self, ctx: Any, server: str, claims: list[dict[str, Any]],
              wait: Any) -> list[Any]:
        try:
            return replay.call(self.client, ctx, server, METHOD, self.version,
                               self.attempt_timeout, self.budget, alive=self.alive,
                               claims=claims)
        except replay.Moved as moved:
            # the ring dropped it: each claim goes to its tree's owner now
            # (what was sent there can no longer be written: replay's doc)
            LOG.warning('Conductor %s left the ring: %d claims go to their new owners',
                        moved.server, len(claims))
            return [MOVED_SENT if moved.sent else RESEND] * len(claims)
        except replay.OldConductor:
            LOG.warning('Conductor %s does not speak RPC %s: one call per claim to it '
                        'for %ds (set [upgrade_levels] conductor during an upgrade)',
                        server, self.version, OLD_SERVER_TTL)
            self._old_servers[server] = time.monotonic() + OLD_SERVER_TTL
            return [RESEND] * len(claims)
