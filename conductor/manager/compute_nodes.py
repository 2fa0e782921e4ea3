"""Compute nodes on a conductor: capacity reports, one tree at a time, races retried.

``update_compute_node`` (RPC 1.7) arrives at the owner of the compute node's
provider tree.  It runs under the same per-tree lock as the claims
(conductor/manager/claims.py), so a capacity change and the claims on that
tree do not interleave in this process; the database still decides: the
inventory write is a compare-and-swap on the provider generation and
respects the inventory-in-use rules (InventoryInUse crosses RPC typed and
is not retried).  A lost race (ConcurrentUpdate) is re-read and re-applied
up to ``[placement] allocation_conflict_retry_count`` times: a report is the
compute service's truth, not a diff, so applying it to a fresher read is right.

The upgrade gate (conductor/rpcapi/gate.py) picks the write path:
objects/legacy/compute_node_flows.py describes both.
"""

import logging

from common import exception
from conductor.rpcapi import gate as gate_mod
from conductor.rpcapi import routing
from objects.legacy import compute_node_flows as flows
from objects.legacy import inventory_rules

LOG = logging.getLogger('berth.' + __name__)


class ComputeNodes:
    """The compute-node writes of one conductor process.

    :param conf: the process's ConfigOpts.
    :param locks: the per-tree locks shared with the claims (claims.TreeLocks).
    :param ring: the conductor's ring (for the upgrade gate).
    """

    def __init__(self, conf, locks, ring):
        self.conf = conf
        self.locks = locks
        self.retries = conf.placement.allocation_conflict_retry_count
        self.gate = gate_mod.UpgradeGate(ring,
                                         ttl=conf.coordination.ring_refresh_interval)

    def _rules(self):
        try:
            return inventory_rules.Rules.from_conf(self.conf)
        except ValueError as exc:
            raise exception.Invalid(reason='configuration: %s' % exc)

    def update(self, ctx, tree, host, capacity):
        """Create or save ``host``'s compute node from ``capacity``; the node's primitive."""
        if not isinstance(capacity, dict):
            raise exception.Invalid(reason='capacity must be an object')
        if not isinstance(host, str):
            raise exception.Invalid(reason='host must be a non-empty string of at '
                                           'most 255 characters')
        rules = self._rules()
        new_path = self.gate.state().open
        key = tree or routing.compute_node_route(ctx, host, capacity)[1]
        with self.locks.hold(key):
            attempt = 0
            while True:
                try:
                    node = flows.report(ctx, host, capacity, rules, new_path)
                except exception.ConcurrentUpdate as exc:
                    if attempt >= self.retries:
                        LOG.info('Giving up on the report of %s after %d retries: %s',
                                 host, attempt, exc)
                        raise
                    attempt += 1
                    LOG.debug('Retrying the report of %s (attempt %d): %s',
                              host, attempt, exc)
                    continue
                return flows.to_primitive(node)
