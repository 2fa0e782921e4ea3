"""The Placement WSGI application: its pieces of the pipeline in api.common.app.

Placement authenticates first (401; the root document needs none), then
negotiates the microversion (400 garbage, 406 out of range), then checks the
body (413, and 400 for a body without Content-Type) before routing (404/405)
and the handler.  Errors are Placement's JSON envelope, with the request id
and, from microversion 1.23, the error code.

CORS (oslo.middleware) and keystonemiddleware wrap the whole when configured.
"""

import logging

from api.common import app as common_app
from api.common import metrics as api_metrics
from api.common import wsgi as common_wsgi
from api.placement import auth, fault, microversion, policy, router, routes

LOG = logging.getLogger('berth.' + __name__)


class PlacementApp(common_app.Application):
    log = LOG
    enforcer_key = 'berth.enforcer'
    identify_first = True
    unauthenticated = 'Authentication required.'

    def make_enforcer(self, conf):
        return policy.make_enforcer(conf)

    def make_router(self):
        return router.Router(routes.ROUTES)

    def noauth_context(self, req, db):
        return auth.noauth2_context(req, db)

    def negotiate(self, req):
        try:
            return microversion.negotiate(req.headers.get(microversion.HEADER))
        except microversion.InvalidVersion as exc:
            raise fault.BadRequest(str(exc))
        except microversion.UnacceptableVersion as exc:
            raise fault.NotAcceptable(str(exc), extra={
                'min_version': str(microversion.MIN_VERSION),
                'max_version': str(microversion.MAX_VERSION)})

    def check_body(self, req):
        length = common_wsgi.limit_body(req, self.max_body)
        if length and not req.headers.get('content-type'):
            raise fault.BadRequest('content-type header required when '
                                   'content-length > 0')

    def from_domain(self, exc):
        return fault.from_domain(exc)

    def error_body(self, req, exc):
        version = req.environ.get('berth.microversion')
        coded = version is not None and version.matches(microversion.ERROR_CODES)
        code = exc.code if coded else None
        return fault.body(exc.status, exc.detail,
                          req.environ.get('berth.request_id'), code, exc.extra)

    def error_response(self, req, exc):
        # JSON when the client accepts it, else text/html or text/plain as WebOb does
        return fault.render(req, exc, self.error_body(req, exc))

    def answer_headers(self, req, resp):
        version = req.environ.get('berth.microversion')
        if version is not None:
            resp.headers['openstack-api-version'] = 'placement %s' % version
            resp.headers['vary'] = 'openstack-api-version'


def loadapp(conf, db, conductor=None):
    """The one factory of the Placement WSGI app, with its middleware."""
    app = common_wsgi.wrap(PlacementApp(conf, db, conductor), conf,
                           prefix=conf.api.placement_prefix)
    return api_metrics.wrap(app, conf, 'placement', db)
