"""Node notifications caused by allocations: Ironic's payloads and statuses."""

import datetime
import types
from unittest import mock

import pytest

from conductor import node_notifications as nn


def _node(**kw):
    values = dict(uuid='n1', name='n', provision_state='active',
                  target_provision_state=None, instance_uuid='i1', instance_info={'a': 1},
                  driver_info={'d': 1}, traits=['CUSTOM_X'], owner='p',
                  created_at=datetime.datetime(2026, 1, 2, 3, 4, 5), updated_at=None)
    values.update(kw)
    return types.SimpleNamespace(**values)


@pytest.mark.parametrize('before,after,status', [
    ('active', 'available', 'success'),
    ('active', 'deleting', 'start'),
    ('cleaning', 'available', 'end'),
    ('deleting', 'cleaning', 'success'),
])
def test_provision_status_is_ironics_rule(before, after, status):
    assert nn.provision_status(before, after) == status


def test_crud_payload_has_every_ironic_field():
    body = nn.crud_payload(_node())
    assert (body['ironic_object.name'], body['ironic_object.version'],
            body['ironic_object.namespace']) == ('NodeCRUDPayload', '1.15', 'ironic')
    data = body['ironic_object.data']
    assert set(data) == set(nn.NODE_FIELDS) | {'instance_info', 'driver_info',
                                               'chassis_uuid'}
    assert data['created_at'] == '2026-01-02T03:04:05+00:00'
    assert data['traits'] == ['CUSTOM_X'] and data['deploy_interface'] is None
    assert data['chassis_uuid'] is None


def test_crud_payload_carries_chassis_protection_and_interfaces():
    data = nn.crud_payload(_node(chassis_uuid='c1', protected=True,
                                 protected_reason='r', retired=True,
                                 deploy_interface='fake'))['ironic_object.data']
    assert (data['chassis_uuid'], data['protected'], data['protected_reason'],
            data['retired'], data['deploy_interface']) == ('c1', True, 'r', True, 'fake')


def test_provision_payload_names_the_event_and_the_previous_states():
    before = _node()
    after = _node(provision_state='available', instance_uuid=None)
    data = nn.provision_payload(after, before, 'delete')['ironic_object.data']
    assert (data['event'], data['previous_provision_state'],
            data['previous_target_provision_state'], data['provision_state']) == (
        'delete', 'active', None, 'available')
    assert 'driver_info' not in data and 'driver_internal_info' in data


def test_crud_sends_error_and_reraises():
    sender = mock.Mock(enabled=True)
    notifier = nn.NodeNotifier(sender)
    with pytest.raises(RuntimeError):
        with notifier.crud('ctx', 'delete', _node()):
            raise RuntimeError('boom')
    assert [(c[0][1], c[0][2]) for c in sender.send.call_args_list] == [
        ('baremetal.node.delete.start', 'info'), ('baremetal.node.delete.error', 'error')]


def test_nothing_is_sent_when_disabled():
    sender = mock.Mock(enabled=False)
    notifier = nn.NodeNotifier(sender)
    with notifier.crud('ctx', 'update', _node()):
        pass
    notifier.provision_set('ctx', _node(), _node(), 'delete')
    sender.send.assert_not_called()
    assert not nn.NodeNotifier(None).enabled
