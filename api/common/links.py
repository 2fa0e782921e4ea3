"""The base URL of absolute links (Location headers, /v1 links, version documents).

``[api] public_endpoint`` when the operator set it (it includes any mount
prefix).  Otherwise the request's own: its scheme and mount path (both
corrected by HTTPProxyToWSGI behind a trusted proxy) and its Host header,
but only a well-formed ``host[:port]``; anything else in it (a path, a quote,
spaces) is ignored for the address the server answered on.  A well-formed
but foreign Host is the client's own business: links only go back to it.
"""

import re

# a DNS name or IPv4 address, or a bracketed IPv6 address; an optional port
_HOST = re.compile(r'(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?'
                   r'|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?')
_DEFAULT_PORTS = {'http': '80', 'https': '443'}


def host_url(req):
    """``scheme://host[:port]`` of the request, from a validated Host header."""
    scheme = req.environ.get('wsgi.url_scheme', 'http')
    host = req.environ.get('HTTP_HOST', '')
    if not _HOST.fullmatch(host):
        host = req.environ.get('SERVER_NAME', 'localhost')
        if ':' in host:
            host = '[%s]' % host
        port = str(req.environ.get('SERVER_PORT', ''))
        if port and port != _DEFAULT_PORTS.get(scheme):
            host += ':' + port
    return '%s://%s' % (scheme, host)


def base_url(req):
    """Where links start: ``public_endpoint`` or the request's URL up to the app."""
    endpoint = req.environ['berth.conf'].api.public_endpoint
    if endpoint:
        return endpoint.rstrip('/')
    return host_url(req) + req.script_name
