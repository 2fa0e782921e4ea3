"""Who is calling, from the headers keystonemiddleware's auth_token has set (both APIs)."""

from api.common import errors
from common import context as berth_context


def keystone_context(req, db, detail='Authentication required.'):
    """The caller's RequestContext; 401 with ``detail`` when no caller is confirmed."""
    if req.headers.get('x-identity-status', 'Confirmed') != 'Confirmed':
        raise errors.Unauthorized(detail)
    ctx = berth_context.RequestContext.from_environ(
        req.environ, request_id=req.environ['berth.request_id'], db=db,
        overwrite=False)
    if not ctx.user_id:
        raise errors.Unauthorized(detail)
    return ctx
