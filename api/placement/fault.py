"""HTTP errors in Placement's JSON error envelope.

Handlers raise :class:`ApiError` (or a subclass); the application renders it
once, adding the request id and, from microversion 1.23, the error code.
"""

import html
import http.client

import webob
from webob import acceptparse

from api.common import errors as common_errors
from api.common import wsgi as common_wsgi
from api.common.errors import (  # noqa: F401  (re-exported for handlers)
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    InsufficientStorage,
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
    (exception.QuotaLimitsUnavailable, ServiceUnavailable, errors.QUOTA_LIMITS_UNAVAILABLE),
    (exception.QuotaLimitsReadOnly, Conflict, errors.QUOTA_LIMITS_READ_ONLY),
    (exception.OutcomeUnknown, ServiceUnavailable, errors.OUTCOME_UNKNOWN),
    (exception.StorageFull, InsufficientStorage, errors.STORAGE_FULL),
    (exception.ServiceUnavailable, ServiceUnavailable, errors.SERVICE_UNAVAILABLE),
    (exception.NoValidHost, Conflict, errors.NO_VALID_HOST),
    (exception.QuotaExceeded, Forbidden, errors.QUOTA_EXCEEDED),
    (exception.Forbidden, Forbidden, None),
    (exception.NotFound, NotFound, None),
    (exception.Invalid, BadRequest, None),
    (exception.Conflict, Conflict, None),
]


def from_domain(exc):
    """The ApiError for a domain exception (500 for one we do not know)."""
    return common_errors.translate(exc, _BY_EXCEPTION)


def inventory_in_use(exc):
    """Placement's 409 for inventory in use that a PUT of inventories or a reshape removes."""
    return Conflict('update conflict: %s' % exc.message, code=errors.INVENTORY_INUSE)


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


_HTML = ('<html>\n <head>\n  <title>%(status)s</title>\n </head>\n <body>\n'
         '  <h1>%(status)s</h1>\n  %(detail)s<br /><br />\n\n\n </body>\n</html>')


def _media_type(accept):
    """The error's media type for an Accept header value, as WebOb chooses it.

    No Accept (or ``*/*``) is JSON, as Placement's request log middleware
    forces it; otherwise the first of text/html and application/json the
    client accepts, and text/plain when it accepts neither.
    """
    if not accept or accept == '*/*':
        return 'application/json'
    offers = acceptparse.create_accept_header(accept).acceptable_offers(
        ['text/html', 'application/json'])
    return offers[0][0] if offers else 'text/plain'


def render(req, exc, envelope):
    """The response for ApiError ``exc``: the JSON ``envelope`` when JSON is acceptable.

    A client that asks for text/html (a browser) gets WebOb's HTML page, one
    that accepts neither a plain-text one, as Placement answers them.
    """
    media_type = _media_type(req.headers.get('accept'))
    if media_type == 'application/json':
        return common_wsgi.json_error(exc, envelope)
    status = '%d %s' % (exc.status, http.client.responses.get(exc.status, 'Error'))
    if media_type == 'text/html':
        text = _HTML % {'status': status, 'detail': html.escape(exc.detail)}
    else:
        text = '%s\n\n%s' % (status, exc.detail)
    resp = webob.Response(status=exc.status, content_type=media_type, charset='UTF-8')
    resp.text = text
    for name, value in exc.headers.items():
        resp.headers[name] = value
    return resp
