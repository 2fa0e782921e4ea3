"""One place for lost races: which failures are worth another attempt, and the loop.

A write that lost a race (a provider generation compare-and-swap that
failed, a deadlock the database broke) rolled back and is worth trying
again; a stale consumer generation is the client's own conflict and is not.
Every conductor path that retries (Claims, the group commit's claims run
alone) uses :data:`RETRYABLE` and :func:`call`, so the set and the metrics
are counted the same way everywhere; the policy itself (attempts, waits,
which failures) is common.retries.lost_race.
"""

from collections.abc import Callable
import logging
from typing import Any, TypeVar

import tenacity

from common import deadline, exception, metrics, retries

LOG = logging.getLogger('berth.' + __name__)

# Lost races worth another attempt; a stale consumer generation is not one.
RETRYABLE = retries.LOST_RACES

T = TypeVar('T')


def call(operation: str, retries_left: int, tree: Any, fn: Callable[..., T], ctx: Any,
         *args: Any) -> T:
    """``fn(ctx, *args)``, run again up to ``retries_left`` times while it loses races.

    ``operation`` names the write in the claim metrics and log lines; the
    caller holds whatever lock serialises ``tree`` (named in the log only).
    Raises ConsumerGenerationConflict and every other failure at once, and
    ConcurrentUpdate once the retries ran out.  No attempt starts once
    ``ctx``'s caller stopped waiting (common.deadline: RequestExpired).
    The policy is common.retries.lost_race.
    """
    def attempt() -> T:
        deadline.check(ctx, 'commit')      # its caller no longer waits: drop
        try:
            return fn(ctx, *args)
        except exception.ConsumerGenerationConflict:
            metrics.claim_conflict(operation, 'consumer_generation')
            raise

    def again(state: tenacity.RetryCallState) -> None:
        metrics.claim_retry(operation)
        LOG.debug('Retrying %s for tree %s (attempt %d): %s', operation, tree,
                  state.attempt_number, state.outcome.exception() if state.outcome else None)

    try:
        result = retries.lost_race(retries_left, before_sleep=again)(attempt)
    except exception.ConsumerGenerationConflict:
        raise
    except RETRYABLE as exc:
        metrics.claim_conflict(operation, 'retries_exhausted')
        LOG.info('Giving up on %s for tree %s after %d retries: %s',
                 operation, tree, max(0, retries_left), exc)
        if isinstance(exc, exception.ConcurrentUpdate):
            raise
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason='the write kept racing with others; retry')
    metrics.claim_done(operation)
    return result
