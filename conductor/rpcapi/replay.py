"""Write calls that survive a lost reply: resent with one call id (RPC 1.8).

A write call whose reply is lost (with a RabbitMQ node that dies, or a
failed acknowledgement) used to wait the whole ``[conductor] rpc_timeout``
and answer 503, although the conductor had written.  Resending it blindly
could write twice.  Instead the client makes one ``call_id`` per logical
call and waits ``[conductor] rpc_attempt_timeout`` per attempt; on a
timeout it sends the same call with the same id again, to the same
conductor, until ``rpc_timeout`` is used up (then ServiceUnavailable, as
before).  That conductor runs the call once per id and answers a replay with
the first attempt's outcome (conductor/manager/replay.py).

Replays stay on the conductor of the first attempt even when the ring has
moved the key meanwhile: only that conductor knows the id, and another one
would run the write a second time.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import oslo_messaging as messaging
from oslo_utils import uuidutils

from common import deadline, metrics, rpc

LOG = logging.getLogger('berth.' + __name__)

# an attempt shorter than this is not worth sending: the budget is used up
MIN_ATTEMPT = 0.2


class OldConductor(Exception):
    """The conductor refused 1.8 (it is older and the client is not capped).

    Nothing ran there (the version is checked before the method is called):
    the caller sends the call the way it did before 1.8.
    """


def call(client: Any, ctx: Any, server: str, method: str, version: str,
         attempt_timeout: float, budget: float, **kwargs: Any) -> Any:
    """``call`` ``method`` on ``server`` with a ``call_id``, replayed on timeouts.

    ``client``: the oslo.messaging RPC client; ``version``: at least 1.8;
    ``attempt_timeout``: seconds per attempt; ``budget``: seconds for all.
    Errors as :func:`common.rpc.translate_errors` makes them.
    """
    call_id = uuidutils.generate_uuid()
    deadline_at = time.monotonic() + budget
    attempt = 1
    # every attempt carries the logical call's deadline (common.deadline)
    with rpc.translate_errors(server, method), deadline.bounded(budget):
        while True:
            started = time.monotonic()
            wait = max(MIN_ATTEMPT, min(attempt_timeout, deadline_at - started))
            cctxt = client.prepare(server=server, version=version, timeout=wait)
            try:
                return cctxt.call(ctx, method, call_id=call_id, **kwargs)
            except messaging.RemoteError as exc:
                if attempt == 1 and exc.exc_type == 'UnsupportedVersion':
                    raise OldConductor(server) from exc
                raise
            except messaging.MessagingTimeout:
                # a driver may time out at once (nobody listens on that
                # server): wait out the attempt rather than spin
                rest = min(started + wait, deadline_at) - time.monotonic()
                if rest > 0:
                    time.sleep(rest)
                if deadline_at - time.monotonic() < MIN_ATTEMPT:
                    raise
            attempt += 1
            metrics.RPC_REPLAYS.labels(method).inc()
            LOG.warning('Conductor %s did not answer %s (call %s) within %.1fs: '
                        'sending it again (attempt %d)', server, method, call_id,
                        attempt_timeout, attempt)
