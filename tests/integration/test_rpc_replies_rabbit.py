"""Replies and replays on a real RabbitMQ: forged answers lose, old messages stay dead.

An embedded berth (API and conductor in this process) on RabbitMQ with
``[rpc] signing_key``.  A second broker user (``eve``, allowed everything on
the vhost: a leaked or careless account) runs a separate process holding no
key (plain kombu):

* ``forge``: binds a queue to the exchange, and answers every call it sees
  with a success on the caller's reply queue (before the conductor, most
  of the time): over-capacity claims still answer 409, nothing is written,
  and the forged replies are dropped and counted; a node allocation the
  caller waits for is not answered ``active`` on another project's node;
* ``steal``: consumes the conductor's own queue beside it and answers what
  it takes with a success: no 2xx for a claim that was not written;
* ``capture``: copies a signed claim, which the honest caller then deletes;
  after the conductor restarts, the copy published again is refused
  (signed before the conductor started) and writes nothing.

A service user with exactly doc/source/deployment.md's permissions cannot
consume a conductor's queue nor read the exchange, and its published client
(with its service key) pings and gets the signed reply.
"""

import json
import os
import subprocess
import sys
import time
import uuid as uuidlib

import pytest

from common import context as berth_context
from common import metrics
from conductor import service as conductor_service
from tests import fixtures, services
from tests.functional import alloc_helpers
from tests.functional import baremetal_helpers as h
from tests.integration import conftest
from tests.integration import test_rpc_client_process as published

pytestmark = conftest.MARKS

BERTH_KEY = 'berth-test-signing-key-0123456789abcdef'
NOVA_KEY = 'nova-test-signing-key-0123456789abcdef00'

# doc/source/deployment.md, "RabbitMQ users of other services" (for nova)
NOVA_PERMISSIONS = ('^(openstack|reply_nova-.*)$', '^openstack$', '^reply_nova-.*$')

ATTACKER = r'''
import json, secrets, sys, time
import kombu

url, host, mode = sys.argv[1:4]
node = sys.argv[4] if len(sys.argv) > 4 else None     # another project's node
conn = kombu.Connection(url.replace('rabbit://', 'amqp://', 1))
exchange = kombu.Exchange('openstack', type='topic', durable=False)
if mode == 'steal':
    queue = kombu.Queue('berth-conductor.' + host, no_declare=True)
else:
    queue = kombu.Queue('eve-' + mode, exchange, routing_key='berth-conductor.#',
                        auto_delete=True, durable=False)
producer = conn.Producer()
captured, forged = [], []


def forge(msg):
    args = msg.get('args') or {}
    result = [None] * len(args.get('claims') or ()) if 'claims' in args else None
    active = {'state': 'active', 'node_uuid': node, 'last_error': None,
              'updated_at': None}
    if 'allocation_ids' in args:
        result = [active] * len(args['allocation_ids'])
    elif 'allocation_id' in args:
        result = active
    reply = {'result': result, 'failure': None, 'ending': True,
             '_msg_id': msg['_msg_id'], '_unique_id': secrets.token_hex(16)}
    producer.publish({'oslo.version': '2.0', 'oslo.message': json.dumps(reply)},
                     exchange='', routing_key=msg['_reply_q'])
    forged.append(msg.get('method'))


def seen(body, message):
    message.ack()
    msg = json.loads(body['oslo.message'])
    if mode in ('forge', 'steal') and msg.get('_reply_q'):
        forge(msg)
    elif mode == 'capture' and msg.get('method') == 'claim_resources_many':
        captured.append(body)


consumer = conn.Consumer(queue, callbacks=[seen])
consumer.consume()
print('ready', flush=True)
import threading
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
while not stop.is_set():
    try:
        conn.drain_events(timeout=0.2)
    except Exception:
        pass
consumer.cancel()
if mode == 'capture':
    print('captured %d' % len(captured), flush=True)
    sys.stdin.readline()                    # the conductor restarted
    for body in captured:
        msg = json.loads(body['oslo.message'])
        msg['_unique_id'] = secrets.token_hex(16)
        producer.publish({'oslo.version': body['oslo.version'],
                          'oslo.message': json.dumps(msg)}, exchange=exchange,
                         routing_key='berth-conductor.' + host)
    time.sleep(1)
conn.close()
print(json.dumps({'forged': len(forged), 'captured': len(captured)}), flush=True)
'''

SERVICE = r'''
import json, sys
import kombu
from amqp import exceptions as amqp_exc
from common import context
from common.conf import builder
from conductor import rpcapi

url, conf_file, host = sys.argv[1:4]
out = {}
conn = kombu.Connection(url.replace('rabbit://', 'amqp://', 1))


def refused(step):
    try:
        with conn.channel() as channel:
            step(channel)
            channel.basic_qos(0, 1, False)      # a round trip: a refusal shows here
        return 'allowed'
    except amqp_exc.AccessRefused as exc:
        return 'refused' if '403' in str(exc) or 'ACCESS_REFUSED' in str(exc) else str(exc)
    except Exception as exc:
        return '%s: %s' % (type(exc).__name__, exc)


out['consume_conductor'] = refused(
    lambda ch: ch.basic_consume('berth-conductor.' + host, callback=lambda m: None))
out['consume_topic'] = refused(
    lambda ch: ch.basic_consume('berth-conductor', callback=lambda m: None))
out['read_exchange'] = refused(lambda ch: (
    ch.queue_declare('reply_nova-sniff', auto_delete=True),
    ch.queue_bind('reply_nova-sniff', 'openstack', 'berth-conductor.#')))
conn.release()
conf = builder.build(config_files=[conf_file])
client = rpcapi.APIConductorClient(conf)
try:
    ctx = context.RequestContext(user_id='nova', project_id='service')
    out['ping'] = client.ping(ctx, 'anything')['host']
finally:
    client.stop()
print(json.dumps(out), flush=True)
'''


def _ctl(rabbitmq, *args):
    done = subprocess.run([services.RABBIT_BIN + '/rabbitmqctl', '-n', 'rabbit@localhost']
                          + list(args), env=rabbitmq._env(), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done


def _user(rabbitmq, name, configure, write, read):
    """A broker user ``name`` (password ``name``) with these permissions on ``/``."""
    listed = _ctl(rabbitmq, 'list_users').stdout
    if name not in listed.split():
        _ctl(rabbitmq, 'add_user', name, name)
    _ctl(rabbitmq, 'set_permissions', '-p', '/', name, configure, write, read)
    return 'rabbit://%s:%s@%s:%d/' % (name, name, rabbitmq.host, rabbitmq.port)


@pytest.fixture
def stack(rabbitmq, tmp_path_factory, tmp_path, request):
    # the replay test: a deadline (RPC 1.10) that has not passed when the copy comes
    timeout = 60 if 'restarts' in request.node.name else 8
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text(
        '[DEFAULT]\ntransport_url = %s\n'
        '[coordination]\nbackend_url = file://%s\n'
        '[conductor]\nrpc_timeout = %d\nrpc_attempt_timeout = 2\n'
        '[rpc]\nsigning_key = %s\nservice_keys = nova:%s\n'
        % (rabbitmq.url, tmp_path / 'coordination', timeout, BERTH_KEY, NOVA_KEY))
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[conf_file])
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    s = fixtures.start_embedded(conf)
    s.tmp = tmp_path
    yield s
    s.stop()


def _attacker(rabbitmq, stack, mode, *args):
    url = _user(rabbitmq, 'eve', '.*', '.*', '.*')
    proc = subprocess.Popen(
        [sys.executable, '-c', ATTACKER, url, stack.conductors[0].host, mode, *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == 'ready', proc.stderr.read()
    return proc


def _finish(proc, *lines):
    out, err = proc.communicate(''.join(line + '\n' for line in lines), timeout=60)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _dropped():
    return sum(metrics.RPC_REPLIES_DROPPED.labels(r)._value.get()
               for r in ('unsigned', 'bad_signature', 'malformed'))


def _setup(stack):
    placement = fixtures.PlacementClient(stack.placement_url, version='1.38')
    ctx = berth_context.admin_context(stack.db)
    return placement, alloc_helpers.provider(placement, ctx, {'VCPU': {'total': 4}})


def test_forged_replies_race_the_conductor_and_are_dropped(stack, rabbitmq):
    placement, rp = _setup(stack)
    proc = _attacker(rabbitmq, stack, 'forge')
    before = _dropped()
    try:
        answers = []
        for _ in range(10):
            consumer = alloc_helpers.new_uuid()
            resp = alloc_helpers.put(placement, consumer, {rp: {'VCPU': 8}})
            answers.append(resp.status_code)
            assert placement.get('/allocations/%s' % consumer).json()['allocations'] == {}
        # an honest claim within capacity is written, under the same attack
        consumer = alloc_helpers.new_uuid()
        assert alloc_helpers.put(placement, consumer, {rp: {'VCPU': 1}}).status_code == 204
    finally:
        out = _finish(proc)
        placement.close()
    assert answers == [409] * 10
    assert out['forged'] >= 11
    # a forged reply is counted when it arrives while its call waits; under
    # load the conductor's true answer sometimes comes first (a fresh-clone run
    # beside other suites: 9 of 11), and a reply for a call already answered
    # finds no one waiting.  Most must have raced and lost.
    assert _dropped() - before >= 6
    usages = placement.get('/resource_providers/%s/usages' % rp).json()['usages']
    assert usages == {'VCPU': 1}


def test_a_forged_allocation_outcome_is_not_believed(stack, rabbitmq):
    bm = fixtures.BaremetalClient(stack.baremetal_url)
    try:
        theirs = h.make_node(bm, resource_class='gold', owner='project-b')
        proc = _attacker(rabbitmq, stack, 'forge', theirs['uuid'])
        try:
            # the caller waits for the outcome (a call, answered with it)
            resp = bm.post('/v1/allocations', json={'resource_class': 'silver',
                                                    'owner': 'project-a'},
                           headers={'Berth-Allocation-Wait': '5'})
        finally:
            out = _finish(proc)
        assert out['forged'] >= 1
        assert resp.status_code == 201, resp.text
        answer = resp.json()
        assert (answer['state'], answer['node_uuid']) != ('active', theirs['uuid'])
        stored = h.wait_allocation(bm, answer['uuid'])
        assert stored['state'] == 'error' and stored['node_uuid'] is None
        assert bm.get('/v1/nodes/%s' % theirs['uuid']).json()['instance_uuid'] is None
    finally:
        bm.close()


def test_stolen_requests_get_no_2xx(stack, rabbitmq):
    placement, rp = _setup(stack)
    proc = _attacker(rabbitmq, stack, 'steal')
    try:
        answers = []
        for _ in range(4):
            consumer = alloc_helpers.new_uuid()
            answers.append(alloc_helpers.put(placement, consumer,
                                             {rp: {'VCPU': 8}}).status_code)
            assert placement.get('/allocations/%s' % consumer).json()['allocations'] == {}
    finally:
        out = _finish(proc)
        placement.close()
    assert out['forged'] >= 1            # it did take (and answer) some of them
    assert all(code in (409, 503) for code in answers), answers


def test_a_claim_replayed_after_the_conductor_restarts_is_refused(stack, rabbitmq,
                                                                   caplog):
    placement, rp = _setup(stack)
    proc = _attacker(rabbitmq, stack, 'capture')
    try:
        consumer = alloc_helpers.new_uuid()
        assert alloc_helpers.put(placement, consumer, {rp: {'VCPU': 2}}).status_code == 204
        assert placement.delete('/allocations/%s' % consumer).status_code == 204
        proc.stdin.write('stop\n')
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == 'captured 1'
        old = stack.conductors[0]
        old.stop()
        time.sleep(0.1)
        stack.conductors[0] = conductor_service.ConductorService(
            stack.conf, old.host, stack.db, transport=stack.transport).start()
        caplog.set_level('WARNING', logger='berth.common.rpc_door')
        out = _finish(proc, 'replay')
        assert out['captured'] == 1
        end = time.monotonic() + 5
        while time.monotonic() < end and 'before this conductor started' not in caplog.text:
            if placement.get('/allocations/%s' % consumer).json()['allocations']:
                break           # it ran again
            time.sleep(0.1)
        assert placement.get('/allocations/%s' % consumer).json()['allocations'] == {}
        assert 'signed before this conductor started' in caplog.text
        assert placement.get('/resource_providers/%s/usages' % rp).json()['usages'] == {
            'VCPU': 0}
    finally:
        placement.close()


def test_a_service_user_with_the_documented_permissions(stack, rabbitmq):
    url = _user(rabbitmq, 'nova', *NOVA_PERMISSIONS)
    nova_file = stack.tmp / 'nova.conf'
    nova_file.write_text(
        '[DEFAULT]\ntransport_url = %s\n'
        '[coordination]\nbackend_url = file://%s\n'
        '[oslo_messaging_rabbit]\nuse_queue_manager = true\nhostname = nova-%s\n'
        'processname = api\n'
        '[rpc]\nsigning_key_id = nova\nsigning_key = %s\n'
        % (url, stack.tmp / 'coordination', uuidlib.uuid4().hex[:8], NOVA_KEY))
    host = stack.conductors[0].host
    done = subprocess.run([sys.executable, '-c', SERVICE, url, str(nova_file), host],
                          capture_output=True, text=True, timeout=120,
                          cwd=str(published.conftest_root()),
                          # the queue manager's lock (oslo.concurrency's global option)
                          env=dict(os.environ, OSLO_LOCK_PATH=str(stack.tmp)),
                          # the queue manager reads /proc/<process group>/stat: a
                          # group of its own, whatever became of the caller's leader
                          start_new_session=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {'consume_conductor': 'refused', 'consume_topic': 'refused',
                   'read_exchange': 'refused', 'ping': host}
