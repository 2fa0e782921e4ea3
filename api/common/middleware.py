"""oslo.middleware around both apps: request ids, proxy headers, a path prefix, healthcheck.

From the outside in (api.common.wsgi.wrap adds keystonemiddleware and CORS
inside these):

* :class:`RequestId`: berth's request id and the caller's global one
  (``X-OpenStack-Request-ID``) in the environ, where the app and the
  contexts it builds read them, and the id on every answer (oslo.middleware's
  ``RequestId``, without the two webob requests and responses it builds);
* ``HTTPProxyToWSGI``, when ``[oslo_middleware] enable_proxy_headers_parsing``
  is set: scheme, host and mount path from a trusted proxy's
  ``X-Forwarded-*``/``Forwarded`` headers, so links say ``https://`` behind
  a TLS load balancer;
* :class:`PathPrefix` (Placement's ``[api] placement_prefix``): the same API
  under ``/placement`` as at ``/``;
* :class:`HealthcheckRoute`: ``Healthcheck`` at ``/healthcheck``, answered
  before authentication, as Ironic and Placement deploy it.
"""

import re

from oslo_context import context as o_context
from oslo_middleware import healthcheck, http_proxy_to_wsgi, request_id
import webob.exc

HEALTHCHECK_PATH = '/healthcheck'
_GLOBAL_ID = re.compile(request_id.ID_FORMAT)
_HEADER = request_id.HTTP_RESP_HEADER_REQUEST_ID


class RequestId:
    """oslo.middleware's ``RequestId`` as a plain WSGI middleware, same answers.

    A fresh ``req-<uuid>`` in ``environ['openstack.request_id']``; the
    inbound ``X-OpenStack-Request-ID`` in ``environ['openstack.global_request_id']``
    when it is well-formed; ``x-openstack-request-id`` added to an answer
    that has none.  oslo's wraps every request in a webob request and
    response (webob.dec.wsgify, ``get_response``) for that: ~10% of the CPU
    of a small request.  What it did besides is kept: a start_response with
    ``exc_info`` re-raises (webob's ``catch_exc_info=False``), and a webob
    HTTPException escaping the app is its own answer, without the id.
    """

    def __init__(self, app):
        self.application = app

    def __call__(self, environ, start_response):
        inbound = environ.get('HTTP_X_OPENSTACK_REQUEST_ID', '')
        if _GLOBAL_ID.match(inbound):
            environ[request_id.GLOBAL_REQ_ID] = inbound
        req_id = environ[request_id.ENV_REQUEST_ID] = o_context.generate_request_id()

        def _start(status, headers, exc_info=None):
            if exc_info is not None:
                raise exc_info[1].with_traceback(exc_info[2])
            if not any(name.lower() == _HEADER for name, _value in headers):
                headers = list(headers) + [(_HEADER, req_id)]
            return start_response(status, headers)

        try:
            return self.application(environ, _start)
        except webob.exc.HTTPException as exc:
            return exc(environ, start_response)


class PathPrefix:
    """Serve ``app`` under ``prefix`` too: the prefix moves to SCRIPT_NAME.

    Links the app builds from SCRIPT_NAME then keep the prefix the client used.
    """

    def __init__(self, app, prefix):
        self.app = app
        self.prefix = '/' + prefix.strip('/')

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path == self.prefix or path.startswith(self.prefix + '/'):
            environ['SCRIPT_NAME'] = environ.get('SCRIPT_NAME', '') + self.prefix
            environ['PATH_INFO'] = path[len(self.prefix):]
        return self.app(environ, start_response)


class HealthcheckRoute:
    """``/healthcheck`` to oslo.middleware's Healthcheck, the rest to ``app``.

    Healthcheck is an application (it answers every request it gets), so it
    gets only its own path.  Its ``[healthcheck]`` options (backends such as
    ``disable_by_file``, ``detailed``, ``allowed_source_ranges``) apply.
    """

    def __init__(self, app, conf):
        self.app = app
        self.check = healthcheck.Healthcheck(None, conf)

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '').rstrip('/') == HEALTHCHECK_PATH:
            return self.check(environ, start_response)
        return self.app(environ, start_response)


def wrap(app, conf, prefix=None):
    """``app`` inside healthcheck, the path prefix, proxy parsing and RequestId."""
    app = HealthcheckRoute(app, conf)
    if prefix and prefix.strip('/'):
        app = PathPrefix(app, prefix)
    proxied = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)   # registers its option
    if conf.oslo_middleware.enable_proxy_headers_parsing:
        app = proxied
    return RequestId(app)
