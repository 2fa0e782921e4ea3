"""Versioned allocation notifications from the conductors, through the ``log`` driver."""

import json
import logging

import pytest

from tests import fixtures
from tests.functional import baremetal_helpers as h

LOGGER = 'oslo.messaging.notification'


@pytest.fixture
def noisy(tmp_path_factory, tmp_path):
    """An embedded berth whose conductors notify through the log driver."""
    conf_file = tmp_path / 'notify.conf'
    conf_file.write_text('[oslo_messaging_notifications]\ndriver = log\n')
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[conf_file])
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    client = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
    yield client
    client.close()
    stack.stop()


def _sent(caplog):
    found = []
    for record in caplog.records:
        if record.name.startswith(LOGGER + '.baremetal.allocation.'):
            found.append(json.loads(record.getMessage()))
    return found


def test_create_update_delete_are_notified_with_ironics_payload(noisy, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    node = h.make_node(noisy, 'n1')
    a = h.allocate(noisy, resource_class='gold', name='a1', extra={'k': 1})
    assert noisy.patch('/v1/allocations/a1', json=[
        {'op': 'add', 'path': '/extra/j', 'value': 2}]).status_code == 200
    assert noisy.delete('/v1/allocations/a1').status_code == 204
    sent = _sent(caplog)
    assert [m['event_type'] for m in sent] == [
        'baremetal.allocation.create.start', 'baremetal.allocation.create.end',
        'baremetal.allocation.update.start', 'baremetal.allocation.update.end',
        'baremetal.allocation.delete.start', 'baremetal.allocation.delete.end']
    end = sent[1]
    assert end['priority'] == 'INFO'
    assert end['publisher_id'].startswith('berth-conductor.')
    body = end['payload']
    assert (body['ironic_object.name'], body['ironic_object.version']) == (
        'AllocationCRUDPayload', '1.1')
    data = body['ironic_object.data']
    assert sorted(data) == sorted([
        'uuid', 'name', 'node_uuid', 'state', 'last_error', 'owner', 'resource_class',
        'traits', 'candidate_nodes', 'extra', 'created_at', 'updated_at'])
    assert (data['uuid'], data['state'], data['node_uuid'], data['extra']) == (
        a['uuid'], 'active', node['uuid'], {'k': 1})
    assert sent[3]['payload']['ironic_object.data']['extra'] == {'k': 1, 'j': 2}


def test_failures_are_error_notifications(noisy, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    h.make_node(noisy, 'busy')
    failed = h.allocate(noisy, resource_class='none')
    a = h.allocate(noisy, resource_class='gold')
    noisy.put('/v1/nodes/busy/states/provision', json={'target': 'active'})
    assert noisy.delete('/v1/allocations/%s' % a['uuid']).status_code == 409
    sent = _sent(caplog)
    errors = [(m['event_type'], m['priority']) for m in sent
              if m['event_type'].endswith('.error')]
    assert errors == [('baremetal.allocation.create.error', 'ERROR'),
                      ('baremetal.allocation.delete.error', 'ERROR')]
    first = next(m for m in sent if m['event_type'] == 'baremetal.allocation.create.error')
    assert first['payload']['ironic_object.data']['uuid'] == failed['uuid']
    assert first['payload']['ironic_object.data']['state'] == 'error'


def test_backfill_and_node_deallocation_are_notified(noisy, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    h.make_node(noisy, 'bf', state='active')
    resp = noisy.post('/v1/allocations', json={'node': 'bf'})
    assert resp.status_code == 201, resp.text
    assert noisy.put('/v1/nodes/bf/states/provision',
                     json={'target': 'deleted'}).status_code == 202
    events = [m['event_type'] for m in _sent(caplog)]
    assert events == ['baremetal.allocation.create.start',
                      'baremetal.allocation.create.end',
                      'baremetal.allocation.delete.start',
                      'baremetal.allocation.delete.end']


def test_no_driver_sends_nothing(bm, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    h.make_node(bm, 'quiet')
    h.allocate(bm, resource_class='gold')
    assert _sent(caplog) == []


def _node_events(caplog):
    return [json.loads(r.getMessage()) for r in caplog.records
            if r.name.startswith(LOGGER + '.baremetal.node.')]


def test_a_node_write_ending_an_allocation_sends_ironics_node_events(noisy, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    h.make_node(noisy, 'pv', state='active')
    assert noisy.post('/v1/allocations', json={'node': 'pv'}).status_code == 201
    h.make_node(noisy, 'pt', state='active')
    assert noisy.post('/v1/allocations', json={'node': 'pt'}).status_code == 201
    h.make_node(noisy, 'dl', state='active')
    assert noisy.post('/v1/allocations', json={'node': 'dl'}).status_code == 201
    # reserving a node sends no node event (nor does Ironic)
    assert _node_events(caplog) == []

    assert noisy.put('/v1/nodes/pv/states/provision',
                     json={'target': 'undeploy'}).status_code == 202
    assert noisy.put('/v1/nodes/pt/maintenance', json={}).status_code == 202
    assert noisy.patch('/v1/nodes/pt', json=[
        {'op': 'remove', 'path': '/instance_uuid'}]).status_code == 200
    assert noisy.put('/v1/nodes/dl/maintenance', json={}).status_code == 202
    assert noisy.delete('/v1/nodes/dl').status_code == 204
    sent = _node_events(caplog)
    assert [(m['event_type'], m['priority']) for m in sent] == [
        ('baremetal.node.provision_set.success', 'INFO'),
        ('baremetal.node.update.start', 'INFO'), ('baremetal.node.update.end', 'INFO'),
        ('baremetal.node.delete.start', 'INFO'), ('baremetal.node.delete.end', 'INFO')]
    prov = sent[0]['payload']
    assert (prov['ironic_object.name'], prov['ironic_object.version']) == (
        'NodeSetProvisionStatePayload', '1.18')
    data = prov['ironic_object.data']
    assert (data['event'], data['previous_provision_state'], data['provision_state'],
            data['instance_uuid']) == ('delete', 'active', 'available', None)
    update_start, update_end = sent[1]['payload'], sent[2]['payload']
    assert (update_end['ironic_object.name'], update_end['ironic_object.version']) == (
        'NodeCRUDPayload', '1.15')
    assert update_start['ironic_object.data']['instance_uuid'] is not None
    assert update_end['ironic_object.data']['instance_uuid'] is None
    assert 'driver_info' in update_end['ironic_object.data']
    assert sent[4]['payload']['ironic_object.data']['name'] == 'dl'
    assert sent[0]['publisher_id'].startswith('berth-conductor.')


def test_a_refused_node_write_sends_an_error_event(noisy, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    h.make_node(noisy, 'held', state='active')
    assert noisy.post('/v1/allocations', json={'node': 'held'}).status_code == 201
    # an active node outside maintenance cannot lose its instance
    resp = noisy.patch('/v1/nodes/held', json=[{'op': 'remove', 'path': '/instance_uuid'}])
    assert resp.status_code == 409, resp.text
    assert [(m['event_type'], m['priority']) for m in _node_events(caplog)] == [
        ('baremetal.node.update.start', 'INFO'), ('baremetal.node.update.error', 'ERROR')]
