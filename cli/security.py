"""Start-up safety checks shared by the API entry points (``berth serve``, ``berth-api``)."""

import ipaddress
import socket


def _is_loopback(host):
    """Whether every address ``host`` names is a loopback address."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    addresses = {info[4][0].split('%')[0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback
                                   for a in addresses)


def noauth_bind_error(conf):
    """Why the API must not start (noauth2 on a non-loopback address), or None."""
    api = conf.api
    if (api.auth_strategy != 'noauth2' or api.allow_insecure_noauth
            or _is_loopback(api.host)):
        return None
    return ('refusing to listen on %s with [api] auth_strategy = noauth2: noauth2 '
            'takes the caller\'s identity from the X-Auth-Token header, so anyone '
            'who can reach this address would be an administrator. Listen on a '
            'loopback address (--host 127.0.0.1), use auth_strategy = keystone, '
            'or, on a trusted isolated network only, pass --allow-insecure-noauth '
            '([api] allow_insecure_noauth = true).' % api.host)
