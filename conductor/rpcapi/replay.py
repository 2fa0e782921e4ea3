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

Replays stay on the conductor of the first attempt while it is in the ring:
only that conductor knows the id. Once the ring has dropped it (killed, or
stopped until its membership lapsed), the client stops waiting at once
(:class:`Moved`) and its caller sends the call to the key's new owner: what
the first conductor was sent can no longer be written there (the fence of
common.deadline: a conductor drops what was sent before it last joined the
ring, and writes nothing while its own membership may have lapsed), nor
after the request's deadline anywhere.

A broker failure after an attempt may have reached the conductor is not
"the message broker cannot be reached" (which promises nothing was written)
but :class:`common.exception.OutcomeUnknown` (``berth.outcome_unknown``).
"""

from __future__ import annotations

from collections.abc import Callable
import logging
import time
from typing import Any

from kombu import exceptions as kombu_exc
import oslo_messaging as messaging
from oslo_utils import uuidutils
import tenacity

from common import deadline, exception, metrics, retries, rpc

LOG = logging.getLogger('berth.' + __name__)

# an attempt shorter than this is not worth sending: the budget is used up
MIN_ATTEMPT = 0.2


# what a failed send raises (common.rpc.translate_errors: "cannot be reached")
UNSENT = (messaging.MessageDeliveryFailure, messaging.MessagingServerError,
          kombu_exc.KombuError, OSError)


class Moved(Exception):
    """The ring dropped the call's conductor: send the call to the key's new owner.

    ``sent``: whether an attempt went out to the dropped conductor (it can
    no longer write it: see the module's doc).
    """

    def __init__(self, server: str, sent: bool) -> None:
        super().__init__(server)
        self.server = server
        self.sent = sent


def moved_to(moved: Moved, method: str, route: Callable[[], str] | None,
             give_up: bool = False) -> str:
    """The conductor a call goes to after the ring dropped its own, ``route()``.

    Without ``route`` (or ``give_up``): OutcomeUnknown when an attempt went
    out, else ServiceUnavailable (nothing was sent).
    """
    if route is None or give_up:
        if moved.sent:
            raise exception.OutcomeUnknown(
                reason='conductor %s left the ring after it was sent the call'
                       % moved.server)
        raise exception.ServiceUnavailable(reason='conductor %s left the ring'
                                           % moved.server)
    try:
        server = route()
    except exception.ServiceUnavailable:       # no conductor is alive
        if moved.sent:
            raise exception.OutcomeUnknown(
                reason='conductor %s left the ring after it was sent the call, and '
                       'none is left in the ring' % moved.server) from None
        raise
    LOG.warning('Conductor %s left the ring during %s: sending it to %s', moved.server,
                method, server)
    metrics.RPC_MOVES.labels(method).inc()
    return server


class OldConductor(Exception):
    """The conductor refused 1.8 (it is older and the client is not capped).

    Nothing ran there (the version is checked before the method is called):
    the caller sends the call the way it did before 1.8.
    """


def call(client: Any, ctx: Any, server: str, method: str, version: str,
         attempt_timeout: float, budget: float,
         alive: Callable[[str], bool] | None = None, sent: bool = False,
         **kwargs: Any) -> Any:
    """``call`` ``method`` on ``server`` with a ``call_id``, replayed on timeouts.

    ``client``: the oslo.messaging RPC client; ``version``: at least 1.8;
    ``attempt_timeout``: seconds per attempt; ``budget``: seconds for all,
    ending no later than the request's deadline (common.deadline, opened as
    the request arrived); ``alive(server)``: whether the ring still has
    ``server`` (checked before every attempt: :class:`Moved` once it has not);
    ``sent``: whether this call went out before, to a conductor since dropped.
    Errors as :func:`common.rpc.translate_errors` makes them, except
    :class:`common.exception.OutcomeUnknown` for a send that fails after an
    attempt went out.
    """
    call_id = uuidutils.generate_uuid()
    budget = deadline.remaining(budget)
    deadline_at = time.monotonic() + budget

    def again(state: tenacity.RetryCallState) -> None:
        metrics.RPC_REPLAYS.labels(method).inc()
        LOG.warning('Conductor %s did not answer %s (call %s) within %.1fs: '
                    'sending it again (attempt %d)', server, method, call_id,
                    attempt_timeout, state.attempt_number + 1)

    policy = retries.rpc_replay(lambda: deadline_at - time.monotonic(), MIN_ATTEMPT,
                                before_sleep=again)
    # every attempt carries the logical call's deadline (common.deadline)
    with rpc.translate_errors(server, method), deadline.bounded(budget):
        for attempt in policy:
            with attempt:
                if alive is not None and not alive(server):
                    raise Moved(server, sent)
                started = time.monotonic()
                wait = max(MIN_ATTEMPT, min(attempt_timeout, deadline_at - started))
                cctxt = client.prepare(server=server, version=version, timeout=wait)
                try:
                    return cctxt.call(ctx, method, call_id=call_id, **kwargs)
                except messaging.RemoteError as exc:
                    if (attempt.retry_state.attempt_number == 1
                            and exc.exc_type == 'UnsupportedVersion'):
                        raise OldConductor(server) from exc
                    raise
                except UNSENT as exc:
                    if not sent:
                        raise
                    LOG.warning('Cannot send %s (call %s) to conductor %s again after '
                                'an attempt went out: %s', method, call_id, server, exc)
                    raise exception.OutcomeUnknown(
                        reason='conductor %s may have received it before the message '
                               'broker could no longer be reached' % server) from None
                except messaging.MessagingTimeout:
                    sent = True
                    # a driver may time out at once (nobody listens on that
                    # server): wait out the attempt rather than spin
                    rest = min(started + wait, deadline_at) - time.monotonic()
                    while rest > 0 and (alive is None or alive(server)):
                        time.sleep(min(rest, 0.25))
                        rest = min(started + wait, deadline_at) - time.monotonic()
                    raise
    raise AssertionError('unreachable: the policy raises its last error')
