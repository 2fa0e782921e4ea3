"""Ironic's ``.json`` path suffix below API 1.91.

Ironic once guessed the content type from a path's extension; to stay
compatible, below 1.91 (with a version header given) it serves a path
ending in ``.json`` as the path without it, and a node or allocation named
by the path's last segment that is not found is looked up again with the
suffix (so a node named ``x.json`` is still found).  From 1.91 the suffix
means nothing: ``/v1/nodes/x.json`` names the node ``x.json``.
"""

from api.baremetal import version as api_version
from common import exception

SUFFIX = '.json'
_KEY = 'berth.json_suffix'


def strip(req):
    """Serve ``req`` without a trailing ``.json`` when Ironic would (below 1.91)."""
    path = req.path_info.rstrip('/')
    if (not path.endswith(SUFFIX) or not req.headers.get(api_version.HEADER)
            or req.version.matches(api_version.DOT_JSON)):
        return
    req.path_info = path[:-len(SUFFIX)]
    req.environ[_KEY] = req.path_info.rsplit('/', 1)[-1]


def lookup(req, ident, get):
    """``get(ident)``, or ``get(ident + '.json')`` when ``ident`` lost that suffix."""
    try:
        return get(ident)
    except (exception.NodeNotFound, exception.AllocationNotFound):
        if req.environ.get(_KEY) != ident:
            raise
        return get(ident + SUFFIX)
