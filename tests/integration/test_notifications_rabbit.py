"""Allocation notifications over real RabbitMQ, received by a real notification listener.

An embedded berth (API and conductors in this process, SQLite) whose RPC
and notifications go through RabbitMQ with the ``messagingv2`` driver; an
``oslo_messaging.get_notification_listener`` on the configured topic
receives ``baremetal.allocation.create.end`` and ``.delete.end`` for one
create and delete made over HTTP, and the node event a deallocating
provision verb causes (``baremetal.node.provision_set.success``).  On the same deployment with every
conductor stopped, backfill and the node writes that end an allocation
answer 503 like create and delete, and change nothing.
"""

import queue
import uuid as uuidlib

import oslo_messaging as messaging
import pytest

from common import rpc
from tests import fixtures, services
from tests.functional import baremetal_helpers as h
from tests.integration import conftest

pytestmark = conftest.MARKS

DEADLINE = 60     # a liveness bound on a loaded box, not a timing


class Collector:
    """Endpoint of the listener: every info/error notification, in order."""

    def __init__(self):
        self.seen = queue.Queue()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self.seen.put((event_type, publisher_id, payload))

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        self.seen.put((event_type, publisher_id, payload))

    def until(self, event_type):
        """The notifications up to and including the first ``event_type``."""
        got = []
        while True:
            try:
                item = self.seen.get(timeout=DEADLINE)
            except queue.Empty:
                pytest.fail('no %s within %ss; got %s' % (
                    event_type, DEADLINE, [g[0] for g in got]))
            got.append(item)
            if item[0] == event_type:
                return got


@pytest.fixture
def topic():
    return 'berth_notifications_%s' % uuidlib.uuid4().hex[:8]


@pytest.fixture
def listener(rabbitmq, topic, tmp_path):
    conf = fixtures.make_conf(tmp_path / 'listener')
    rpc.register_opts(conf)
    transport = messaging.get_notification_transport(conf, url=rabbitmq.url)
    collector = Collector()
    server = messaging.get_notification_listener(
        transport, [messaging.Target(topic=topic)], [collector], executor='threading')
    server.start()
    yield collector
    server.stop()
    server.wait()
    transport.cleanup()


@pytest.fixture
def stack(rabbitmq, topic, listener, tmp_path_factory, tmp_path):
    conf_file = tmp_path / 'notify.conf'
    conf_file.write_text('[DEFAULT]\ntransport_url = %s\n'
                         '[oslo_messaging_notifications]\ndriver = messagingv2\n'
                         'topics = %s\n' % (rabbitmq.url, topic) + services.RPC_CONF)
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[conf_file])
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    s = fixtures.start_embedded(conf)
    yield s
    s.stop()


def test_listener_receives_create_end_and_delete_end(stack, listener):
    bm = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
    try:
        node = h.make_node(bm, 'rabbit-node')
        a = h.allocate(bm, resource_class='gold')
        assert a['state'] == 'active'
        created = listener.until('baremetal.allocation.create.end')
        assert bm.delete('/v1/allocations/%s' % a['uuid']).status_code == 204
        deleted = listener.until('baremetal.allocation.delete.end')
        bf = h.make_node(bm, 'rabbit-backfilled', state='active')
        assert bm.post('/v1/allocations', json={'node': bf['uuid']}).status_code == 201
        assert bm.put('/v1/nodes/%s/states/provision' % bf['uuid'],
                      json={'target': 'deleted'}).status_code == 202
        provisioned = listener.until('baremetal.node.provision_set.success')
    finally:
        bm.close()
    assert [e for e, _, _ in created] == ['baremetal.allocation.create.start',
                                          'baremetal.allocation.create.end']
    assert [e for e, _, _ in deleted] == ['baremetal.allocation.delete.start',
                                          'baremetal.allocation.delete.end']
    event, publisher, payload = created[-1]
    assert publisher.startswith('berth-conductor.')
    assert payload['ironic_object.name'] == 'AllocationCRUDPayload'
    data = payload['ironic_object.data']
    assert (data['uuid'], data['state'], data['node_uuid']) == (
        a['uuid'], 'active', node['uuid'])
    assert deleted[-1][2]['ironic_object.data']['uuid'] == a['uuid']
    event, publisher, payload = provisioned[-1]
    assert publisher.startswith('berth-conductor.')
    assert (payload['ironic_object.name'], payload['ironic_object.version']) == (
        'NodeSetProvisionStatePayload', '1.18')
    data = payload['ironic_object.data']
    assert (data['uuid'], data['event'], data['previous_provision_state'],
            data['provision_state'], data['instance_uuid']) == (
        bf['uuid'], 'delete', 'active', 'available', None)


def test_without_conductors_backfill_and_deallocations_are_503_on_rabbitmq(stack):
    """The conductors' writes on a RabbitMQ deployment: 503 and nothing changed."""
    bm = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
    try:
        h.make_node(bm, 'held')
        a = h.allocate(bm, resource_class='gold')
        bm.put('/v1/nodes/held/maintenance')
        h.make_node(bm, 'to-fill', state='active')
        for conductor in stack.conductors:
            conductor.stop(grace=0)
        stack.conductor_api.ring.refresh()
        for resp in (bm.post('/v1/allocations', json={'node': 'to-fill'}),
                     bm.patch('/v1/nodes/held', json=[
                         {'op': 'remove', 'path': '/instance_uuid'}]),
                     bm.put('/v1/nodes/held/states/provision',
                            json={'target': 'deleted'}),
                     bm.delete('/v1/nodes/held'),
                     bm.delete('/v1/allocations/%s' % a['uuid'])):
            assert resp.status_code == 503, resp.text
        assert bm.get('/v1/nodes/held').json()['allocation_uuid'] == a['uuid']
        assert bm.get('/v1/nodes/to-fill').json()['instance_uuid'] is None
        assert [x['uuid'] for x in bm.get('/v1/allocations').json()['allocations']] == [
            a['uuid']]
    finally:
        bm.close()
