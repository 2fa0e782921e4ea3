"""Which allocation backend the /v1 writes serve."""


def mirrors(req):
    """Whether node writes also update the nodes' resource providers (placement backend)."""
    return req.conf.allocation.backend == 'placement'
