"""HTTP errors in Ironic's envelope: ``{"error_message": "<json string>"}``."""

import http.client

from oslo_serialization import jsonutils

from common import exception


class ApiError(Exception):
    status = 500

    def __init__(self, detail, status=None, headers=None):
        super().__init__(detail)
        self.detail = str(detail)
        if status is not None:
            self.status = status
        self.headers = headers or {}


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


_BY_EXCEPTION = [
    (exception.ServiceUnavailable, ServiceUnavailable),
    (exception.NotFound, NotFound),
    (exception.Invalid, BadRequest),
    (exception.Conflict, Conflict),
]


def from_domain(exc):
    """The ApiError for a domain exception (500 for one we do not know)."""
    for cls, api_cls in _BY_EXCEPTION:
        if isinstance(exc, cls):
            return api_cls(exc.message)
    return ApiError('An unexpected error occurred: %s' % type(exc).__name__)


def body(status, detail):
    """Ironic's error body: the fault as a JSON string inside ``error_message``."""
    fault = {'faultcode': 'Client' if status < 500 else 'Server',
             'faultstring': detail or http.client.responses.get(status, 'Error'),
             'debuginfo': None}
    return {'error_message': jsonutils.dumps(fault)}
