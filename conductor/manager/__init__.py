"""The conductor's RPC endpoint: short methods that delegate to modules beside it.

The logic lives next to this file (``claims.py``, ``node_allocations.py``, ...);
every method here takes a worker slot (``[conductor] workers``) and declares
the domain exceptions it may raise, so they cross RPC typed and unlogged.
Every write first checks the REST API's rule on the caller's context
(``authz.py``; Forbidden when it does not pass).
"""

import functools
import logging
from typing import Any

import oslo_messaging as messaging

from common import (
    claim_contract,
    exception,
    inventory_contract,
    node_allocation_contract,
    node_update_contract,
)
from common import context as berth_context
from conductor import notifications
from conductor.manager import (
    allocation_queue,
    authz,
    claim_many,
    claims,
    compute_nodes,
    node_allocations,
    node_writes,
    replay,
    scheduling,
    write_checks,
)
from conductor.periodic import node_allocations as allocation_periodics
from conductor.rpcapi import routing
from conductor.rpcapi import version as rpc_version
from objects.baremetal import allocation as node_alloc

LOG = logging.getLogger('berth.' + __name__)


def _admitted(method):
    """Run an RPC method inside a worker slot (NoFreeWorker when none frees in time).

    A call with a ``call_id`` (1.8) runs once per id (``replay.py``): a
    replay waits for, or answers, its first attempt, without a slot.
    """
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self, ctx, *args, call_id=None, **kwargs):
        def run():
            with self.workers.admit():
                return method(self, ctx, *args, **kwargs)
        # a replay answers only the caller of the first attempt
        return self.calls.run(call_id, name, run, caller=replay.caller(ctx))
    return _in_request(wrapper)


def _in_request(method):
    """Run an RPC method with the caller's context as the thread's current one.

    Its log lines then carry the caller's request ids (the global one is
    nova's, from the API); the RPC server's pool thread forgets them when
    the method returns, so its later lines belong to no stale request.

    A domain error leaves without the frames it was raised through:
    oslo.messaging formats a call's exception, traceback included, into
    the reply, and the caller raises it again from its class and arguments
    alone (its message is the API's).  Formatting ~20 frames cost ~0.3 ms
    (Python 3.11 parses each frame's source line for its column markers),
    as much CPU as the claim it refused.
    """
    @functools.wraps(method)
    def wrapper(self, ctx, *args, **kwargs):
        ctx.rpc_method = method.__name__     # names a dropped write (common.deadline)
        ctx.update_store()
        try:
            return method(self, ctx, *args, **kwargs)
        except exception.BerthException as exc:
            raise exc.with_traceback(None)
        finally:
            berth_context.clear()
    return wrapper


class ConductorManager:
    """RPC endpoint of one conductor.

    :param conf: the process's ConfigOpts.
    :param host: this conductor's host name (its ring member and RPC server).
    :param db: the process's database; contexts arriving by RPC carry it as
        ``ctx.db``.
    :param ring: the conductor's :class:`conductor.ring.Ring`.
    :param workers: the conductor's :class:`conductor.workers.Workers`.
    """

    target = messaging.Target(version=rpc_version.RPC_API_VERSION)
    # what the RPC server dispatches (common.rpc_door); every other attribute
    # (the collaborators below) answers NoSuchMethod
    RPC_METHODS = rpc_version.METHODS

    def __init__(self, conf, host, db, ring, workers):
        self.conf = conf
        self.host = host
        self.db = db
        self.ring = ring
        self.workers = workers
        self.calls = replay.CallLedger(conf.conductor.call_ledger_size,
                                       conf.conductor.call_ledger_ttl)
        self.authz = authz.Authorizer(conf)
        self.claims = claims.Claims(conf)
        self.notifier = notifications.AllocationNotifier(conf, host)
        self.node_allocator = node_allocations.NodeAllocator.from_conf(
            conf, host, self.claims, self.notifier)
        self.node_writes = node_writes.NodeWrites(self.node_allocator, conf)
        self.allocation_queue = allocation_queue.AllocationQueue(
            workers, self.node_allocator, conf.allocation.backlog,
            unseen_age=allocation_queue.send_window(conf))
        self.compute_nodes = compute_nodes.ComputeNodes(conf, self.claims.locks, ring)
        self.scheduler = scheduling.Scheduler(conf, self.claims,
                                              lambda: len(self.ring.members()))

    @property
    def _max_bytes(self):
        """The most a JSON object of a write may take: the REST body limit."""
        return self.conf.api.max_request_body_size

    @property
    def _max_extra_bytes(self):
        """The most an allocation's ``extra`` may take (REST's cap, else the body limit)."""
        cap = self.conf.allocation.max_extra_bytes
        return min(cap, self._max_bytes) if cap else self._max_bytes

    @property
    def _max_node_json_bytes(self):
        """The most a node's free-form JSON field may take (REST's cap, else the body limit)."""
        cap = self.conf.node.max_json_bytes
        return min(cap, self._max_bytes) if cap else self._max_bytes

    def periodic_tasks(self):
        """``[(callable, spacing_seconds)]`` to run on the periodic worker.

        Read when the worker starts (never at import), so spacings come from
        this process's conf; a spacing <= 0 disables a task.
        """
        tasks = []
        tasks += allocation_periodics.tasks(self.conf, self.db, self.node_allocator,
                                            self.ring, self.allocation_queue)
        return tasks

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def ping(self, ctx):
        """Who answered, and the members this conductor sees."""
        return {'host': self.host, 'members': sorted(self.ring.members())}

    @messaging.expected_exceptions(exception.BerthException)
    @_in_request
    def create_allocation(self, ctx, allocation_id, wait=None):
        """Cast (1.1): reserve a node for an ``allocating`` row of ours, in the background.

        With no free worker it waits in the bounded backlog, or beyond that
        in the database for the re-drive (conductor/manager/allocation_queue.py).
        Call (1.4, ``wait`` seconds): the same, and answer what the worker
        wrote once it is done, or None if it is not done within ``wait``.
        A caller without ``allocation:create`` is Forbidden; a row it may not
        create is answered None, as a row that does not exist, and left alone.
        """
        if not isinstance(allocation_id, int) or isinstance(allocation_id, bool):
            raise exception.Invalid(reason='allocation_id must be an integer')
        if self._refused(ctx, [allocation_id]):
            return None
        if wait is None:
            self.allocation_queue.submit(ctx, allocation_id)
            return None
        return self.allocation_queue.run(ctx, allocation_id, wait)

    @messaging.expected_exceptions(exception.BerthException)
    @_in_request
    def create_allocations(self, ctx, allocation_ids, wait):
        """Call (1.5): ``create_allocation`` with ``wait`` for several rows at once.

        Answers a result (or None) per id, in order, within ``wait`` seconds;
        a row the caller may not create is answered None and left alone.
        """
        write_checks.allocation_ids(allocation_ids)
        refused = self._refused(ctx, allocation_ids)
        allowed = [alloc_id for alloc_id in allocation_ids if alloc_id not in refused]
        answers: dict[str, Any] = {}
        if allowed:
            answers.update(zip(allowed, self.allocation_queue.run_many(ctx, allowed, wait)))
        return [answers.get(alloc_id) for alloc_id in allocation_ids]

    def _refused(self, ctx, alloc_ids):
        """The ids of the rows ``ctx`` may not create; Forbidden without the rule.

        The rule is checked once per call; the rows are read only when their
        owner matters (a caller limited to its project).  A refused row is
        neither written nor described: it stays with its owner's request
        and the re-drive, and the caller learns nothing of it.
        """
        scope = self.authz.create_scope(ctx)
        if scope is None:
            return set()
        refused = set()
        for alloc in node_alloc.owners(ctx, alloc_ids):
            try:
                self.authz.create_allocation(ctx, alloc, scope)
            except exception.Forbidden as exc:
                LOG.warning('Allocation %s refused by policy: %s', alloc.uuid,
                            exc.message)
                refused.add(alloc.id)
        return refused

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def destroy_allocation(self, ctx, allocation_uuid):
        """Call (1.1): delete a node allocation under the node lock and state rules."""
        self.authz.destroy_allocation(ctx, allocation_uuid)
        self.node_allocator.destroy(ctx, allocation_uuid)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def backfill_allocation(self, ctx, values, node):
        """Call (1.6): an allocation for ``node``, already ``active`` (Ironic 1.58)."""
        write_checks.backfill(values, node, self._max_extra_bytes)
        new = self.authz.backfill(ctx, node_allocation_contract.NewAllocation.from_primitive(
            values), node)
        return self.node_writes.backfill(ctx, new, node).to_primitive()

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def update_allocation(self, ctx, allocation, values):
        """Call (1.6): PATCH an allocation's ``name``/``extra`` (AllocationDuplicateName)."""
        write_checks.update_allocation(allocation, values, self._max_extra_bytes)
        change = node_allocation_contract.AllocationUpdate.from_primitive(values)
        self.authz.update_allocation(ctx, allocation)
        self.node_writes.update_allocation(ctx, allocation, change)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def update_node(self, ctx, node, values):
        """Call (1.6): a node PATCH that removes the node's instance and allocation."""
        write_checks.update_node(node, values, self._max_node_json_bytes)
        change = node_update_contract.NodeUpdate.from_primitive(values)
        self.authz.update_node(ctx, node, change)
        self.node_writes.update_node(ctx, node, change)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def set_node_provision_state(self, ctx, node, verb):
        """Call (1.6): ``deleted``/``undeploy`` on a node holding an allocation."""
        write_checks.node_verb(node, verb)
        self.authz.set_node_provision_state(ctx, node)
        self.node_writes.set_provision_state(ctx, node, verb)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def destroy_node(self, ctx, node):
        """Call (1.6): delete a node (in maintenance) holding an allocation."""
        self.authz.destroy_node(ctx, node)
        self.node_writes.destroy_node(ctx, node)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def claim_resources(self, ctx, tree, consumers):
        """Call (1.2): replace Placement allocations of one or more consumers.

        ``tree`` None (a client without the database): resolved here.  The
        message is bounded as it came, then read once into the typed claims
        (common.claim_contract) that everything after takes.
        """
        write_checks.claim_consumers(consumers, self._max_bytes)
        consumers = claim_contract.from_primitives(consumers)
        self.authz.claim_resources(ctx, consumers)
        if tree is None:
            tree = routing.ROOTS.tree(ctx, {rp for c in consumers for rp in c.allocations},
                                      [c.uuid for c in consumers])
        self.claims.claim_resources(ctx, tree, consumers)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def claim_resources_many(self, ctx, claims):
        """Call (1.9): several ``claim_resources`` of one caller in one message.

        ``claims``: ``[{'tree', 'consumers'}]``; answers, in order, None per
        committed claim or its error serialised as oslo.messaging does
        (conductor/manager/claim_many.py).
        """
        write_checks.claims(claims)
        return claim_many.run(self, ctx, claims)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def delete_allocations(self, ctx, tree, consumer_uuid):
        """Call (1.2): remove every Placement allocation of one consumer."""
        self.authz.delete_allocations(ctx)
        if tree is None:
            tree = routing.consumer_tree(ctx, consumer_uuid)
        self.claims.delete_allocations(ctx, tree, consumer_uuid)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def reshape(self, ctx, tree, inventories, consumers):
        """Call (1.2): move inventory and allocations atomically (POST /reshaper)."""
        write_checks.claim_consumers(consumers, self._max_bytes)
        consumers = claim_contract.from_primitives(consumers)
        inventories = inventory_contract.from_primitives(inventories)
        self.authz.reshape(ctx)
        if tree is None:
            tree = routing.ROOTS.tree(
                ctx, set(inventories) | {rp for c in consumers for rp in c.allocations},
                [c.uuid for c in consumers])
        self.claims.reshape(ctx, tree, inventories, consumers)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def schedule_and_claim(self, ctx, request, consumers, weigher=None,
                           distinct_roots=False):
        """Call (1.3): pick candidates for ``consumers`` and claim them (POST /claims)."""
        write_checks.schedule_consumers(consumers)
        self.authz.schedule_and_claim(ctx)
        return self.scheduler.schedule_and_claim(ctx, request, consumers, weigher,
                                                 distinct_roots)

    @messaging.expected_exceptions(exception.BerthException)
    @_admitted
    def update_compute_node(self, ctx, tree, host, capacity):
        """Call (1.7): a compute service's capacity report; creates or saves its node.

        ``tree`` None (a client without the database, or a new node): resolved here.
        """
        write_checks.finite(capacity)
        self.authz.update_compute_node(ctx)
        return self.compute_nodes.update(ctx, tree, host, capacity)

