"""HTTP errors in Placement's JSON error envelope.

Handlers raise :class:`ApiError` (or a subclass); the application renders it
once, adding the request id and, from microversion 1.23, the error code.
"""

import http.client

from api.common import errors as common_errors
from api.common.errors import (  # noqa: F401  (re-exported for handlers)
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    RequestTooLarge,
    ServiceUnavailable,
    Unauthorized,
    UnsupportedMediaType,
)
from api.placement import errors
from common import exception

# Default translation of domain exceptions; handlers catch and re-raise where
# Placement answers differently for one endpoint.
_BY_EXCEPTION = [
    (exception.ConcurrentUpdate, Conflict, errors.CONCURRENT_UPDATE),
    (exception.InventoryInUse, Conflict, errors.INVENTORY_INUSE),
    (exception.ProviderHasChildren, Conflict, errors.PROVIDER_CANNOT_DELETE_PARENT),
    (exception.ProviderInUse, Conflict, errors.PROVIDER_IN_USE),
    (exception.DuplicateProvider, Conflict, errors.DUPLICATE_NAME),
    (exception.ServiceUnavailable, ServiceUnavailable, errors.SERVICE_UNAVAILABLE),
    (exception.NoValidHost, Conflict, errors.NO_VALID_HOST),
    (exception.QuotaExceeded, Forbidden, errors.QUOTA_EXCEEDED),
    (exception.NotFound, NotFound, None),
    (exception.Invalid, BadRequest, None),
    (exception.Conflict, Conflict, None),
]


def from_domain(exc):
    """The ApiError for a domain exception (500 for one we do not know)."""
    return common_errors.translate(exc, _BY_EXCEPTION)


def body(status, detail, request_id, code=None, extra=None):
    """The error envelope; ``code`` None leaves it out (before 1.23)."""
    error = {'status': status, 'title': http.client.responses.get(status, 'Error'),
             'detail': detail}
    if request_id:
        error['request_id'] = request_id
    if code is not None:
        error['code'] = code
    if extra:
        error.update(extra)
    return {'errors': [error]}
