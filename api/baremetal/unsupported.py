"""Ironic endpoints berth does not serve: an explicit 404 instead of a generic one.

A client that asks for ports, driver properties or ``validate`` should learn that berth
does not serve them, not read a 404 as "no such node".  Listed from Ironic's
API reference; what berth serves is doc/source/api/baremetal.md's compatibility
matrix.
"""

from api.baremetal import fault

DOC = 'doc/source/api/baremetal.md'

# /v1/<name>...
TOP_LEVEL = frozenset((
    'ports', 'portgroups', 'deploy_templates',
    'runbooks', 'volume', 'lookup', 'heartbeat', 'events',
    'continue_inspection', 'inspection_rules'))
# /v1/nodes/{node}/<name>...
NODE_LEVEL = frozenset((
    'ports', 'portgroups', 'vifs', 'validate', 'management', 'bios',
    'vendor_passthru', 'volume', 'firmware',
    'vmedia', 'virtual_media', 'shard'))
# /v1/drivers/{driver}/<name>...
DRIVER_LEVEL = frozenset(('properties', 'raid', 'vendor_passthru'))
# /v1/nodes/{node}/states/<name>
NODE_STATES = frozenset(('raid', 'console', 'indicators'))


def is_unsupported(path):
    """Whether ``path`` (no route matched it) is an Ironic endpoint berth leaves out."""
    parts = [p for p in path.split('/') if p]
    if len(parts) < 2 or parts[0] != 'v1':
        return False
    if parts[1] in TOP_LEVEL:
        return True
    if parts[1] == 'drivers' and len(parts) >= 4:
        return parts[3] in DRIVER_LEVEL
    if parts[1] != 'nodes' or len(parts) < 4:
        return False
    if parts[3] in NODE_LEVEL:
        return True
    return parts[3] == 'states' and len(parts) >= 5 and parts[4] in NODE_STATES


def is_unknown_state_put(method, path):
    """A PUT to ``/v1/nodes/{node}/states/<name>`` with a name Ironic has no action
    for: Ironic's states controller has no PUT of its own, so it answers 405 (before
    looking the node up), where a GET of the same path is a 404."""
    parts = [p for p in path.split('/') if p]
    return (method == 'PUT' and len(parts) == 5 and parts[0] == 'v1'
            and parts[1] == 'nodes' and parts[3] == 'states' and parts[4] not in NODE_STATES)


def not_supported(path):
    return fault.NotFound('not supported by berth: %s (see %s)' % (path, DOC))
