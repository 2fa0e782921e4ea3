"""Several claims in one RPC message (1.9): checked one by one, written together.

The API coalesces the concurrent claims of one caller for one conductor
(conductor/rpcapi/claim_batch.py): one oslo.messaging call instead of one
per claim on the API, the broker and here.  Each claim keeps its own rule
check (conductor.manager.authz), its own tree, and its own answer; the
claims that pass are written in one transaction
(conductor.manager.claim_batch.GroupCommitter.claim_together) and answered
only after it committed.  A claim's error crosses the wire as
oslo.messaging serialises a call's exception, so the caller raises it typed
exactly as if the claim had been a call of its own.
"""

import sys

from oslo_messaging._drivers import common as messaging_common

from common import claim_contract, exception
from conductor.manager import write_checks
from conductor.rpcapi import routing


def _tree(ctx, tree, consumers):
    if tree is not None:
        return tree
    return routing.ROOTS.tree(ctx, {rp for c in consumers for rp in c.allocations},
                              [c.uuid for c in consumers])


def _serialised(exc):
    """``exc`` as oslo.messaging sends a call's exception.

    A domain error (a claim refused: capacity, generation, rule) crosses
    without its traceback: the caller raises it again from its class and
    arguments alone, and its message is the API's.  Formatting the frames
    cost ~0.3 ms per refused claim (Python 3.11 parses each frame's source
    line for its column markers), as much CPU as a claim that is written.
    Anything else keeps its traceback, for the RemoteError it becomes.
    """
    trace = None if isinstance(exc, exception.BerthException) else exc.__traceback__
    return {'error': messaging_common.serialize_remote_exception((type(exc), exc, trace))}


def run(manager, ctx, claims):
    """``[None or {'error': serialised exception}]``, one per claim, in order.

    Each claim is bounded as it came (conductor.manager.write_checks), then
    its consumers are read once into typed claims
    (common.claim_contract); one that is not a claim is answered
    Invalid, the others go on.
    """
    answers = [None] * len(claims)
    admitted = {}
    for i, claim in enumerate(claims):
        try:
            write_checks.claim(claim, manager._max_bytes)
            consumers = claim_contract.from_primitives(claim['consumers'])
            manager.authz.claim_resources(ctx, consumers)
            admitted[i] = (claim.get('tree'), consumers)
        except exception.BerthException:
            answers[i] = _serialised(sys.exc_info()[1])
    # the trees the API left to this conductor (claim_routing = process), in one read
    routing.ROOTS.warm(ctx, [{rp for c in consumers for rp in c.allocations}
                             for tree, consumers in admitted.values() if tree is None])
    todo, where = [], []
    for i, (tree, consumers) in admitted.items():
        try:
            todo.append((_tree(ctx, tree, consumers), consumers))
            where.append(i)
        except exception.BerthException:
            answers[i] = _serialised(sys.exc_info()[1])
    if todo:
        for i, error in zip(where, manager.claims.claim_many(ctx, todo)):
            if error is not None:
                answers[i] = _serialised(error)
    return answers
