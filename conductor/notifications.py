"""Versioned notifications of node allocations, emitted where the conductor writes.

``baremetal.allocation.<create|update|delete>.<start|end|error>`` with
Ironic's payload (``AllocationCRUDPayload`` 1.1: uuid, name, node_uuid,
state, last_error, owner, resource_class, traits, candidate_nodes, extra,
created_at, updated_at) in Ironic's envelope (``ironic_object.name``,
``.namespace``, ``.version``, ``.data``), so a consumer written for Ironic
reads berth's unchanged.  start and end are sent at ``info``, error at
``error``; the publisher is ``berth-conductor.<host>``.

Sent through ``oslo_messaging.Notifier`` with the driver, topics and
transport of ``[oslo_messaging_notifications]``; ``[notifications]`` picks
the format and the lowest level.  A notification that cannot be sent is
logged and dropped: it never fails the write it reports.
"""

import logging

import oslo_messaging as messaging

from common import rpc
from common.conf import notifications as notify_conf

LOG = logging.getLogger('berth.' + __name__)

PAYLOAD_NAME = 'AllocationCRUDPayload'
PAYLOAD_VERSION = '1.1'
FIELDS = ('uuid', 'name', 'node_uuid', 'state', 'last_error', 'owner',
          'resource_class', 'traits', 'candidate_nodes', 'extra', 'created_at',
          'updated_at')
_PRIORITY = {'start': 'info', 'end': 'info', 'error': 'error'}


def iso(value):
    if value is None or isinstance(value, str):
        return value
    return value.isoformat() + ('+00:00' if value.tzinfo is None else '')


def payload(alloc):
    """Ironic's AllocationCRUDPayload of ``alloc`` (a row, or any object with its fields)."""
    data = {f: getattr(alloc, f, None) for f in FIELDS}
    data['created_at'] = iso(data['created_at'])
    data['updated_at'] = iso(data['updated_at'])
    return {'ironic_object.name': PAYLOAD_NAME, 'ironic_object.namespace': 'ironic',
            'ironic_object.version': PAYLOAD_VERSION, 'ironic_object.data': data}


class AllocationNotifier:
    """Sends allocation notifications for one conductor host (or nothing).

    :param transport: the notification transport; by default one from
        ``[oslo_messaging_notifications] transport_url`` (or
        ``[DEFAULT] transport_url``), opened only when a driver is set.
    """

    def __init__(self, conf, host, transport=None):
        self._notifier = None
        self._own_transport = False
        self._lowest = notify_conf.LEVELS.index(conf.notifications.notification_level)
        if conf.notifications.notification_format == 'none':
            return
        if transport is None:
            rpc.register_opts(conf)
            # also registers [oslo_messaging_notifications] on this conf
            transport = messaging.get_notification_transport(conf)
            self._own_transport = True
        self._transport = transport
        notifier = messaging.Notifier(
            transport, publisher_id='berth-conductor.%s' % host,
            serializer=rpc.RequestContextSerializer())
        drivers = [d for d in conf.oslo_messaging_notifications.driver if d != 'noop']
        if drivers and notifier.is_enabled():    # a driver other than noop is set
            self._notifier = notifier
        else:
            self.cleanup()

    @property
    def enabled(self):
        return self._notifier is not None

    def emit(self, ctx, action, phase, alloc):
        """Send ``baremetal.allocation.<action>.<phase>`` for ``alloc``; never raises."""
        if self._notifier is None:
            return
        priority = _PRIORITY[phase]
        self.send(ctx, 'baremetal.allocation.%s.%s' % (action, phase), priority,
                  payload(alloc), getattr(alloc, 'uuid', None))

    def send(self, ctx, event, priority, body, about=None):
        """Send ``event`` at ``priority`` with ``body`` if the level allows; never raises.

        Also the node events (conductor.node_notifications) go out here.
        """
        if self._notifier is None:
            return
        if notify_conf.LEVELS.index(priority) < self._lowest:
            return
        try:
            getattr(self._notifier, priority)(ctx, event, body)
        except Exception:
            LOG.exception('Cannot send notification %s for %s', event, about)

    def cleanup(self):
        if self._own_transport:
            self._transport.cleanup()
            self._own_transport = False

