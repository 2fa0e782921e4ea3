"""One place for lost races: which failures are worth another attempt, and the loop.

A write that lost a race (a provider generation compare-and-swap that
failed, a deadlock the database broke) rolled back and is worth trying
again; a stale consumer generation is the client's own conflict and is not.
Every conductor path that retries (Claims, the group commit's claims run
alone) uses :data:`RETRYABLE` and :func:`call`, so the set and the metrics
are counted the same way everywhere.
"""

from collections.abc import Callable
import logging
import random
import time
from typing import Any, TypeVar

from oslo_db import exception as db_exc

from common import deadline, exception, metrics

LOG = logging.getLogger('berth.' + __name__)

# Lost races worth another attempt; a stale consumer generation is not one.
RETRYABLE = (exception.ConcurrentUpdate, db_exc.DBDeadlock)

T = TypeVar('T')


def call(operation: str, retries: int, tree: Any, fn: Callable[..., T], ctx: Any,
         *args: Any) -> T:
    """``fn(ctx, *args)``, run again up to ``retries`` times while it loses races.

    ``operation`` names the write in the claim metrics and log lines; the
    caller holds whatever lock serialises ``tree`` (named in the log only).
    Raises ConsumerGenerationConflict and every other failure at once, and
    ConcurrentUpdate once the retries ran out.  No attempt starts once
    ``ctx``'s caller stopped waiting (common.deadline: RequestExpired).
    """
    attempt = 0
    while True:
        deadline.check(ctx, 'commit')      # its caller no longer waits: drop
        try:
            result = fn(ctx, *args)
        except exception.ConsumerGenerationConflict:
            metrics.claim_conflict(operation, 'consumer_generation')
            raise
        except RETRYABLE as exc:
            if attempt >= retries:
                metrics.claim_conflict(operation, 'retries_exhausted')
                LOG.info('Giving up on %s for tree %s after %d retries: %s',
                         operation, tree, attempt, exc)
                if isinstance(exc, exception.ConcurrentUpdate):
                    raise
                raise exception.ConcurrentUpdate(
                    what='resource provider',
                    reason='the write kept racing with others; retry')
            attempt += 1
            metrics.claim_retry(operation)
            LOG.debug('Retrying %s for tree %s (attempt %d): %s',
                      operation, tree, attempt, exc)
            # a little jitter so two conductors racing do not lock-step
            time.sleep(random.uniform(0, 0.002 * attempt))
        else:
            metrics.claim_done(operation)
            return result
