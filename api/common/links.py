"""The base URL of absolute links (Location headers, /v1 links, version documents).

Never from what a client alone says.  In order:

* ``[api] public_endpoint`` when the operator set it (it includes any mount
  prefix);
* with ``[oslo_middleware] enable_proxy_headers_parsing`` (the operator says
  every client comes through a trusted proxy): the scheme, host and mount
  path the proxy gives (HTTPProxyToWSGI has put its ``X-Forwarded-*`` /
  ``Forwarded`` values into the environ; without them, the Host the proxy
  sent), the host only when it is a well-formed ``host[:port]``;
* otherwise the address the server answered on: ``SERVER_NAME`` and
  ``SERVER_PORT`` of the WSGI environ, which the built-in server
  (api.server) sets from the connection's local socket address, and the
  request's scheme and mount path.  A client's ``Host`` header is never used:
  a forged one cannot make berth hand out links to another host.
"""

import re

# a DNS name or IPv4 address, or a bracketed IPv6 address; an optional port
_HOST = re.compile(r'(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?'
                   r'|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?')
_DEFAULT_PORTS = {'http': '80', 'https': '443'}


def _behind_proxy(conf):
    try:
        return bool(conf.oslo_middleware.enable_proxy_headers_parsing)
    except AttributeError:      # NoSuchOptError: the app was built without wrap()
        return False


def _server_address(environ, scheme):
    host = environ.get('SERVER_NAME') or 'localhost'
    if ':' in host:
        host = '[%s]' % host.split('%')[0]
    port = str(environ.get('SERVER_PORT', ''))
    if port and port != _DEFAULT_PORTS.get(scheme):
        host += ':' + port
    return host if _HOST.fullmatch(host) else 'localhost'


def host_url(req):
    """``scheme://host[:port]`` of the request: the proxy's host behind a
    trusted proxy, else the address the server answered on."""
    environ = req.environ
    scheme = environ.get('wsgi.url_scheme', 'http')
    if _behind_proxy(environ['berth.conf']):
        host = environ.get('HTTP_HOST', '')
        if _HOST.fullmatch(host):
            return '%s://%s' % (scheme, host)
    return '%s://%s' % (scheme, _server_address(environ, scheme))


_BASE_URL = 'berth.base_url'


def base_url(req):
    """Where links start: ``public_endpoint`` or the request's URL up to the app.

    Worked out once per request (a listing's every item and a POST's body
    and Location header ask for it; each answer costs configuration
    lookups) and kept in the request's environ.
    """
    environ = req.environ
    url = environ.get(_BASE_URL)
    if url is None:
        endpoint = environ['berth.conf'].api.public_endpoint
        url = environ[_BASE_URL] = (endpoint.rstrip('/') if endpoint
                                    else host_url(req) + req.script_name)
    return url
