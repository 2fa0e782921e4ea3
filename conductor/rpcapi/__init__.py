"""Client side of the conductor RPC API (used by the API and by peers).

Every method pins the lowest RPC version it needs and computes its own
routing key from its arguments (:mod:`conductor.rpcapi.routing`): the
conductor that owns the key on the hash ring gets the message
(``prepare(server=owner)``).  Arguments and answers are the typed payloads
of :mod:`conductor.rpcapi.payloads`, sent as their primitives; the version
history lives in :mod:`conductor.rpcapi.version`.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging

from common import exception, rpc, rpc_replies
from common.context import RequestContext
from conductor import ring as conductor_ring
from conductor.rpcapi import (
    allocation_batch,
    claim_batch,
    gate,
    payloads,
    pings,
    replay,
    routing,
)
from conductor.rpcapi import version as rpc_version

LOG = logging.getLogger('berth.' + __name__)

# seconds a waiting create_allocation call allows beyond its ``wait``
ALLOCATION_REPLY_MARGIN = 2.0
# seconds a conductor that refused 1.8 gets its writes the pre-1.8 way
OLD_SERVER_TTL = 60
# how many times one write follows its key to a new owner
MAX_MOVES = 2


class ConductorAPI:
    """Typed RPC calls to the conductors; routing by ring, versions capped by conf.

    :param conf: the process's ConfigOpts.
    :param transport: an oslo.messaging RPC transport (see common.rpc).
    :param ring: anything with ``owner(key) -> host`` (conductor.ring.Ring).
    :param replies: the process's reply queue set-up (common.rpc_replies);
        None: oslo.messaging's, on the first call.
    """

    def __init__(self, conf: cfg.ConfigOpts, transport: messaging.Transport,
                 ring: Any, replies: rpc_replies.ReplyListener | None = None) -> None:
        self.conf = conf
        self.ring = ring
        self.replies = replies
        cap = self.version_cap = conf.upgrade_levels.conductor or rpc_version.RPC_API_VERSION
        self.client = rpc.get_client(
            transport, rpc_version.RPC_API_VERSION, cap, timeout=rpc.call_timeout(conf),
            retry=conf.conductor.rpc_send_retries, replies=replies,
            verify_replies=rpc_version.allows(cap, rpc_version.REPLY_SIGNING))
        # whether create_allocation may wait (1.4); the cap is fixed per process
        self._allocation_wait = self.can_send_version(rpc_version.ALLOCATION_WAIT)
        # backfill and the node writes that end an allocation (1.6)
        self._node_writes = self.can_send_version(rpc_version.NODE_WRITES)
        # compute services report capacity (1.7)
        self._compute_nodes = self.can_send_version(rpc_version.COMPUTE_NODE_WRITES)
        # write calls carry a call id and are replayed on timeouts (1.8)
        self._replay = (self.can_send_version(rpc_version.REPLAY)
                        and conf.conductor.rpc_attempt_timeout > 0)
        self._old_servers: dict[str, float] = {}   # refused 1.8: host -> until when
        self._gate: gate.UpgradeGate | None = None
        # concurrent waiting calls to one conductor share one message (1.5)
        self._batcher = None
        if self.can_send_version(rpc_version.ALLOCATION_BATCH):
            self._batcher = allocation_batch.AllocationBatcher(self._create_allocations)
        # concurrent claims of one caller to one conductor share one call (1.9)
        self._claims = None
        if (self._replay and self.can_send_version(rpc_version.CLAIM_BATCH)
                and not claim_batch.in_process(transport)):
            self._claims = claim_batch.ClaimSender(
                self.client, rpc_version.CLAIM_BATCH,
                conf.conductor.rpc_attempt_timeout, rpc.call_timeout(conf),
                linger=conf.conductor.claim_batch_linger,
                linger_below=conf.conductor.claim_batch_linger_below,
                alive=getattr(ring, 'is_alive', None))

    def broker_reachable(self) -> bool:
        """False while this process's reply queue is not set up (the broker never reached)."""
        return self.replies is None or self.replies.ready.is_set()

    def can_send_version(self, version: str) -> bool:
        """Whether every conductor is new enough for ``version`` (rolling upgrades)."""
        return self.client.can_send_version(version)

    def _prepare(self, routing_key: str, version: str) -> tuple[str, Any]:
        server = self.ring.owner(routing_key)
        return server, self.client.prepare(server=server, version=version)

    def _call(self, ctx: RequestContext, routing_key: str, method: str, version: str,
              **kwargs: Any) -> Any:
        """``call`` ``method`` on the owner of ``routing_key``; wait for its answer."""
        server, cctxt = self._prepare(routing_key, version)
        with rpc.translate_errors(server, method):
            return cctxt.call(ctx, method, **kwargs)

    def _write(self, ctx: RequestContext, server: str, method: str, version: str,
               route: Any = None, sent: bool = False, **kwargs: Any) -> Any:
        """A write ``call`` on ``server``: replayable (1.8) or as before ``version``.
        Once the ring drops ``server``, the call goes to ``route()`` (replay.Moved);
        ``sent``: it went out before, to a conductor the ring dropped since.
        """
        moves = 0
        while self._replay and self._old_servers.get(server, 0) < time.monotonic():
            try:
                return replay.call(self.client, ctx, server, method, rpc_version.REPLAY,
                                   self.conf.conductor.rpc_attempt_timeout,
                                   rpc.call_timeout(self.conf), sent=sent,
                                   alive=getattr(self.ring, 'is_alive', None), **kwargs)
            except replay.OldConductor:
                LOG.warning('Conductor %s does not speak RPC %s: no replays to it '
                            'for %ds (set [upgrade_levels] conductor during an '
                            'upgrade)', server, rpc_version.REPLAY, OLD_SERVER_TTL)
                self._old_servers[server] = time.monotonic() + OLD_SERVER_TTL
            except replay.Moved as moved:
                moves += 1
                sent = sent or moved.sent
                server = replay.moved_to(moved, method, route, moves > MAX_MOVES)
        cctxt = self.client.prepare(server=server, version=version)
        with rpc.translate_errors(server, method):
            return cctxt.call(ctx, method, **kwargs)

    # --- the RPC API (one short method per RPC method; the writes answer
    # what the conductor answers, None today) ---

    def ping(self, ctx: RequestContext, routing_key: str) -> dict[str, Any]:
        """Ask the owner of ``routing_key`` who it is: ``{'host', 'members'}``."""
        return self._call(ctx, routing_key, 'ping', rpc_version.PING)

    def conductors(self, ctx: RequestContext, ping_timeout: float = 1
                   ) -> list[dict[str, Any]]:
        """The live conductors, each pinged: for status pages, not for routing.

        ``[{'host', 'rpc_api_version', 'joined_age', 'heartbeat_age',
        'ping_ms', 'ping_error'}]`` by host; ages in seconds (None when the
        coordination backend does not publish them); a conductor that does
        not answer within ``ping_timeout`` seconds has ``ping_error``.
        """
        now = time.time()
        found = []
        for member in self.ring.describe():
            caps = member['capabilities']
            found.append({'host': member['host'],
                          'rpc_api_version': caps.get('rpc_api_version'),
                          'joined_age': pings.age(now, caps.get('joined_at')),
                          'heartbeat_age': pings.age(now, caps.get('heartbeat_at')),
                          'ping_ms': None, 'ping_error': None})
        if not self.broker_reachable():     # no ping can be answered: none sent
            for entry in found:
                entry['ping_error'] = 'the message broker cannot be reached'
            return found
        answers = pings.ping_all(self.client, ctx, [e['host'] for e in found],
                                 ping_timeout)
        for entry in found:
            entry['ping_ms'], entry['ping_error'] = answers[entry['host']]
        return found

    def unreachable(self, conductors: list[dict[str, Any]] | None = None) -> list[str]:
        """What this process cannot reach now: ``broker``, ``coordination`` (for /status).

        ``conductors``: what :meth:`conductors` answered (their pings tell a
        broker that went away after the reply queue was set up).
        """
        down = []
        errors = [c.get('ping_error') or '' for c in conductors or ()]
        if not self.broker_reachable() or (
                errors and all('broker cannot be reached' in e for e in errors)):
            down.append('broker')
        reachable = getattr(self.ring, 'reachable', None)
        if reachable is not None and not reachable():
            down.append('coordination')
        return down

    def allocation_owner(self, allocation_uuid: str) -> str:
        """The conductor that will own a new node allocation (its affinity host).

        ``[conductor] allocation_routing``: ``process`` (the default) the
        ring owner of this API process (host and pid, read per call: a
        forked worker is a process of its own), so its concurrent creates
        share one queue and one ``create_allocations`` call however many
        conductors there are; ``allocation`` the ring owner of the uuid.
        """
        if self.conf.conductor.allocation_routing == 'process':
            return self.ring.owner(routing.process_key('allocations', self.conf.host, os.getpid()))
        return self.ring.owner(routing.allocation_key(allocation_uuid))

    def create_allocation(self, ctx: RequestContext, allocation_id: int, host: str,
                          wait: float = 0) -> payloads.AllocationOutcome | None:
        """Hand node allocation ``allocation_id`` to its affinity ``host``.

        ``wait`` <= 0 (or a conductor older than 1.4): a cast, None.
        Otherwise a call that waits up to ``wait`` seconds for the outcome
        (an AllocationOutcome), or None when
        it is not known in time (a slow, busy or dead conductor, or one that
        failed unexpectedly: the row stays ``allocating`` and that conductor,
        its re-drive or the orphan takeover finishes it).  Raises
        ServiceUnavailable only when the message could not be sent.
        """
        if wait <= 0 or not self._allocation_wait:
            cctxt = self.client.prepare(server=host, version=rpc_version.NODE_ALLOCATIONS)
            with rpc.translate_errors(host, 'create_allocation'):
                cctxt.cast(ctx, 'create_allocation', allocation_id=allocation_id)
            return None
        if self._batcher is not None:
            written = self._batcher.run(ctx, host, allocation_id, wait)
        else:
            written = self._wait_for(ctx, host, 'create_allocation',
                                     rpc_version.ALLOCATION_WAIT, wait,
                                     [allocation_id], allocation_id=allocation_id)
        return payloads.AllocationOutcome.from_primitive(written)

    def _create_allocations(self, ctx: RequestContext, host: str,
                            allocation_ids: list[int], wait: float) -> list[Any]:
        """One call (1.5) for several allocations of ``host``: a result per id."""
        results = self._wait_for(ctx, host, 'create_allocations',
                                 rpc_version.ALLOCATION_BATCH, wait,
                                 allocation_ids, allocation_ids=allocation_ids)
        if results is None:
            return [None] * len(allocation_ids)
        return results

    def _wait_for(self, ctx: RequestContext, host: str, method: str, version: str,
                  wait: float, ids: list[int], **kwargs: Any) -> Any:
        """Call ``method`` waiting up to ``wait``; None when not answered (see above)."""
        # the conductor answers after ``wait`` at the latest; the margin
        # covers the trip, so a timeout here means a conductor in trouble
        cctxt = self.client.prepare(server=host, version=version,
                                    timeout=wait + ALLOCATION_REPLY_MARGIN)
        with rpc.translate_errors(host, method):
            try:
                return cctxt.call(ctx, method, wait=wait, **kwargs)
            except messaging.MessagingTimeout:
                LOG.warning('Conductor %s did not answer allocations %s in time; '
                            'they stay allocating', host, ids)
            except messaging.RemoteError as exc:
                LOG.warning('Conductor %s failed on allocations %s (%s); they stay '
                            'allocating', host, ids, exc.exc_type)
        return None

    def destroy_allocation(self, ctx: RequestContext, allocation_uuid: str,
                           affinity: str | None = None) -> Any:
        """Delete a node allocation (NodeLocked / NodeInvalidState cross typed).

        On its ``affinity`` host while that is alive (the conductor holding
        it), else on the ring owner of its uuid (routing.holder_host).
        """
        route = functools.partial(routing.holder_host, self.ring, allocation_uuid, affinity)
        return self._write(ctx, route(), 'destroy_allocation',
                           rpc_version.NODE_ALLOCATIONS, route=route,
                           allocation_uuid=allocation_uuid)

    # --- 1.6: the other allocation writes (backfill; node writes that end one) ---

    def _require_node_writes(self, method: str) -> None:
        """ServiceUnavailable when capped below 1.6: never a write in the API process."""
        if not self._node_writes:
            raise exception.ServiceUnavailable(
                reason='%s needs conductor RPC API 1.6 but [upgrade_levels] conductor '
                       'is %s; finish the upgrade' % (method, self.version_cap))

    def backfill_allocation(self, ctx: RequestContext, new: payloads.NewAllocation,
                            node: str) -> payloads.BackfillAnswer:
        """Backfill (Ironic 1.58) on the ring owner of the allocation uuid.

        ``new`` must carry the ``uuid``: the owner becomes the allocation's
        conductor affinity.  Answers the allocation's uuid and, when the
        node does not fit (the row is stored ``error``), why.
        """
        self._require_node_writes('backfill_allocation')
        key = routing.allocation_key(new.uuid or '')
        answer = self._write(ctx, self.ring.owner(key), 'backfill_allocation',
                             rpc_version.NODE_WRITES, route=lambda: self.ring.owner(key),
                             values=new.to_primitive(), node=node)
        return payloads.BackfillAnswer.from_primitive(answer)

    def _holder_call(self, ctx: RequestContext, holder: tuple[str, str | None],
                     method: str, **kwargs: Any) -> Any:
        """Call ``method`` on the conductor of the allocation ``holder``.

        ``holder`` is ``(allocation uuid, conductor_affinity)``: the affinity
        host while it is alive, else the ring owner of the allocation uuid.
        """
        self._require_node_writes(method)
        uuid, affinity = holder

        def route() -> str:
            return routing.holder_host(self.ring, uuid, affinity)
        return self._write(ctx, route(), method, rpc_version.NODE_WRITES, route=route, **kwargs)

    def update_allocation(self, ctx: RequestContext, holder: tuple[str, str | None],
                          change: payloads.AllocationUpdate) -> Any:
        """PATCH the ``name``/``extra`` of the allocation ``holder`` on its conductor."""
        return self._holder_call(ctx, holder, 'update_allocation', allocation=holder[0],
                                 values=change.to_primitive())

    def update_node(self, ctx: RequestContext, holder: tuple[str, str | None],
                    node: str, change: payloads.NodeUpdate) -> Any:
        """A node PATCH that removes the instance of the allocation ``holder``."""
        return self._holder_call(ctx, holder, 'update_node', node=node,
                                 values=change.to_primitive())

    def set_node_provision_state(self, ctx: RequestContext,
                                 holder: tuple[str, str | None], node: str,
                                 verb: str) -> Any:
        """``deleted``/``undeploy`` on a node held by the allocation ``holder``."""
        return self._holder_call(ctx, holder, 'set_node_provision_state', node=node, verb=verb)

    def destroy_node(self, ctx: RequestContext, holder: tuple[str, str | None],
                     node: str) -> Any:
        """Delete a node held by the allocation ``holder`` (in maintenance)."""
        return self._holder_call(ctx, holder, 'destroy_node', node=node)

    def claim_resources(self, ctx: RequestContext,
                        consumers: list[payloads.ClaimConsumer]) -> Any:
        """Replace the allocations of ``consumers`` on the owner of their tree.

        The tree is the root of the first provider named (conductor.rpcapi.routing);
        a process without the database sends ``tree=None`` and the conductor
        resolves it.  So does a coalesced claim routed by process whose tree
        this process has not cached: its conductor does not depend on the
        tree (routing.known_claim_tree).
        """
        sent = [c.to_primitive() for c in consumers]
        went = False    # a batch of it went to a conductor the ring dropped since
        by_process = self.conf.conductor.claim_routing == 'process'
        if self._claims is not None and by_process:
            server = self._process_conductor()
            if self._claims.speaks(server):
                answer = self._claims.claim(ctx, server, routing.known_claim_tree(consumers),
                                            sent)
                if answer is None:
                    return None
                went = answer is claim_batch.MOVED_SENT
        tree = routing.claim_tree(ctx, consumers)
        key = tree or routing.fallback_key(set().union(*(c.providers for c in consumers)),
                                           consumers[0].uuid)
        server = self.ring.owner(key)
        if self._claims is not None and not by_process and self._claims.speaks(server):
            answer = self._claims.claim(ctx, server, tree, sent)
            if answer is None:
                return None
            went, server = answer is claim_batch.MOVED_SENT, self.ring.owner(key)
        return self._write(ctx, server, 'claim_resources', rpc_version.PLACEMENT_WRITES, sent=went,
                           route=lambda: self.ring.owner(key), tree=tree, consumers=sent)

    def _process_conductor(self) -> str:
        """Where ``claim_routing = process`` sends this process's coalesced claims: the
        ring owner of this API process (host and pid, read per call), so they share a call."""
        return self.ring.owner(routing.process_key('claims', self.conf.host, os.getpid()))

    def delete_allocations(self, ctx: RequestContext, consumer_uuid: str) -> Any:
        """Remove every allocation of one consumer (routed like its claims)."""
        tree = routing.consumer_tree(ctx, consumer_uuid)
        key = tree or routing.fallback_key((), consumer_uuid)
        return self._write(ctx, self.ring.owner(key), 'delete_allocations',
                           rpc_version.PLACEMENT_WRITES,
                           route=lambda: self.ring.owner(key), tree=tree,
                           consumer_uuid=consumer_uuid)

    def reshape(self, ctx: RequestContext, body: payloads.ReshapeBody) -> Any:
        """Apply a POST /reshaper body atomically on the owner of its tree."""
        tree = routing.reshape_tree(ctx, body)
        key = tree or routing.fallback_key(body.providers, body.consumers[0].uuid
                                           if body.consumers else '')
        return self._write(ctx, self.ring.owner(key), 'reshape', rpc_version.PLACEMENT_WRITES,
                           route=lambda: self.ring.owner(key), tree=tree,
                           **body.to_primitive())

    def schedule_and_claim(self, ctx: RequestContext, request: payloads.ScheduleRequest
                           ) -> list[payloads.ClaimedConsumer]:
        """Search, weigh and claim in one call, on the owner of the first consumer."""
        key = routing.schedule_key(request)
        answer = self._write(ctx, self.ring.owner(key), 'schedule_and_claim',
                             rpc_version.SCHEDULE_AND_CLAIM,
                             route=lambda: self.ring.owner(key), **request.to_primitive())
        return payloads.claimed_from_primitive(answer)

    # --- 1.7: compute nodes (seed 000) ---

    @property
    def gate(self) -> gate.UpgradeGate:
        """The compute-node write path's upgrade gate over this client's ring."""
        if self._gate is None:
            self._gate = gate.UpgradeGate(self.ring,
                                          ttl=self.conf.coordination.ring_refresh_interval)
        return self._gate

    def update_compute_node(self, ctx: RequestContext, host: str,
                            capacity: dict[str, Any]) -> dict[str, Any]:
        """Report ``host``'s capacity (nova's resource tracker): create or save its node.

        ``capacity``: vcpus, memory_mb, local_gb, their ``_used`` values,
        the allocation ratios, disk_available_least, pci_stats, numa_topology,
        and optionally hypervisor_hostname (default ``host``) and uuid.
        Runs on the owner of the node's provider tree; answers the node
        (objects.legacy.compute_node_flows.to_primitive).  ServiceUnavailable,
        and no write anywhere, when ``[upgrade_levels] conductor`` is below
        1.7 or the owner publishes an older version.
        """
        if not self._compute_nodes:
            raise exception.ServiceUnavailable(
                reason='update_compute_node needs conductor RPC API 1.7 but '
                       '[upgrade_levels] conductor is %s; finish the upgrade'
                       % self.version_cap)
        payloads.check_report_shape(host, capacity)
        tree, key = routing.compute_node_route(ctx, host, capacity)
        server = self.ring.owner(key)
        old = dict(self.gate.state().old)
        if server in old:
            raise exception.ServiceUnavailable(
                reason='update_compute_node needs conductor RPC API 1.7 but conductor '
                       '%s speaks %s; finish the upgrade' % (server, old[server]))
        return self._write(ctx, server, 'update_compute_node', rpc_version.COMPUTE_NODE_WRITES,
                           tree=tree, host=host, capacity=capacity)


class APIConductorClient(ConductorAPI):
    """A ConductorAPI that owns its transport and ring reader (API processes)."""

    def __init__(self, conf: cfg.ConfigOpts,
                 transport: messaging.Transport | None = None) -> None:
        self._own_transport = transport is None
        if transport is None:
            transport = rpc.get_transport(conf)
        self.transport = transport
        # the reply queue is set up now, in the background: a call never
        # waits on it longer than its own timeout (common.rpc_replies)
        replies = rpc_replies.ReplyListener(transport).start()
        super().__init__(conf, transport, conductor_ring.Ring(conf).start(), replies)

    def stop(self) -> None:
        if self.replies is not None:
            self.replies.stop()
        self.ring.stop()
        if self._own_transport:
            self.transport.cleanup()
