"""Start-up safety checks shared by the API entry points (``berth serve``, ``berth-api``).

The checks themselves live in api/common/startup.py, where the WSGI entry
points use them too.
"""

import logging

from api.common import startup

LOG = logging.getLogger('berth.' + __name__)

_is_loopback = startup.is_loopback


def noauth_bind_error(conf):
    """Why the API must not start (noauth2 on a non-loopback address), or None."""
    return startup.noauth_bind_error(conf)


def startup_error(conf):
    """The one-line reason the API must not start with ``conf``, or None."""
    return (startup.host_error(conf) or startup.keystone_error(conf)
            or noauth_bind_error(conf))


def warn_if_insecure(conf):
    """Log a warning when noauth2 listens off loopback (allowed explicitly)."""
    warning = startup.insecure_noauth_warning(conf)
    if warning:
        LOG.warning(warning)
    return warning
