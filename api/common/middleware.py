"""oslo.middleware around both apps: request ids, proxy headers, a path prefix, healthcheck.

From the outside in (api.common.wsgi.wrap adds keystonemiddleware and CORS
inside these):

* ``RequestId``: berth's request id and the caller's global one
  (``X-OpenStack-Request-ID``) in the environ, where the app and the
  contexts it builds read them;
* ``HTTPProxyToWSGI``, when ``[oslo_middleware] enable_proxy_headers_parsing``
  is set: scheme, host and mount path from a trusted proxy's
  ``X-Forwarded-*``/``Forwarded`` headers, so links say ``https://`` behind
  a TLS load balancer;
* :class:`PathPrefix` (Placement's ``[api] placement_prefix``): the same API
  under ``/placement`` as at ``/``;
* :class:`HealthcheckRoute`: ``Healthcheck`` at ``/healthcheck``, answered
  before authentication, as Ironic and Placement deploy it.
"""

from oslo_middleware import healthcheck, http_proxy_to_wsgi, request_id

HEALTHCHECK_PATH = '/healthcheck'


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
    return request_id.RequestId(app)
