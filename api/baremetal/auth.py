"""Who is calling under the ``noauth2`` strategy (keystone's: api.common.identity)."""

from common import context as berth_context


def noauth_context(req, db):
    """Ironic's noauth: every caller is an admin (a token, if any, is ignored)."""
    return berth_context.RequestContext(
        user_id='admin', project_id='admin', roles=['admin'], is_admin=True,
        request_id=req.environ['berth.request_id'], db=db, overwrite=False)
