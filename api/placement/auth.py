"""Who is calling under the ``noauth2`` strategy (keystone's: api.common.identity)."""

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
