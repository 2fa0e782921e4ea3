"""AllocationNotifier: what is sent at which level, and Ironic's payload shape."""

import datetime
import types
from unittest import mock

from conductor import notifications

ALLOC = types.SimpleNamespace(
    uuid='a-1', name='n', node_uuid=None, state='allocating', last_error=None,
    owner=None, resource_class='gold', traits=[], candidate_nodes=[], extra={},
    created_at=datetime.datetime(2026, 1, 2, 3, 4, 5), updated_at=None)


def test_payload_is_ironics_allocation_crud_payload():
    body = notifications.payload(ALLOC)
    assert body['ironic_object.name'] == 'AllocationCRUDPayload'
    assert body['ironic_object.version'] == '1.1'
    assert body['ironic_object.namespace'] == 'ironic'
    data = body['ironic_object.data']
    assert set(data) == set(notifications.FIELDS)
    assert data['created_at'] == '2026-01-02T03:04:05+00:00'


def test_no_driver_is_disabled(conf):
    assert not notifications.AllocationNotifier(conf, 'h').enabled


def test_format_none_is_disabled_whatever_the_driver(conf):
    conf.set_override('notification_format', 'none', group='notifications')
    with mock.patch('oslo_messaging.Notifier') as notifier:
        assert not notifications.AllocationNotifier(conf, 'h').enabled
    assert not notifier.called


def test_level_filters_and_a_send_failure_is_swallowed(conf):
    conf.set_override('notification_level', 'error', group='notifications')
    n = notifications.AllocationNotifier(conf, 'h')
    n._notifier = mock.Mock()
    n.emit(None, 'create', 'start', ALLOC)
    n.emit(None, 'create', 'end', ALLOC)
    assert not n._notifier.info.called
    n._notifier.error.side_effect = RuntimeError('broker gone')
    n.emit(None, 'create', 'error', ALLOC)       # logged, not raised
    n._notifier.error.assert_called_once_with(
        None, 'baremetal.allocation.create.error', notifications.payload(ALLOC))
