"""The Placement WSGI application and its request pipeline.

One explicit pipeline, in this order (each step may answer on its own):

1. request id (``x-openstack-request-id`` on every answer);
2. authentication (401; the root document needs none);
3. microversion negotiation (400 garbage, 406 out of range);
4. body-size limit (413) and Content-Length/Content-Type sanity (400);
5. routing and the handler (404/405, then the handler's own answers);
6. any domain exception is mapped to its HTTP error; anything else is a 500,
   logged with its traceback, never shown to the client.

CORS (oslo.middleware) and keystonemiddleware wrap the whole when configured.
"""

import logging

import webob
from oslo_middleware import cors
from oslo_serialization import jsonutils
from oslo_utils import uuidutils

from api.common import request as berth_request
from api.placement import auth
from api.placement import fault
from api.placement import microversion
from api.placement import policy
from api.placement import router
from api.placement import routes
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
        return resp(environ, start_response)

    def _handle(self, req):
        is_root = req.path_info.strip('/') == ''
        if not is_root:
            req.environ['berth.context'] = self.identify(req, self.db)
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
        length = req.headers.get('content-length')
        if length is None:
            if req.is_body_readable and req.method in ('POST', 'PUT', 'PATCH'):
                # chunked body: read at most one byte past the limit
                data = req.body_file.read(self.max_body + 1)
                if len(data) > self.max_body:
                    raise self._too_large()
                req.body = data
            return
        try:
            length = int(length)
        except ValueError:
            raise fault.BadRequest('content-length header must be an integer')
        if length > self.max_body:
            raise self._too_large()
        if length > 0 and not req.headers.get('content-type'):
            raise fault.BadRequest('content-type header required when '
                                   'content-length > 0')

    def _too_large(self):
        return fault.RequestTooLarge(
            'Request body larger than the limit of %d bytes' % self.max_body,
            code='berth.request_too_large')

    def _error_response(self, req, exc):
        version = req.environ.get('berth.microversion')
        code = exc.code if version is not None and version.matches('1.23') else None
        body = fault.body(exc.status, exc.detail,
                          req.environ.get('berth.request_id'), code, exc.extra)
        resp = webob.Response(status=exc.status, content_type='application/json',
                              charset=None)
        resp.body = jsonutils.dump_as_bytes(body)
        for name, value in exc.headers.items():
            resp.headers[name] = value
        return resp


def loadapp(conf, db, conductor=None):
    """The one factory of the Placement WSGI app, with its middleware."""
    app = PlacementApp(conf, db, conductor)
    if conf.api.auth_strategy == 'keystone':
        from keystonemiddleware import auth_token  # optional extra: [keystone]
        # the root document needs no token: decide in PlacementApp
        app = auth_token.AuthProtocol(app, {'oslo_config_config': conf,
                                            'delay_auth_decision': True})
    app = cors.CORS(app, conf)
    return app
