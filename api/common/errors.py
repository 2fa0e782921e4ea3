"""HTTP errors raised by handlers of either API; each app renders its own envelope."""

from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc

# Placement's "no specific code" (api.placement.errors.DEFAULT); the bare-metal
# envelope has no code field and ignores it.
UNDEFINED_CODE = 'placement.undefined_code'

# the database could not be reached or dropped the connection (oslo.db does
# not recognise every driver's wording, hence OperationalError): 503, retry
DATABASE_UNREACHABLE = (db_exc.DBConnectionError, sa_exc.OperationalError)


class ApiError(Exception):
    """An HTTP error: status, a human-readable detail, optional code and headers.

    ``code`` is Placement's error code, UNDEFINED_CODE when none applies
    (ignored by the bare-metal envelope);
    ``extra`` holds additional members of the error object.
    """
    status = 500

    def __init__(self, detail, code=None, status=None, headers=None, extra=None):
        super().__init__(detail)
        self.detail = str(detail)
        self.code = code or UNDEFINED_CODE
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


def translate(exc, table):
    """The ApiError for domain exception ``exc`` per ``table`` (500 if unknown).

    ``table`` is a list of ``(domain exception class, ApiError class, code)``;
    the first matching row wins.
    """
    for domain_cls, api_cls, code in table:
        if isinstance(exc, domain_cls):
            return api_cls(exc.message, code=code)
    return ApiError('An unexpected error occurred: %s' % type(exc).__name__)
