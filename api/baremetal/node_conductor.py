"""A node's ``conductor`` (Ironic API 1.49): the live conductor responsible for it.

berth answers with the conductor its own routing would send the node's
conductor work to, over the hash ring of the live conductors
(conductor.rpcapi.routing):

* a node that holds an allocation: the conductor holding that allocation,
  its ``conductor_affinity`` while that conductor is alive, else the ring
  owner of the allocation uuid (the one that takes it over);
* any other node: the ring owner of the node's uuid (Ironic's answer: its
  hash ring keyed by the node).

``None`` when no conductor is alive or this API runs without conductors.
Conductor groups do not restrict the ring in berth: every live conductor
may serve any node.  ``?conductor=<hostname>`` on GET /v1/nodes keeps the
nodes whose answer is that hostname.
"""

from common import exception
from conductor.rpcapi import routing
from objects.baremetal import conductor as conductor_obj

_CACHE = 'berth.node_conductors'
# the version that shows the field and takes the filter
SINCE = '1.49'


def _ring(req):
    client = getattr(req, 'conductor', None)
    ring = getattr(client, 'ring', None)
    if ring is None or not ring.members():
        return None
    return ring


def _answer(ring, node, affinities):
    try:
        if node.allocation_uuid is not None:
            return routing.holder_host(ring, node.allocation_uuid,
                                       affinities.get(node.allocation_uuid))
        return ring.owner(node.uuid)
    except exception.ServiceUnavailable:       # the last conductor left meanwhile
        return None


def prefetch(req, nodes):
    """Work out the conductor of every node of ``nodes`` (one query for all)."""
    ring = _ring(req)
    cache = req.environ.setdefault(_CACHE, {})
    if ring is None:
        cache.update((n.uuid, None) for n in nodes)
        return cache
    held = [n.allocation_uuid for n in nodes if n.allocation_uuid]
    affinities = conductor_obj.allocation_affinities(req.context, held) if held else {}
    cache.update((n.uuid, _answer(ring, n, affinities)) for n in nodes)
    return cache


def of(req, node):
    """The hostname of ``node``'s conductor, or None."""
    if node.uuid is None:               # the sample node of response.node_fields
        return None
    cache = req.environ.get(_CACHE, {})
    if node.uuid not in cache:
        cache = prefetch(req, [node])
    return cache[node.uuid]


def filter_pages(req, fetch, limit, marker, hostname):
    """Up to ``limit`` nodes whose conductor is ``hostname``, from ``marker`` on.

    ``fetch(limit, marker)`` reads one page of the unfiltered listing; pages
    are read until ``limit`` nodes matched or the listing ended, so a full
    page of matches is never cut short (a page of the answer is full exactly
    when more may follow, as without the filter).
    """
    found: list = []
    while len(found) < limit:
        page = fetch(limit, marker)
        prefetch(req, page)
        found += [n for n in page if of(req, n) == hostname]
        if len(page) < limit:
            break
        marker = page[-1].uuid
    return found[:limit]
