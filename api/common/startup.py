"""Configuration an API must refuse to start with, each in one line.

Shared by the console entry points (``berth serve``, ``berth-api``, through
cli/security.py) and the WSGI entry points (api/wsgi.py).
"""

import ipaddress
import socket

from oslo_config import cfg


def is_loopback(host):
    """Whether every address ``host`` names is a loopback address."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    addresses = {str(info[4][0]).split('%')[0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback
                                   for a in addresses)


def host_error(conf):
    """Why ``[api] host`` cannot be listened on (not an address or a name), or None."""
    try:
        host = conf.api.host
    except (ValueError, cfg.Error) as exc:
        return ('[api] host: %s; give an IP address in full (127.0.0.1, ::1, '
                '0.0.0.0) or a host name.' % str(exc).splitlines()[0][:200])
    return bad_host(host)


def bad_host(host):
    """Why ``host`` is not an address to listen on, or None.

    Short forms the C library reads (``0``, ``127.1``) are refused: they do
    not say which address is meant.
    """
    if not host or not host.strip():
        return ('the host to listen on is empty; give an IP address (127.0.0.1, '
                '::1, 0.0.0.0 for every address) or a host name.')
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if all(c.isdigit() or c == '.' for c in host) or host.lower().startswith('0x'):
        return ('%r is not an IP address in full; write all four parts (127.0.0.1, '
                'or 0.0.0.0 for every address).' % host[:100])
    return None


def keystone_error(conf):
    """Why ``auth_strategy = keystone`` cannot authenticate anyone, or None.

    keystonemiddleware needs an auth plugin (``auth_type``) with its required
    options (``auth_url`` ...) in ``[keystone_authtoken]`` to validate
    tokens; without them every request was a 500 with an empty body.
    """
    if conf.api.auth_strategy != 'keystone':
        return None
    try:
        from keystoneauth1 import exceptions as ks_exc
        from keystoneauth1 import loading
        from keystonemiddleware.auth_token import _opts
    except ImportError:
        return ('[api] auth_strategy = keystone needs keystonemiddleware, which is '
                'not installed (install berth with its [keystone] extra).')
    group = 'keystone_authtoken'
    conf.register_opts(_opts._OPTS, group=group)
    loading.register_auth_conf_options(conf, group)
    try:
        plugin = loading.load_auth_from_conf_options(conf, group)
    except ks_exc.MissingRequiredOptions as exc:
        names = ', '.join(o.dest for o in exc.options)
        return ('[api] auth_strategy = keystone, but [keystone_authtoken] lacks %s '
                '(needed by auth_type = %s).'
                % (names, conf[group].auth_type))
    except (ks_exc.NoMatchingPlugin, cfg.Error, ValueError) as exc:
        return ('[api] auth_strategy = keystone, but [keystone_authtoken] cannot be '
                'used: %s' % str(exc).splitlines()[0][:200])
    if plugin is None:
        return ('[api] auth_strategy = keystone, but [keystone_authtoken] has no '
                'auth_type (e.g. password, with auth_url, username, password, '
                'project_name): berth could not validate any token.')
    return None


def noauth_bind_error(conf, host=None):
    """Why the API must not serve ``host`` (default ``[api] host``) with noauth2, or None."""
    api = conf.api
    host = api.host if host is None else host
    if (api.auth_strategy != 'noauth2' or api.allow_insecure_noauth
            or is_loopback(host)):
        return None
    return ('refusing to listen on %s with [api] auth_strategy = noauth2: noauth2 '
            'takes the caller\'s identity from the X-Auth-Token header, so anyone '
            'who can reach this address would be an administrator. Listen on a '
            'loopback address (--host 127.0.0.1), use auth_strategy = keystone, '
            'or, on a trusted isolated network only, pass --allow-insecure-noauth '
            '([api] allow_insecure_noauth = true).' % host)


def insecure_noauth_warning(conf):
    """The warning to log at start when noauth2 is allowed off loopback, or None."""
    api = conf.api
    if (api.auth_strategy == 'noauth2' and api.allow_insecure_noauth
            and not is_loopback(api.host)):
        return ('auth_strategy = noauth2 on %s with allow_insecure_noauth: anyone '
                'who can reach this address is an administrator.' % api.host)
    return None
