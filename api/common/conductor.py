"""The conductor of an API request: the one place that answers 503 without one.

Every handler of either API that needs a conductor calls
:func:`require_conductor`; how a write is routed is the RPC client's
business (conductor.rpcapi.routing), never a handler's.
"""

from typing import Any

from common import exception

NO_CONDUCTOR = 'no conductor is configured'


def require_conductor(req: Any) -> Any:
    """The request's conductor RPC client (conductor.rpcapi.ConductorAPI), or 503.

    503 (``Service unavailable: no conductor is configured``) when this API
    runs without a conductor; each API renders it in its own error envelope.
    """
    if req.conductor is None:
        raise exception.ServiceUnavailable(reason=NO_CONDUCTOR)
    return req.conductor
