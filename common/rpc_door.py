"""The conductor's RPC door: only the published methods dispatch, only to verified callers.

oslo.messaging's default access policy dispatches every endpoint attribute
whose name does not start with ``_``: the endpoint's collaborators (``conf``,
``db``, ``ring``, ...) were callable by anyone on the bus.  The
:class:`Dispatcher` here dispatches a method only when the endpoint
publishes it (its ``RPC_METHODS``, the table of doc/source/rpc.md) and, before
that, only for a message whose signature :mod:`common.rpc_trust` verifies.

Anything else is refused before the endpoint sees it, with one log line and
an answer without a traceback: an unpublished name is ``NoSuchMethod`` (a
``RemoteError`` on the caller's side), a message that fails verification
is :class:`common.exception.Forbidden`, a message whose deadline (plus
``grace``) has passed is :class:`common.exception.RequestExpired`
(common.deadline; the caller no longer waits for it).

The replies of a message that verified leave signed for its caller
(common.rpc_reply_sign); a refusal before that is not signed.
"""

import logging

from oslo_messaging.rpc import dispatcher as rpc_dispatcher

from common import deadline, exception, rpc_reply_sign, rpc_trust

LOG = logging.getLogger('berth.' + __name__)


def published(endpoint):
    """The method names ``endpoint`` publishes (an empty set when it names none)."""
    return frozenset(getattr(endpoint, 'RPC_METHODS', ()))


class PublishedOnly(rpc_dispatcher.RPCAccessPolicyBase):
    """Dispatch exactly the methods the endpoint names in ``RPC_METHODS``."""

    def is_allowed(self, endpoint, method):
        return isinstance(method, str) and method in published(endpoint)


def refusal(exc):
    """An ExpectedException carrying ``exc`` with no traceback (none goes on the wire).

    oslo.messaging's server replies an ExpectedException's ``exc_info``
    and logs it at DEBUG only; the reply's ``tb`` is then the exception's
    one line.
    """
    exc = exc.with_traceback(None)
    expected = rpc_dispatcher.ExpectedException()
    expected.exc_info = (type(exc), exc, None)
    return expected


class Dispatcher(rpc_dispatcher.RPCDispatcher):
    """oslo.messaging's RPC dispatcher behind the door.

    :param verifier: a :class:`common.rpc_trust.Verifier` (answers the
        context to dispatch with, or raises Forbidden); None: none.
    :param grace: seconds added to a message's deadline (``[rpc] deadline_grace``).
    """

    def __init__(self, endpoints, serializer, verifier=None, grace=0.0, fence=None):
        super().__init__(endpoints, serializer, PublishedOnly)
        self.verifier = verifier
        self.grace = grace
        self.fence = fence
        self._methods = frozenset().union(*(published(ep) for ep in endpoints))

    def dispatch(self, incoming):
        method = incoming.message.get('method')
        if not (isinstance(method, str) and method in self._methods):
            LOG.warning('Refused an RPC call of %r: not a published method',
                        str(method)[:80])
            raise refusal(rpc_dispatcher.NoSuchMethod(str(method)[:80]))
        if self.verifier is not None:
            auth = incoming.ctxt.get(rpc_trust.FIELD) if isinstance(incoming.ctxt, dict) else None
            try:
                incoming.ctxt = self.verifier.verify(incoming.ctxt, incoming.message)
            except exception.Forbidden as exc:
                LOG.warning('Refused an RPC call of %s: %s', method, exc.message)
                raise refusal(exc) from None
            # verified: its replies leave signed for its caller (common.rpc_reply_sign)
            assert isinstance(auth, dict)    # verify() refuses a message without one
            rpc_reply_sign.sign_replies(incoming, auth['key'], self.verifier.keys[auth['key']],
                                        auth['nonce'], self.verifier.server)
        self._check_deadline(incoming, method)
        return super().dispatch(incoming)

    def _check_deadline(self, incoming, method):
        """Drop a message whose deadline has passed; else make it effective (grace in).

        Checked after the signature (a forged deadline never verifies) and
        before the endpoint runs; the endpoint's writes check it again
        before they commit (common.deadline.check).
        """
        ctxt = incoming.ctxt if isinstance(incoming.ctxt, dict) else {}
        effective = deadline.effective(ctxt.get(deadline.FIELD), self.grace)
        if effective is not None and deadline.passed(effective):
            raise refusal(deadline.expired(method, 'dispatch', effective)) from None
        if (effective is not None and self.fence is not None
                and self.fence.excludes(ctxt.get(deadline.SENT))):
            raise refusal(deadline.fenced_out(method, 'dispatch')) from None
        if deadline.FIELD in ctxt:
            incoming.ctxt = dict(ctxt, **{deadline.FIELD: effective})
