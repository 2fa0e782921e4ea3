"""The one request pipeline of both REST front-ends; each API supplies its pieces.

Every request goes through :meth:`Application.__call__`, in this order (each
step may answer on its own):

1. a request id (``x-openstack-request-id`` on every answer) and the
   caller's global request id (a valid ``X-OpenStack-Request-ID`` header,
   e.g. nova's), both from oslo.middleware's RequestId in front of the app
   (:func:`request_ids`), bound to the thread for the log lines; the thread
   forgets them when the answer is done;
2. :meth:`Application.handle`: identity (:meth:`identify`, skipped for the
   API's public documents, :meth:`is_public`) and version negotiation
   (:meth:`negotiate`), in the API's own order (:attr:`identify_first`), then
   the body checks (:meth:`check_body`) and the router, which resolves the
   route (404/405) and calls the handler;
3. the error ladder: an :class:`~api.common.errors.ApiError` is rendered as
   it is, a domain exception is translated (:meth:`from_domain`), a database
   that cannot be reached is a 503, anything else a 500 logged with its
   traceback and never shown to the client; the API's envelope is
   :meth:`error_body`;
4. the API's answer headers (:meth:`answer_headers`) and one request log line.

A subclass (api.placement.app, api.baremetal.app) supplies: the router, the
policy enforcer and its environ key, version negotiation, the identity of a
``noauth2`` caller, the error envelope and the version headers.
"""

import logging
import re

from oslo_context import context as o_context
from oslo_middleware import request_id as o_request_id

from api.common import errors, identity, request_log
from api.common import request as berth_request
from api.common import wsgi as common_wsgi
from common import context as berth_context
from common import deadline, exception, rpc

UNEXPECTED = ('An unexpected error prevented the server from fulfilling the '
              'request.')


class Application:
    """A WSGI application: the shared pipeline around an API's own pieces."""

    #: the logger of the request log and of the error ladder (each API's own)
    log = logging.getLogger('berth.' + __name__)
    #: environ key under which handlers find the policy enforcer
    enforcer_key = 'berth.enforcer'
    #: whether identity is decided before the version is negotiated
    identify_first = True
    #: the 401 detail when keystone's headers name no caller
    unauthenticated = 'Authentication required.'

    def __init__(self, conf, db, conductor=None):
        self.conf = conf
        self.db = db
        self.conductor = conductor
        self.enforcer = self.make_enforcer(conf)
        self.router = self.make_router()
        self.max_body = conf.api.max_request_body_size
        self.keystone = conf.api.auth_strategy == 'keystone'

    # -- the pieces each API supplies -------------------------------------

    def make_enforcer(self, conf):
        raise NotImplementedError

    def make_router(self):
        raise NotImplementedError

    def negotiate(self, req):
        """The requested version (an ApiError for a bad or unserved one)."""
        raise NotImplementedError

    def noauth_context(self, req, db):
        """The caller's RequestContext under ``auth_strategy = noauth2``."""
        raise NotImplementedError

    def is_public(self, req):
        """Whether ``req`` is answered without identity (version documents)."""
        return req.path_info.strip('/') == ''

    def from_domain(self, exc):
        """The ApiError of a domain exception."""
        raise NotImplementedError

    def error_body(self, req, exc):
        """The JSON error envelope of ApiError ``exc``."""
        raise NotImplementedError

    def answer_headers(self, req, resp):
        """Headers every answer of the API carries (the request id is set already)."""

    def check_body(self, req):
        """413 for a body over the limit, 400 for a bad Content-Length."""
        common_wsgi.limit_body(req, self.max_body)

    # -- the pipeline ------------------------------------------------------

    def __call__(self, environ, start_response):
        try:
            return self._call(environ, start_response)
        finally:
            berth_context.clear()

    def _call(self, environ, start_response):
        request_id, global_request_id = request_ids(environ)
        berth_context.bind_request(request_id, global_request_id)
        environ.update({'berth.request_id': request_id, 'berth.conf': self.conf,
                        self.enforcer_key: self.enforcer,
                        'berth.conductor': self.conductor})
        req = berth_request.BerthRequest(environ)
        try:
            # a write's deadline counts from the request's arrival (common.deadline)
            with deadline.bounded(rpc.call_timeout(self.conf)):
                resp = self.handle(req)
        except errors.ApiError as exc:
            resp = self.error_response(req, exc)
        except exception.BerthException as exc:
            resp = self.error_response(req, self.from_domain(exc))
        except errors.DATABASE_UNREACHABLE:
            # retryable, like a conductor that cannot be reached (not a bug: no 500)
            self.log.warning('The database cannot be reached for %s %s',
                             req.method, req.path)
            resp = self.error_response(req, self.from_domain(
                exception.ServiceUnavailable(reason='the database cannot be reached')))
        except Exception:
            self.log.exception('Unexpected error handling %s %s', req.method, req.path)
            resp = self.error_response(req, errors.ApiError(UNEXPECTED))
        resp.headers['x-openstack-request-id'] = request_id
        self.answer_headers(req, resp)
        request_log.log_request(self.log, req, resp)
        return resp(environ, start_response)

    def handle(self, req):
        """Identity and negotiation (in the API's order), body checks, route and handler."""
        if self.identify_first:
            self._identify(req)
            self._negotiate(req)
        else:
            self._negotiate(req)
            self._identify(req)
        self.check_body(req)
        return self.router(req)

    def _identify(self, req):
        if self.is_public(req):
            return
        if self.keystone:
            ctx = identity.keystone_context(req, self.db, self.unauthenticated)
        else:
            ctx = self.noauth_context(req, self.db)
        req.environ['berth.context'] = ctx
        ctx.update_store()

    def _negotiate(self, req):
        req.environ['berth.microversion'] = self.negotiate(req)

    def error_response(self, req, exc):
        return common_wsgi.json_error(exc, self.error_body(req, exc))


_GLOBAL_ID = re.compile(o_request_id.ID_FORMAT)


def request_ids(environ):
    """``(request id, global request id or None)`` of a request.

    oslo.middleware's RequestId (api.common.wsgi.wrap puts it in front of
    both apps) has set them in the environ; an app called without it (unit
    tests) gets the same by the same rule: a fresh id, and the inbound
    ``X-OpenStack-Request-ID`` only when it is well-formed.  Contexts built
    from the environ (keystone's, api.common.identity) read both from there.
    """
    request_id = environ.get(o_request_id.ENV_REQUEST_ID)
    if request_id is None:
        request_id = environ[o_request_id.ENV_REQUEST_ID] = (
            o_context.generate_request_id())
        inbound = environ.get('HTTP_X_OPENSTACK_REQUEST_ID', '')
        if _GLOBAL_ID.match(inbound):
            environ[o_request_id.GLOBAL_REQ_ID] = inbound
    return request_id, environ.get(o_request_id.GLOBAL_REQ_ID)
