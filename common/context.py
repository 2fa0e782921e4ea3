"""The request context that travels from the API through RPC to the conductors."""

from oslo_context import context as o_context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(o_context.RequestContext):
    """An oslo.context RequestContext that can also hold a database transaction.

    ``db`` is the :class:`db.api.Database` of the process that created the
    context; it is never serialised: the receiving process attaches its own.
    """

    def __init__(self, *args, db=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.db = db

    def to_dict(self):
        return super().to_dict()

    @classmethod
    def from_dict(cls, values, **kwargs):
        kwargs.setdefault('db', None)
        return super().from_dict(values, **kwargs)


def admin_context(db=None):
    """A context for the service's own work (periodic tasks, start-up sync)."""
    return RequestContext(user_id='berth', project_id='berth', roles=['admin'],
                          is_admin=True, db=db, overwrite=False)
