"""The bare-metal (Ironic /v1) WSGI application and its request pipeline.

Request id, version negotiation (400 garbage, 406 out of range), identity,
body checks, routing, handler; any error is rendered in Ironic's envelope and
every answer carries the version headers.
"""

import logging

from oslo_utils import uuidutils

from api.baremetal import fault, policy, routes
from api.baremetal import version as api_version
from api.common import errors as common_errors
from api.common import metrics as api_metrics
from api.common import request as berth_request
from api.common import request_log
from api.common import wsgi as common_wsgi
from common import context as berth_context
from common import exception

LOG = logging.getLogger(__name__)


def _noauth_context(req, db):
    """Ironic's noauth: every caller is an admin (a token, if any, is ignored)."""
    return berth_context.RequestContext(
        user_id='admin', project_id='admin', roles=['admin'], is_admin=True,
        request_id=req.environ['berth.request_id'], db=db, overwrite=False)


def _keystone_context(req, db):
    if req.headers.get('x-identity-status', 'Confirmed') != 'Confirmed':
        raise fault.Unauthorized('Authentication required')
    ctx = berth_context.RequestContext.from_environ(
        req.environ, request_id=req.environ['berth.request_id'], db=db,
        overwrite=False)
    if not ctx.user_id:
        raise fault.Unauthorized('Authentication required')
    return ctx


class BaremetalApp:
    def __init__(self, conf, db, conductor=None):
        self.conf = conf
        self.db = db
        self.conductor = conductor
        self.enforcer = policy.make_enforcer(conf)
        self.max_body = conf.api.max_request_body_size
        self.identify = (_keystone_context if conf.api.auth_strategy == 'keystone'
                         else _noauth_context)

    def __call__(self, environ, start_response):
        request_id = 'req-' + uuidutils.generate_uuid()
        berth_context.bind_request(request_id)
        environ.update({'berth.request_id': request_id, 'berth.conf': self.conf,
                        'berth.baremetal_enforcer': self.enforcer,
                        'berth.conductor': self.conductor})
        req = berth_request.BerthRequest(environ)
        try:
            resp = self._handle(req)
        except fault.ApiError as exc:
            resp = self._error(exc)
        except exception.BerthException as exc:
            resp = self._error(fault.from_domain(exc))
        except common_errors.DATABASE_UNREACHABLE:
            # retryable, like a conductor that cannot be reached (not a bug: no 500)
            LOG.warning('The database cannot be reached for %s %s', req.method, req.path)
            resp = self._error(fault.from_domain(exception.ServiceUnavailable(
                reason='the database cannot be reached')))
        except Exception:
            LOG.exception('Unexpected error handling %s %s', req.method, req.path)
            resp = self._error(fault.ApiError(
                'An unexpected error prevented the server from fulfilling the '
                'request.'))
        resp.headers['openstack-request-id'] = request_id
        resp.headers['x-openstack-request-id'] = request_id
        resp.headers[api_version.MIN_HEADER] = str(api_version.MIN_VERSION)
        resp.headers[api_version.MAX_HEADER] = str(api_version.MAX_VERSION)
        if environ.get('berth.microversion') is not None:
            resp.headers[api_version.HEADER] = str(environ['berth.microversion'])
        request_log.log_request(LOG, req, resp)
        return resp(environ, start_response)

    def _handle(self, req):
        try:
            req.environ['berth.microversion'] = api_version.negotiate(
                req.headers.get(api_version.HEADER))
        except api_version.InvalidVersion as exc:
            raise fault.BadRequest(str(exc))
        except api_version.UnacceptableVersion as exc:
            raise fault.NotAcceptable(str(exc))
        if req.path_info.strip('/') not in ('', 'v1'):
            req.environ['berth.context'] = self.identify(req, self.db)
            req.context.update_store()
        common_wsgi.limit_body(req, self.max_body)
        return routes.ROUTER(req)

    @staticmethod
    def _error(exc):
        return common_wsgi.json_error(exc, fault.body(exc.status, exc.detail))


def loadapp(conf, db, conductor=None):
    """The one factory of the bare-metal WSGI app, with its middleware."""
    app = common_wsgi.wrap(BaremetalApp(conf, db, conductor), conf)
    return api_metrics.wrap(app, conf, 'baremetal', db)
