"""A lost reply on real RabbitMQ: the write call is replayed and written once (RPC 1.8).

The claim goes as ``claim_resources_many`` (1.9, conductor/rpcapi/claim_batch.py),
a write call replayed like any other.

An embedded berth (API and conductor in this process) on a real broker;
the rabbit driver's server side drops exactly one reply (what a RabbitMQ
node that dies after the conductor wrote does, see doc/source/deployment.md).
The API's attempt times out after ``[conductor] rpc_attempt_timeout``, the
call goes out again with the same id (a new AMQP message and reply), and
the conductor answers it from its ledger: the client gets the normal
answer and the write exists once.
"""

import pytest

from common import context as berth_context
from common import metrics
from conductor.rpcapi import claim_batch
from tests import fixtures, services
from tests.functional import alloc_helpers
from tests.integration import conftest

pytestmark = conftest.MARKS


@pytest.fixture
def stack(rabbitmq, tmp_path_factory, tmp_path):
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text('[DEFAULT]\ntransport_url = %s\n'
                         '[coordination]\nbackend_url = file://%s\n'
                         '[conductor]\nrpc_timeout = 30\nrpc_attempt_timeout = 1\n'
                         % (rabbitmq.url, tmp_path / 'coordination') + services.RPC_CONF)
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[conf_file])
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    s = fixtures.start_embedded(conf)
    yield s
    s.stop()


@pytest.fixture
def lose_first_reply(monkeypatch):
    """Drop the first reply of a claim call in the rabbit driver; the ids dropped."""
    from oslo_messaging._drivers import amqpdriver
    original = amqpdriver.AMQPIncomingMessage.reply
    dropped = []

    def reply(self, reply=None, failure=None):
        if self.message.get('method') == claim_batch.METHOD and not dropped:
            dropped.append(self.message.get('args', {}).get('call_id'))
            return None
        return original(self, reply, failure)

    monkeypatch.setattr(amqpdriver.AMQPIncomingMessage, 'reply', reply)
    return dropped


def test_lost_reply_on_rabbitmq_is_replayed_and_written_once(stack, lose_first_reply):
    client = fixtures.PlacementClient(stack.placement_url, version='latest')
    try:
        ctx = berth_context.admin_context(stack.db)
        rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})
        consumer = alloc_helpers.new_uuid()
        before = metrics.RPC_REPLAYS.labels(claim_batch.METHOD)._value.get()
        # a new consumer (generation None): a second run would answer 409
        resp = alloc_helpers.put(client, consumer, {rp: {'VCPU': 1}})
        assert resp.status_code == 204, resp.text
        assert len(lose_first_reply) == 1 and lose_first_reply[0]
        assert metrics.RPC_REPLAYS.labels(claim_batch.METHOD)._value.get() >= before + 1
        got = client.get('/allocations/%s' % consumer).json()
        assert got['allocations'][rp]['resources'] == {'VCPU': 1}
        assert got['consumer_generation'] == 1
        usages = client.get('/resource_providers/%s/usages' % rp).json()['usages']
        assert usages == {'VCPU': 1}
    finally:
        client.close()
