"""The request context that travels from the API through RPC to the conductors."""

from oslo_context import context as o_context
from oslo_db.sqlalchemy import enginefacade
from sqlalchemy import orm

# the names a context carries over RPC besides oslo.context's own dict
NAMES = ('user_name', 'project_name', 'domain_name', 'user_domain_name',
         'project_domain_name')


@enginefacade.transaction_context_provider
class RequestContext(o_context.RequestContext):
    """An oslo.context RequestContext that can also hold a database transaction.

    ``db`` is the :class:`db.api.Database` of the process that created the
    context; it is never serialised: the receiving process attaches its own.
    """

    # set by enginefacade.transaction_context_provider inside a transaction
    session: orm.Session

    def __init__(self, *args, db=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.db = db
        # a conductor's: when its caller stops waiting, grace included
        # (common.deadline; None: never); the RPC method it serves
        self.deadline = None
        self.rpc_method = None
        self.sent = None        # when its message was sent (the fence)
        self.fence = None       # its conductor's common.deadline.Fence

    def to_dict(self):
        """oslo.context's dict plus the names it leaves out.

        ``from_dict`` reads the names, ``to_dict`` does not write them; a
        conductor checks the REST API's rules on the context of a message,
        and Ironic's ``service_role`` rule matches the project by name.
        """
        values = super().to_dict()
        for name in NAMES:
            values[name] = getattr(self, name)
        return values

    def get_logging_values(self):
        """oslo.context's logging values, built once rather than twice.

        oslo.log asks for them twice per line of a request; oslo.context's
        own builds the names first and then the whole of :meth:`to_dict`,
        which here holds the names already.  Same keys and values.
        """
        values = self.to_dict()
        values['auth_token'] = '***' if self.auth_token else None  # noqa: S105
        values.pop('auth_token_info', None)
        return values

    def to_policy_values(self):
        """oslo.context's values plus ``project_name`` (Ironic's ``service_role``
        rule matches the service project by name)."""
        values = dict(super().to_policy_values())  # a plain dict: no deprecation warning
        values['project_name'] = self.project_name
        return values

    @classmethod
    def from_dict(cls, values, **kwargs):
        kwargs.setdefault('db', None)
        return super().from_dict(values, **kwargs)


# oslo.log prints a context's resource_uuid (the consumer, allocation or
# provider a request works on) with this format on every line of the request
RESOURCE_LOG_FORMAT = '[resource: %(uuid)s] '


def set_log_defaults(conf):
    """berth's defaults for oslo.log's options (already registered on ``conf``)."""
    conf.set_default('instance_uuid_format', RESOURCE_LOG_FORMAT)


def bind_request(request_id, global_request_id=None):
    """Make a context holding only the request ids this thread's current one.

    oslo.log reads the thread's current context for every line it formats;
    an API sets this first thing in a request, and the full context once the
    caller is known (``ctx.update_store()``).  ``global_request_id`` is the
    caller's (nova's ``X-OpenStack-Request-ID``), shown beside berth's own.
    """
    return RequestContext(request_id=request_id, global_request_id=global_request_id,
                          overwrite=True)


def bind_new_request():
    """Bind a context with a fresh request id (one run of background work)."""
    return bind_request(o_context.generate_request_id())


def clear():
    """Forget this thread's current context: its next lines belong to no request.

    Pool threads (HTTP server, RPC server, executors) outlive the request
    they worked on; without this their later lines would carry its ids.
    oslo.context offers no public call for this; its store is a
    ``threading.local`` whose ``context`` attribute get_current() reads.
    """
    store = getattr(o_context, '_request_store', None)
    if store is not None:
        store.context = None


def current():
    """This thread's current context (the request it works on), or None."""
    return o_context.get_current()


def admin_context(db=None):
    """A context for the service's own work (periodic tasks, start-up sync)."""
    return RequestContext(user_id='berth', project_id='berth', roles=['admin'],
                          is_admin=True, db=db, overwrite=False)
