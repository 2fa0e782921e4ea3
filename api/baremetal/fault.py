"""HTTP errors in Ironic's envelope: ``{"error_message": "<json string>"}``."""

import http.client

from oslo_serialization import jsonutils

from api.common import errors as common_errors
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
from common import exception

_BY_EXCEPTION = [
    (exception.StorageFull, InsufficientStorage, None),
    (exception.ServiceUnavailable, ServiceUnavailable, None),
    (exception.Forbidden, Forbidden, None),
    (exception.NotFound, NotFound, None),
    (exception.Invalid, BadRequest, None),
    (exception.Conflict, Conflict, None),
]


def from_domain(exc):
    """The ApiError for a domain exception (500 for one we do not know)."""
    return common_errors.translate(exc, _BY_EXCEPTION)


def body(status, detail):
    """Ironic's error body: the fault as a JSON string inside ``error_message``."""
    fault = {'faultcode': 'Client' if status < 500 else 'Server',
             'faultstring': detail or http.client.responses.get(status, 'Error'),
             'debuginfo': None}
    return {'error_message': jsonutils.dumps(fault)}
