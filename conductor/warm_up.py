"""A conductor's first-use costs of the claim path, paid as it starts instead of in its first calls.

Measured at 2 API processes x 3 conductors (py-spy, bench.claims): a
conductor spent 9-14 % of its samples of a 1,000-claim run compiling the
claim statements on their first executions and ~5 % reading the roots of
the trees it met, one read per call until it had seen them all; each
conductor a deployment adds paid both again.  Before it joins the ring (so
before any claim is routed to it) a conductor now caches the roots of the
providers (conductor.rpcapi.routing.RootCache.prefetch) and runs the claim
statements once, matching no row, in a transaction it rolls back
(objects.placement.allocation_batch.warm).  A failure (the database not
reachable yet) is logged and the conductor starts anyway: its first claims
then pay those costs as before.
"""

import logging
import time

from common import context as berth_context
from conductor.rpcapi import routing
from objects.placement import allocation_batch

LOG = logging.getLogger('berth.' + __name__)


def warm(db):
    """Prefetch the routing roots and compile the claim statements; roots cached, or None."""
    if db is None:      # a conductor without a database (unit tests): nothing to warm
        return None
    started = time.monotonic()
    try:
        roots = routing.ROOTS.prefetch(berth_context.admin_context(db))
        allocation_batch.warm(db)
    except Exception as exc:        # an optimisation: never a reason not to start
        LOG.warning('Could not warm the claim path up (%s); the first claims will pay for it', exc)
        return None
    LOG.info('Claim path warm in %.3fs (%d provider roots cached)',
             time.monotonic() - started, roots)
    return roots
