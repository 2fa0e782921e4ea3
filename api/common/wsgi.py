"""Request-body limits, JSON error responses and the outer middleware of both apps."""

from oslo_middleware import cors
from oslo_serialization import jsonutils
import webob

from api.common import errors, middleware

TOO_LARGE_CODE = 'berth.request_too_large'
TIMEOUT_CODE = 'berth.request_timeout'


def limit_body(req, max_body):
    """413 for a body over ``max_body`` bytes, 400 for a bad Content-Length.

    A declared body is read here, so one that ends before its length (the
    client went away) is a 400 rather than an error deep in a handler, and
    one that does not arrive in time (the server's read timeout or its
    whole-body deadline, api.server) a 408.

    Returns the declared length (None for a chunked or absent body).  A
    chunked body is read up to one byte past the limit, never further.
    """
    length = req.headers.get('content-length')
    if length is None:
        if req.is_body_readable and req.method in ('POST', 'PUT', 'PATCH'):
            data = req.body_file.read(max_body + 1)
            if len(data) > max_body:
                raise _too_large(max_body)
            req.body = data
        return None
    try:
        length = int(length)
    except ValueError:
        raise errors.BadRequest('content-length header must be an integer')
    if length > max_body:
        raise _too_large(max_body)
    if length > 0:
        try:
            # read now: a short body is the client's error, not a 500
            _read_body(req, length)
        except TimeoutError:
            raise errors.RequestTimeout(
                'The request body (%d bytes) did not arrive in time.' % length,
                code=TIMEOUT_CODE)
        except webob.request.DisconnectionError:
            raise errors.BadRequest('The request body is shorter than its Content-Length '
                                    '(%d bytes).' % length)
    return length


def _read_body(req, length):
    """Read the declared body into the request (``req.body`` reads from memory after).

    A small body (up to webob's in-memory limit) is read here straight from
    the server's input, as webob's ``copy_body`` would read it (a short one
    is a DisconnectionError) but without its wrapper and property look-ups
    per read; anything else, or a body already read, is webob's.
    """
    environ = req.environ
    if length > req.request_body_tempfile_limit or environ.get('webob.is_body_seekable'):
        req.body
        return
    stream, chunks, todo = environ['wsgi.input'], [], length
    while todo > 0:
        data = stream.read(todo)
        if not data:
            raise webob.request.DisconnectionError(
                'Client disconnected (%s more bytes were expected)' % todo)
        chunks.append(data)
        todo -= len(data)
    req.body = b''.join(chunks)


def _too_large(max_body):
    return errors.RequestTooLarge(
        'Request body larger than the limit of %d bytes' % max_body,
        code=TOO_LARGE_CODE)


def json_error(exc, body):
    """A JSON response for ApiError ``exc`` with the app's envelope ``body``."""
    resp = webob.Response(status=exc.status, content_type='application/json',
                          charset=None)
    resp.body = jsonutils.dump_as_bytes(body)
    for name, value in exc.headers.items():
        resp.headers[name] = value
    return resp


def wrap(app, conf, prefix=None):
    """keystonemiddleware (when [api] auth_strategy = keystone) and CORS around ``app``.

    CORS only when ``[cors] allowed_origin`` names an origin; outside them
    the middleware of api.common.middleware (request ids, proxy headers,
    the path ``prefix``, healthcheck).
    """
    if conf.api.auth_strategy == 'keystone':
        from keystonemiddleware import auth_token  # optional extra: [keystone]
        # unauthenticated paths (version documents) are decided by the app itself
        app = auth_token.AuthProtocol(app, {'oslo_config_config': conf,
                                            'delay_auth_decision': True})
    with_cors = cors.CORS(app, conf)      # registers the [cors] options
    if conf.cors.allowed_origin:
        # with no origin allowed the middleware would add nothing to any
        # answer, and costs an argument-spec inspection per request
        app = with_cors
    return middleware.wrap(app, conf, prefix)
