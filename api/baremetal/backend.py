"""Which allocation backend the /v1 writes serve, and who holds a node's allocation."""

from common import exception
from objects.baremetal import allocation as node_alloc


def mirrors(req):
    """Whether node writes also update the nodes' resource providers (placement backend)."""
    return req.conf.allocation.backend == 'placement'


def holder(req, node):
    """``(uuid, conductor_affinity)`` of the allocation holding ``node``.

    The node writes that end it go to that conductor (conductor.rpcapi).
    """
    try:
        alloc = node_alloc.get(req.context, node.allocation_uuid)
    except exception.AllocationNotFound:   # gone meanwhile: route by the uuid
        return node.allocation_uuid, None
    return alloc.uuid, alloc.conductor_affinity
