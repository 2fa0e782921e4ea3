"""Who is calling under the ``noauth2`` strategy (keystone's: api.common.identity)."""

import ipaddress

from oslo_middleware import request_id as o_request_id

from api.placement import fault
from common import context as berth_context


def noauth2_context(req, db):
    """Identity from ``X-Auth-Token: user[:project]`` (Placement's noauth2).

    ``admin`` gets the admin role unless ``X-Roles`` says otherwise; an
    ``OpenStack-System-Scope`` header makes the request system-scoped and an
    ``X-Project-Id`` header overrides the project.
    """
    token = req.headers.get('x-auth-token')
    if not token and browsing_status_locally(req):
        token = 'admin'
    if not token:
        raise fault.Unauthorized('Authentication required (X-Auth-Token).')
    user_id, _, project_id = token.partition(':')
    if not user_id:
        raise fault.Unauthorized('Authentication required (X-Auth-Token).')
    project_id = project_id or user_id
    if 'x-roles' in req.headers:
        roles = [r.strip() for r in req.headers['x-roles'].split(',') if r.strip()]
    else:
        roles = ['admin'] if user_id == 'admin' else []
    system_scope = req.headers.get('openstack-system-scope')
    if system_scope:
        project_id = None
    project_id = req.headers.get('x-project-id', project_id)
    return berth_context.RequestContext(
        user_id=user_id, project_id=project_id, roles=roles,
        system_scope=system_scope, is_admin='admin' in roles,
        request_id=req.environ['berth.request_id'],
        global_request_id=req.environ.get(o_request_id.GLOBAL_REQ_ID), db=db,
        overwrite=False)


# the read-only pages a browser may open without a token in the embedded default
STATUS_PATHS = frozenset(('/status', '/status.json'))


def _loopback(host):
    if host == 'localhost':
        return True
    try:
        return ipaddress.ip_address(host.split('%')[0]).is_loopback
    except ValueError:
        return False


def _host_name(value):
    """The host of a ``Host`` header (``127.0.0.1:8778``, ``[::1]:8778``, ``localhost``)."""
    if value.startswith('['):
        return value[1:].partition(']')[0]
    return value.rpartition(':')[0] if value.count(':') == 1 else value


def browsing_status_locally(req):
    """Whether a token-less request may read the status page as admin.

    Only the embedded default (noauth2, this caller): the API listens on a
    loopback address, the client talks to it directly from this host (no
    proxy header) and names a loopback host (a DNS-rebound name does not
    qualify), and it reads ``GET /status`` or ``/status.json``.  noauth2 on
    loopback already makes every local process an administrator with
    ``X-Auth-Token: admin``; this lets the browser, which cannot add that
    header to a page it navigates to, in the same way, for reading only.
    """
    if req.method not in ('GET', 'HEAD') or req.path_info not in STATUS_PATHS:
        return False
    if 'x-forwarded-for' in req.headers or 'forwarded' in req.headers:
        return False
    return (_loopback(req.conf.api.host)
            and _loopback(req.environ.get('REMOTE_ADDR') or '')
            and _loopback(_host_name(req.headers.get('host', ''))))
