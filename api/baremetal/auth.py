"""Who is calling under the ``noauth2`` strategy (keystone's: api.common.identity)."""

from oslo_middleware import request_id as o_request_id

from common import context as berth_context


def noauth_context(req, db):
    """Ironic's noauth: every caller is a system-scoped admin (a token is ignored)."""
    return berth_context.RequestContext(
        user_id='admin', project_id='admin', roles=['admin', 'member', 'reader'],
        is_admin=True, system_scope='all',
        request_id=req.environ['berth.request_id'],
        global_request_id=req.environ.get(o_request_id.GLOBAL_REQ_ID), db=db,
        overwrite=False)
