"""The Placement WSGI application and its request pipeline.

One explicit pipeline, in this order (each step may answer on its own):

1. request id (``x-openstack-request-id`` on every answer);
2. authentication (401; the root document needs none);
3. microversion negotiation (400 garbage, 406 out of range);
4. body-size limit (413) and Content-Length/Content-Type sanity (400);
5. routing and the handler (404/405, then the handler's own answers);
6. any domain exception is mapped to its HTTP error, a database that cannot
   be reached to 503; anything else is a 500, logged with its traceback,
   never shown to the client.

CORS (oslo.middleware) and keystonemiddleware wrap the whole when configured.
"""

import logging

from oslo_utils import uuidutils

from api.common import errors as common_errors
from api.common import metrics as api_metrics
from api.common import request as berth_request
from api.common import request_log
from api.common import wsgi as common_wsgi
from api.placement import auth, fault, microversion, policy, router, routes
from common import context as berth_context
from common import exception

LOG = logging.getLogger(__name__)


class PlacementApp:
    def __init__(self, conf, db, conductor=None):
        self.conf = conf
        self.db = db
        self.conductor = conductor
        self.enforcer = policy.make_enforcer(conf)
        self.router = router.Router(routes.ROUTES)
        self.max_body = conf.api.max_request_body_size
        if conf.api.auth_strategy == 'noauth2':
            self.identify = auth.noauth2_context
        else:
            self.identify = auth.keystone_context

    def __call__(self, environ, start_response):
        request_id = 'req-' + uuidutils.generate_uuid()
        berth_context.bind_request(request_id)
        environ.update({'berth.request_id': request_id, 'berth.conf': self.conf,
                        'berth.enforcer': self.enforcer,
                        'berth.conductor': self.conductor})
        req = berth_request.BerthRequest(environ)
        try:
            resp = self._handle(req)
        except fault.ApiError as exc:
            resp = self._error_response(req, exc)
        except exception.BerthException as exc:
            resp = self._error_response(req, fault.from_domain(exc))
        except common_errors.DATABASE_UNREACHABLE:
            # retryable, like a conductor that cannot be reached (not a bug: no 500)
            LOG.warning('The database cannot be reached for %s %s', req.method, req.path)
            resp = self._error_response(req, fault.from_domain(exception.ServiceUnavailable(
                reason='the database cannot be reached')))
        except Exception:
            LOG.exception('Unexpected error handling %s %s', req.method, req.path)
            resp = self._error_response(req, fault.ApiError(
                'An unexpected error prevented the server from fulfilling '
                'the request.'))
        resp.headers['x-openstack-request-id'] = request_id
        version = environ.get('berth.microversion')
        if version is not None:
            resp.headers['openstack-api-version'] = 'placement %s' % version
            resp.headers['vary'] = 'openstack-api-version'
        request_log.log_request(LOG, req, resp)
        return resp(environ, start_response)

    def _handle(self, req):
        is_root = req.path_info.strip('/') == ''
        if not is_root:
            req.environ['berth.context'] = self.identify(req, self.db)
            req.context.update_store()
        try:
            req.environ['berth.microversion'] = microversion.negotiate(
                req.headers.get(microversion.HEADER))
        except microversion.InvalidVersion as exc:
            raise fault.BadRequest(str(exc))
        except microversion.UnacceptableVersion as exc:
            raise fault.NotAcceptable(str(exc), extra={
                'min_version': str(microversion.MIN_VERSION),
                'max_version': str(microversion.MAX_VERSION)})
        self._check_body(req)
        return self.router(req)

    def _check_body(self, req):
        length = common_wsgi.limit_body(req, self.max_body)
        if length and not req.headers.get('content-type'):
            raise fault.BadRequest('content-type header required when '
                                   'content-length > 0')

    def _error_response(self, req, exc):
        version = req.environ.get('berth.microversion')
        code = exc.code if version is not None and version.matches('1.23') else None
        body = fault.body(exc.status, exc.detail,
                          req.environ.get('berth.request_id'), code, exc.extra)
        return fault.render(req, exc, body)


def loadapp(conf, db, conductor=None):
    """The one factory of the Placement WSGI app, with its middleware."""
    app = common_wsgi.wrap(PlacementApp(conf, db, conductor), conf)
    return api_metrics.wrap(app, conf, 'placement', db)
