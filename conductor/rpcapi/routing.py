"""Routing keys of the conductor RPC API: which ring key each write goes by.

ConductorAPI computes every key here from the arguments of the call, so no
caller has to know how a write is routed:

* Placement allocation writes (claim_resources, delete_allocations,
  reshape) go by their *tree*: the root uuid of the first provider named,
  sorted (objects.placement.allocation.routing_tree), so the writes on one
  tree meet on one conductor, which serialises them.
* schedule_and_claim goes by its first consumer uuid (no provider is known
  yet); a backfill goes by the allocation uuid; a new node allocation goes
  to the ring owner of its API process (``[conductor] allocation_routing =
  process``, the default: one queue, and large batches, per process) or of
  its uuid (``allocation``); a destroy to the allocation's holder (below).
* update_compute_node goes by the compute node's provider tree (its uuid's
  root; a node not known yet by ``compute-node/<host>/<hypervisor_hostname>``).
* The writes that end an allocation go to the conductor holding it:
  its ``conductor_affinity`` while that host is alive, else the ring owner
  of the allocation uuid (:func:`holder_host`).

The tree of a provider is cached per process: a root changes only when a
provider is re-parented, and a stale entry merely sends a write to another
conductor, where the database still decides.
"""

from __future__ import annotations

from collections.abc import Iterable
import threading
from typing import TYPE_CHECKING, Any

from common import context as berth_context
from conductor.rpcapi import payloads

if TYPE_CHECKING:          # the ring is handed in: this module never starts one
    from conductor import ring as conductor_ring


def _routing_tree(ctx: berth_context.RequestContext, providers: Iterable[str],
                  consumers: Iterable[str]) -> str:
    """objects.placement.allocation.routing_tree, imported on first use.

    A process without the database (another service using this client)
    never needs it, so it never loads objects/ or db/.
    """
    from objects.placement import allocation as placement_alloc
    return placement_alloc.routing_tree(ctx, providers, consumers)


class RootCache:
    """provider uuid -> root uuid, for routing only (bounded; cleared when full)."""

    MAX = 100000

    def __init__(self) -> None:
        self._roots: dict[str, str] = {}
        self._lock = threading.Lock()

    def tree(self, ctx: berth_context.RequestContext, providers: Iterable[str],
             consumers: Iterable[str] = ()) -> str | None:
        """The routing key of a write naming ``providers`` for ``consumers``.

        None when this process has no database (another service using the
        published client): the caller then routes by :func:`fallback_key`
        and the conductor finds the tree itself.
        """
        if getattr(ctx, 'db', None) is None:
            return None
        providers = set(providers)
        first = min(providers) if providers else None
        root = self._roots.get(first) if first else None
        if root is None:
            root = _routing_tree(ctx, providers, list(consumers))
            if first:
                with self._lock:
                    if len(self._roots) >= self.MAX:
                        self._roots.clear()
                    self._roots[first] = root
        return root

    def warm(self, ctx: berth_context.RequestContext,
             provider_sets: Iterable[Iterable[str]]) -> None:
        """Cache the trees of writes naming each of ``provider_sets`` in one read.

        Only the sets whose first provider is not cached yet are asked; a
        provider the database does not know stays uncached (``tree`` then
        routes it by its own uuid).  No-op without a database.
        """
        if getattr(ctx, 'db', None) is None:
            return
        roots = self._roots     # not set(self._roots): a copy of the cache per call
        firsts = {first for first in (min(p) for p in map(set, provider_sets) if p)
                  if first not in roots}
        if not firsts:
            return
        from objects.placement import allocation as placement_alloc
        roots = placement_alloc.routing_roots(ctx, firsts)
        with self._lock:
            if len(self._roots) + len(roots) > self.MAX:
                self._roots.clear()
            self._roots.update(roots)

    def prefetch(self, ctx: berth_context.RequestContext) -> int:
        """Cache the roots of the first providers (up to half of MAX) in one read.

        A conductor does this as it starts, so its first calls do not each
        read the trees they name (one read per call until warm, paid again
        by every conductor a deployment adds).  Half: the providers created
        later still fit before the cache is cleared.  Returns how many.
        """
        if getattr(ctx, 'db', None) is None:
            return 0
        from objects.placement import allocation as placement_alloc
        roots = placement_alloc.some_routing_roots(ctx, self.MAX // 2)
        with self._lock:
            if len(self._roots) + len(roots) > self.MAX:
                self._roots.clear()
            self._roots.update(roots)
        return len(roots)

    def cached(self, providers: Iterable[str]) -> str | None:
        """The tree of a write naming ``providers`` when this process knows it, else None.

        Never reads the database: for a routing that does not need the
        tree, where it travels only as a hint the conductor can do without.
        """
        providers = set(providers)
        return self._roots.get(min(providers)) if providers else None

    def clear(self) -> None:
        with self._lock:
            self._roots.clear()


# one cache per process, shared by every ConductorAPI in it
ROOTS = RootCache()


def claim_tree(ctx: berth_context.RequestContext,
               consumers: list[payloads.ClaimConsumer]) -> str | None:
    """The tree claim_resources goes to: by the providers the consumers name."""
    return ROOTS.tree(ctx, set().union(*(c.providers for c in consumers)),
                      [c.uuid for c in consumers])


def known_claim_tree(consumers: list[payloads.ClaimConsumer]) -> str | None:
    """The tree of a claim when this process has it cached, else None (no database read).

    With ``claim_routing = process`` the conductor is this process's, whatever
    the tree: the tree then travels only as a hint, and a conductor given
    None resolves it from its own cache (conductor.manager.claim_many), which
    serves every API process that sends to it.  A cold cache then costs one
    read per conductor instead of one per API process.
    """
    return ROOTS.cached(set().union(*(c.providers for c in consumers)))


def consumer_tree(ctx: berth_context.RequestContext, consumer_uuid: str) -> str | None:
    """The tree delete_allocations goes to: the consumer's current providers."""
    return ROOTS.tree(ctx, (), [consumer_uuid])


def reshape_tree(ctx: berth_context.RequestContext, body: payloads.ReshapeBody) -> str | None:
    """The tree a reshape goes to: its inventories' and allocations' providers."""
    return ROOTS.tree(ctx, body.providers, [c.uuid for c in body.consumers])


def fallback_key(providers: Iterable[str], consumer: str) -> str:
    """The routing key of a write whose tree is unknown here: its first provider
    (sorted), else its consumer; the receiving conductor resolves the tree."""
    providers = sorted(providers)
    return providers[0] if providers else consumer


def schedule_key(request: payloads.ScheduleRequest) -> str:
    """schedule_and_claim goes by its first consumer uuid."""
    return request.consumers[0].uuid


def allocation_key(allocation_uuid: str) -> str:
    """A node allocation goes by its own uuid (``[conductor] allocation_routing =
    allocation``; the ring owner of the uuid also takes over an orphan)."""
    return allocation_uuid


def process_key(kind: str, host: str, pid: int) -> str:
    """The key of one API process for ``kind`` of write (``claims``, ``allocations``).

    With ``claim_routing`` / ``allocation_routing = process`` the process's
    coalesced claims / new node allocations all go to the ring owner of it.
    """
    return '%s-from/%s/%d' % (kind, host, pid)


def holder_host(ring: conductor_ring.Ring, allocation_uuid: str, affinity: str | None) -> str:
    """The conductor for a write ending an allocation: its affinity host if alive.

    Else the ring owner of the allocation uuid (ServiceUnavailable with no
    conductor alive).
    """
    if affinity is not None and affinity in ring.members():
        return affinity
    return ring.owner(allocation_key(allocation_uuid))


def _compute_node_uuid(ctx: berth_context.RequestContext, host: str,
                       hypervisor_hostname: str) -> str | None:
    """objects.legacy.compute_node_flows.find_uuid, imported on first use."""
    from objects.legacy import compute_node_flows
    return compute_node_flows.find_uuid(ctx, host, hypervisor_hostname)


def compute_node_route(ctx: berth_context.RequestContext, host: str,
                       capacity: dict[str, Any]) -> tuple[str | None, str]:
    """``(tree, key)`` of update_compute_node for ``host`` reporting ``capacity``.

    ``tree`` is the root of the node's provider (None when this process has
    no database or the node has no uuid yet); ``key`` is what the ring is
    asked: the tree, else the reported uuid, else the host and node name.
    """
    name = capacity.get('hypervisor_hostname') or host
    uuid = capacity.get('uuid')
    tree = None
    if getattr(ctx, 'db', None) is not None:
        uuid = uuid or _compute_node_uuid(ctx, host, name)
        if uuid:
            tree = ROOTS.tree(ctx, [uuid])
    return tree, tree or uuid or 'compute-node/%s/%s' % (host, name)
