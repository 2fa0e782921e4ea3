"""REST front-ends: the Placement API and the bare-metal (/v1) API.

Handlers read through ``objects`` and send racing writes to the conductors
through ``conductor.rpcapi``; they never import ``db`` or the conductor's
server side.
"""
