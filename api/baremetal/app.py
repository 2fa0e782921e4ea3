"""The bare-metal (Ironic /v1) WSGI application: its pieces of api.common.app.

The version is negotiated first (400 garbage, 406 out of range), then the
caller is identified (the version documents at / and /v1 need none), the
body checked (413), the route resolved and the handler called; any error is
rendered in Ironic's envelope and every answer carries the version headers.
"""

import logging

from api.baremetal import auth, fault, policy, router, routes
from api.baremetal import version as api_version
from api.common import app as common_app
from api.common import metrics as api_metrics
from api.common import wsgi as common_wsgi

LOG = logging.getLogger('berth.' + __name__)


class BaremetalApp(common_app.Application):
    log = LOG
    enforcer_key = 'berth.baremetal_enforcer'
    identify_first = False
    unauthenticated = 'Authentication required'

    def make_enforcer(self, conf):
        return policy.make_enforcer(conf)

    def make_router(self):
        return router.Router(routes.ROUTES)

    def noauth_context(self, req, db):
        return auth.noauth_context(req, db)

    def is_public(self, req):
        return req.path_info.strip('/') in ('', 'v1')

    def negotiate(self, req):
        try:
            return api_version.negotiate(req.headers.get(api_version.HEADER))
        except api_version.InvalidVersion as exc:
            raise fault.BadRequest(str(exc))
        except api_version.UnacceptableVersion as exc:
            raise fault.NotAcceptable(str(exc))

    def from_domain(self, exc):
        return fault.from_domain(exc)

    def error_body(self, req, exc):
        return fault.body(exc.status, exc.detail)

    def answer_headers(self, req, resp):
        resp.headers['openstack-request-id'] = req.environ['berth.request_id']
        resp.headers[api_version.MIN_HEADER] = str(api_version.MIN_VERSION)
        resp.headers[api_version.MAX_HEADER] = str(api_version.MAX_VERSION)
        if req.environ.get('berth.microversion') is not None:
            resp.headers[api_version.HEADER] = str(req.environ['berth.microversion'])


def loadapp(conf, db, conductor=None):
    """The one factory of the bare-metal WSGI app, with its middleware."""
    app = common_wsgi.wrap(BaremetalApp(conf, db, conductor), conf)
    return api_metrics.wrap(app, conf, 'baremetal', db)
