"""HTTP errors in Placement's JSON error envelope.

Handlers raise :class:`ApiError` (or a subclass); the application renders it
once, adding the request id and, from microversion 1.23, the error code.
"""

import http.client

from api.placement import errors
from common import exception


class ApiError(Exception):
    status = 500

    def __init__(self, detail, code=None, status=None, headers=None, extra=None):
        super().__init__(detail)
        self.detail = str(detail)
        self.code = code or errors.DEFAULT
        if status is not None:
            self.status = status
        self.headers = headers or {}
        self.extra = extra or {}


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401


class Forbidden(ApiError):
    status = 403


class NotFound(ApiError):
    status = 404


class MethodNotAllowed(ApiError):
    status = 405


class NotAcceptable(ApiError):
    status = 406


class Conflict(ApiError):
    status = 409


class RequestTooLarge(ApiError):
    status = 413


class UnsupportedMediaType(ApiError):
    status = 415


class ServiceUnavailable(ApiError):
    status = 503


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
    for cls, api_cls, code in _BY_EXCEPTION:
        if isinstance(exc, cls):
            return api_cls(exc.message, code=code)
    return ApiError('An unexpected error occurred: %s' % type(exc).__name__)


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
