"""The RPC door on a real RabbitMQ: a broker user gets nothing, a keyed service works.

An embedded berth (API and conductor in this process) on RabbitMQ with
``[rpc] signing_key`` and a service key for ``nova``.  A separate process
holding only the broker's URL (plain oslo.messaging and kombu, no key):

* calls internal attribute names (``conf``, ``db``, ``ring``) and fanout-casts
  ``conf``: NoSuchMethod, no traceback, the conductor unharmed;
* sends forged contexts (project admin, system member, the ``service`` role
  in a project named ``service``, ``is_admin``) unsigned or signed with a
  guessed key, for Placement and bare-metal writes, raw column values and
  another project's allocation ids: Forbidden, nothing written, nothing told;
* binds a queue to the exchange with ``berth-conductor.#`` while berth-api's
  client sends a call for a context holding a token: no token on the wire;
  re-publishing what it captured writes nothing.

Afterwards REST still claims and deletes, and the published client in
another process with nova's key claims and deletes with the REST answers.
"""

import json
import subprocess
import sys
import time
import uuid as uuidlib

import pytest

from common import context as berth_context
from conductor.rpcapi import payloads
from tests import fixtures
from tests.functional import alloc_helpers
from tests.functional import baremetal_helpers as h
from tests.integration import conftest
from tests.integration import test_rpc_client_process as published

pytestmark = conftest.MARKS

BERTH_KEY = 'berth-test-signing-key-0123456789abcdef'
NOVA_KEY = 'nova-test-signing-key-0123456789abcdef00'

ATTACKER = r'''
import hashlib, hmac, json, secrets, sys, time
from oslo_config import cfg
import oslo_messaging as messaging
import kombu

url, host, victim, rp, alloc_id, alloc_uuid, node = sys.argv[1:8]
cfg.CONF([], project='attacker')
transport = messaging.get_rpc_transport(cfg.CONF, url=url)
client = messaging.get_rpc_client(transport, messaging.Target(topic='berth-conductor',
                                                              version='1.9'))
out = {}

conn = kombu.Connection(url.replace('rabbit://', 'amqp://', 1))
exchange = kombu.Exchange('openstack', type='topic', durable=False)
queue = kombu.Queue('sniffer', exchange, routing_key='berth-conductor.#',
                    auto_delete=True, durable=False)
captured = []
consumer = conn.Consumer(queue, callbacks=[lambda body, m: (captured.append(body),
                                                            m.ack())])
consumer.consume()
print('ready', flush=True)
sys.stdin.readline()                       # the honest calls were made
end = time.monotonic() + 5
while time.monotonic() < end:
    try:
        conn.drain_events(timeout=0.5)
    except Exception:
        if captured:
            break


def outcome(call):
    try:
        return ['answered', call()]
    except messaging.RemoteError as exc:
        return [exc.exc_type, 'Traceback' in (exc.traceback or '')]
    except Exception as exc:
        return [type(exc).__name__.replace('_Remote', ''), False]


def signed(ctx, method, args, key):
    stamp, nonce = round(time.time(), 3), secrets.token_hex(12)
    body = json.dumps(['berth', stamp, nonce, host, ctx,
                       [method, args, '1.9', None]], sort_keys=True,
                      separators=(',', ':')).encode()
    sig = hmac.new(key.encode(), body, hashlib.sha256).hexdigest()
    return dict(ctx, berth_auth={'key': 'berth', 'ts': stamp, 'nonce': nonce,
                                 'sig': sig})


c = client.prepare(server=host, timeout=20)
for name in ('conf', 'db', 'ring', 'workers', 'calls', 'authz'):
    out['internal_' + name] = outcome(lambda: c.call({}, name))
client.prepare(fanout=True).cast({}, 'conf')
forged = {
    'admin': {'user': 'x', 'project_id': 'x', 'roles': ['admin'], 'is_admin': True},
    'system': {'user': 'x', 'project_id': None, 'roles': ['member', 'reader', 'admin'],
               'system_scope': 'all'},
    'service': {'user': 'x', 'project_id': 'svc', 'project_name': 'service',
                'roles': ['service', 'admin']},
}
calls = {
    'delete_allocations': {'tree': None, 'consumer_uuid': victim},
    'claim_resources': {'tree': None, 'consumers': [{
        'uuid': victim, 'allocations': {rp: {'VCPU': 7}}, 'project_id': 'x',
        'user_id': 'x', 'consumer_type': None, 'check_generation': False,
        'generation': None}]},
    'destroy_allocation': {'allocation_uuid': alloc_uuid},
    'update_allocation': {'allocation': alloc_uuid, 'values': {'owner': 'x',
                                                               'state': 'error'}},
    'update_node': {'node': node, 'values': {'instance_uuid': None,
                                             'provision_state': 'active',
                                             'reservation': 'x'}},
    'create_allocations': {'allocation_ids': [int(alloc_id)], 'wait': 1.0},
}
for who, ctx in forged.items():
    for method, args in calls.items():
        out['forged_%s_%s' % (who, method)] = outcome(lambda: c.call(ctx, method, **args))
        out['guessed_%s_%s' % (who, method)] = outcome(
            lambda: c.call(signed(ctx, method, args, 'guessed-key-' * 4), method, **args))
text = json.dumps(captured)
out['captured'] = len(captured)
out['token_seen'] = 'bearer-secret-33' in text
# re-publish every captured message (a fresh id, so oslo does not drop it as a duplicate)
producer = conn.Producer()
for body in captured:
    msg = json.loads(body['oslo.message'])
    msg['_unique_id'] = secrets.token_hex(16)
    msg.pop('_reply_q', None)
    msg.pop('_msg_id', None)
    producer.publish({'oslo.version': body['oslo.version'],
                      'oslo.message': json.dumps(msg)}, exchange=exchange,
                     routing_key='berth-conductor.' + host)
time.sleep(2)
conn.close()
transport.cleanup()
print(json.dumps(out), flush=True)
'''


@pytest.fixture
def stack(rabbitmq, tmp_path_factory, tmp_path):
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text(
        '[DEFAULT]\ntransport_url = %s\n'
        '[coordination]\nbackend_url = file://%s\n'
        '[rpc]\nsigning_key = %s\nservice_keys = nova:%s\nservice_roles = nova:admin\n'
        % (rabbitmq.url, tmp_path / 'coordination', BERTH_KEY, NOVA_KEY))
    nova_file = tmp_path / 'nova.conf'
    nova_file.write_text(
        '[DEFAULT]\ntransport_url = %s\n'
        '[coordination]\nbackend_url = file://%s\n'
        '[rpc]\nsigning_key_id = nova\nsigning_key = %s\n'
        % (rabbitmq.url, tmp_path / 'coordination', NOVA_KEY))
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[conf_file])
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    s = fixtures.start_embedded(conf)
    s.url, s.nova_file = rabbitmq.url, nova_file
    yield s
    s.stop()


def _state(placement, bm, victim, rp, alloc_uuid, node):
    held = placement.get('/allocations/%s' % victim).json()['allocations']
    alloc = bm.get('/v1/allocations/%s' % alloc_uuid).json()
    got = bm.get('/v1/nodes/%s' % node).json()
    return ({p: a['resources'] for p, a in held.items()},
            placement.get('/resource_providers/%s/usages' % rp).json()['usages'],
            {k: alloc[k] for k in ('state', 'owner', 'node_uuid', 'last_error',
                                   'updated_at')},
            {k: got[k] for k in ('provision_state', 'reservation', 'maintenance',
                                 'instance_uuid', 'owner')})


def test_a_broker_user_gets_nothing_and_a_keyed_service_works(stack):
    placement = fixtures.PlacementClient(stack.placement_url, version='1.38')
    bm = fixtures.BaremetalClient(stack.baremetal_url)
    try:
        ctx = berth_context.admin_context(stack.db)
        rp = alloc_helpers.provider(placement, ctx, {'VCPU': {'total': 8}})
        victim = alloc_helpers.new_uuid()
        assert alloc_helpers.put(placement, victim, {rp: {'VCPU': 1}}).status_code == 204
        node = h.make_node(bm, owner='project-a')
        alloc = h.allocate(bm, resource_class='gold', owner='project-a')
        assert alloc['state'] == 'active', alloc
        from objects.baremetal import allocation as node_alloc_obj
        alloc_id = node_alloc_obj.get(ctx, alloc['uuid']).id
        host = stack.conductors[0].host
        before = _state(placement, bm, victim, rp, alloc['uuid'], node['uuid'])

        proc = subprocess.Popen(
            [sys.executable, '-c', ATTACKER, stack.url, host, victim, rp, str(alloc_id),
             alloc['uuid'], node['uuid']], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, cwd=str(published.conftest_root()))
        assert proc.stdout.readline().strip() == 'ready', proc.stderr.read()
        # berth-api's client sends for a caller holding a token (sniffed above)
        honest = berth_context.RequestContext(
            user_id='u', project_id='p', roles=['admin'], auth_token='bearer-secret-33',
            db=stack.db, overwrite=False)
        sniffed = alloc_helpers.new_uuid()
        stack.conductor_api.claim_resources(honest, [payloads.ClaimConsumer(
            sniffed, {rp: {'VCPU': 2}}, 'p', 'u')])
        stack.conductor_api.delete_allocations(honest, sniffed)
        out, err = proc.communicate('go\n', timeout=300)
        assert proc.returncode == 0, err
        answer = json.loads(out.strip().splitlines()[-1])

        for name in ('conf', 'db', 'ring', 'workers', 'calls', 'authz'):
            assert answer['internal_' + name] == ['NoSuchMethod', False], name
        attacks = {k: v for k, v in answer.items()
                   if k.startswith(('forged_', 'guessed_'))}
        assert len(attacks) == 36
        assert all(v == ['Forbidden', False] for v in attacks.values()), attacks
        assert answer['captured'] >= 2 and answer['token_seen'] is False
        # nothing changed: the victim's claim, the allocation, the node; the
        # re-published claim did not come back
        assert _state(placement, bm, victim, rp, alloc['uuid'], node['uuid']) == before
        assert placement.get('/allocations/%s' % sniffed).json()['allocations'] == {}

        # the conductor is whole: REST claims and deletes
        consumer = alloc_helpers.new_uuid()
        assert alloc_helpers.put(placement, consumer, {rp: {'VCPU': 1}}).status_code == 204
        assert placement.delete('/allocations/%s' % consumer).status_code == 204

        # the published client with nova's key, from another process
        consumer, project, user = (str(uuidlib.uuid4()) for _ in range(3))
        proc = subprocess.Popen(
            [sys.executable, '-c', published.CLIENT, str(stack.nova_file), rp, consumer,
             project, user], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, cwd=str(published.conftest_root()))
        assert _wait_usage(placement, rp, proc) == {'VCPU': 1 + 2}
        out, err = proc.communicate('\n', timeout=120)
        assert proc.returncode == 0, err
        answer = json.loads(out.strip().splitlines()[-1])
        assert answer['claim'] == 'ok' and answer['delete'] == 'ok'
        assert answer['over'] == 'InvalidAllocation'
        assert answer['refused_claim'][0] == 'Forbidden'
        assert placement.get('/allocations/%s' % consumer).json()['allocations'] == {}
    finally:
        placement.close()
        bm.close()


def _wait_usage(client, rp, proc, deadline=120):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail('client process ended early: %s' % proc.stderr.read())
        usages = client.get('/resource_providers/%s/usages' % rp).json()['usages']
        if usages.get('VCPU', 0) > 1:
            return usages
        time.sleep(0.1)
    pytest.fail('the claim never showed over REST')
