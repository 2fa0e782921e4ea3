"""HTTP errors raised by handlers of either API; each app renders its own envelope."""

from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc

# Placement's "no specific code" (api.placement.errors.DEFAULT); the bare-metal
# envelope has no code field and ignores it.
UNDEFINED_CODE = 'placement.undefined_code'

# the database could not be reached or dropped the connection (oslo.db does
# not recognise every driver's wording, hence OperationalError): 503, retry
DATABASE_UNREACHABLE = (db_exc.DBConnectionError, sa_exc.OperationalError)

# the most of a caller's value an error message echoes, and the longest detail
ECHO_LIMIT = 200
DETAIL_LIMIT = 2048


def cut(value, limit=ECHO_LIMIT):
    """``value`` as text to echo in an error, cut to ``limit`` characters
    with an ellipsis (a 1 MB name must not make a 1 MB 400)."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[:limit] + '...'


def cut_repr(message, instance, limit=ECHO_LIMIT):
    """A jsonschema ``message`` with the repr of ``instance`` in it cut."""
    text = repr(instance)
    if len(text) > limit and text in message:
        message = message.replace(text, text[:limit] + '...')
    return cut(message, DETAIL_LIMIT)


class ApiError(Exception):
    """An HTTP error: status, a human-readable detail, optional code and headers.

    ``code`` is Placement's error code, UNDEFINED_CODE when none applies
    (ignored by the bare-metal envelope);
    ``extra`` holds additional members of the error object.
    """
    status = 500

    def __init__(self, detail, code=None, status=None, headers=None, extra=None):
        super().__init__(detail)
        # the last guard: whatever a message echoes, the answer stays small
        self.detail = cut(str(detail), DETAIL_LIMIT)
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


class RequestTimeout(ApiError):
    status = 408


class RequestTooLarge(ApiError):
    status = 413


class UnsupportedMediaType(ApiError):
    status = 415


class ServiceUnavailable(ApiError):
    status = 503


class InsufficientStorage(ApiError):
    """507: the database's disk is full (nothing written; retry once space is freed)."""
    status = 507


def translate(exc, table):
    """The ApiError for domain exception ``exc`` per ``table`` (500 if unknown).

    ``table`` is a list of ``(domain exception class, ApiError class, code)``;
    the first matching row wins.
    """
    for domain_cls, api_cls, code in table:
        if isinstance(exc, domain_cls):
            return api_cls(exc.message, code=code)
    return ApiError('An unexpected error occurred: %s' % type(exc).__name__)
