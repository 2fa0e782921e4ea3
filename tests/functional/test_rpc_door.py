"""The conductor's RPC door on a running embedded berth (the in-process transport).

A caller on the bus naming an attribute that is not a published method
(``conf``, ``db``, ``ring``, ...) gets NoSuchMethod with no traceback, by
call or by fanout cast, and the conductor keeps working: REST writes that
its policy checks still pass.
"""

import oslo_messaging as messaging
import pytest

from common import context as berth_context
from common import exception, rpc, rpc_trust
from conductor.rpcapi import payloads
from objects.baremetal import allocation as node_alloc_obj
from tests import fixtures
from tests.functional import alloc_helpers
from tests.functional import baremetal_helpers as h

INTERNAL = ['conf', 'db', 'ring', 'workers', 'calls', 'authz', 'claims',
            'periodic_tasks', 'node_allocator', '__init__', '_refused']


@pytest.fixture
def placement(berth):
    client = fixtures.PlacementClient(berth.placement_url, version='1.38')
    yield client
    client.close()


def _client(berth, **target):
    return berth.conductor_api.client.prepare(version='1.0', **target)


@pytest.mark.parametrize('name', INTERNAL)
def test_an_internal_name_is_no_such_method_without_traceback(berth, placement, name):
    host = berth.conductors[0].host
    with pytest.raises(messaging.RemoteError) as err:
        _client(berth, server=host).call(berth_context.admin_context(), name)
    assert err.value.exc_type == 'NoSuchMethod'
    assert 'Traceback' not in (err.value.traceback or '')
    assert '.py' not in (err.value.traceback or '')
    # the conductor is whole: its policy-checked writes still run
    ctx = berth_context.admin_context(berth.db)
    rp = alloc_helpers.provider(placement, ctx, {'VCPU': {'total': 4}})
    consumer = alloc_helpers.new_uuid()
    resp = alloc_helpers.put(placement, consumer, {rp: {'VCPU': 1}})
    assert resp.status_code == 204, resp.text
    assert placement.delete('/allocations/%s' % consumer).status_code == 204


def test_a_fanout_cast_of_conf_clears_nothing(berth, placement):
    _client(berth, fanout=True).cast(berth_context.admin_context(), 'conf')
    host = berth.conductors[0].host
    # a call after the cast is answered after it (one queue, one server)
    assert berth.conductor_api.ping(berth_context.admin_context(), 'k')['host'] == host
    assert berth.conductors[0].manager.conf.conductor.workers == \
        berth.conf.conductor.workers
    ctx = berth_context.admin_context(berth.db)
    rp = alloc_helpers.provider(placement, ctx, {'VCPU': {'total': 4}})
    resp = alloc_helpers.put(placement, alloc_helpers.new_uuid(), {rp: {'VCPU': 1}})
    assert resp.status_code == 204, resp.text


def test_no_token_crosses_the_bus(berth, placement, monkeypatch):
    """A context holding the caller's Keystone token: its messages carry none."""
    sent = []
    driver = berth.transport._driver
    real_send = driver.send

    def send(target, ctxt, message, *args, **kwargs):
        sent.append((dict(ctxt), message.get('method')))
        return real_send(target, ctxt, message, *args, **kwargs)

    monkeypatch.setattr(driver, 'send', send)
    rp = alloc_helpers.provider(placement, berth_context.admin_context(berth.db),
                                {'VCPU': {'total': 4}})
    ctx = berth_context.RequestContext(
        user_id='u', project_id='p', roles=['admin'], auth_token='bearer-secret-7',
        service_token='service-secret-8', db=berth.db, overwrite=False)
    consumer = alloc_helpers.new_uuid()
    berth.conductor_api.claim_resources(ctx, [payloads.ClaimConsumer(
        consumer, {rp: {'VCPU': 1}}, 'p', 'u')])
    berth.conductor_api.delete_allocations(ctx, consumer)
    assert {m for _c, m in sent} >= {'claim_resources', 'delete_allocations'}
    for ctxt, _method in sent:
        assert ctxt['user'] == 'u'
        assert not {'auth_token', 'auth_token_info', 'service_token'} & set(ctxt)
        assert 'secret' not in repr(ctxt)


def _raw_client(berth, key=None):
    """An oslo.messaging client on the bus, unsigned (or signed with ``key``)."""
    transport = berth.transport
    if key is not None:
        transport = rpc_trust.SigningTransport(transport, rpc_trust.Signer('berth', key))
    target = messaging.Target(topic=rpc.TOPIC, version='1.9')
    return messaging.get_rpc_client(transport, target,
                                    serializer=messaging.NoOpSerializer())


FORGED = [
    {'user': 'x', 'project_id': 'x', 'roles': ['admin']},
    {'user': 'x', 'project_id': None, 'roles': ['member', 'reader'],
     'system_scope': 'all'},
    {'user': 'x', 'project_id': 'svc', 'project_name': 'service', 'roles': ['service'],
     'is_admin': True},
]


@pytest.mark.parametrize('key', [None, 'not-berths-key-' * 3])
@pytest.mark.parametrize('forged', FORGED)
def test_a_forged_context_writes_nothing(berth, placement, key, forged):
    ctx = berth_context.admin_context(berth.db)
    rp = alloc_helpers.provider(placement, ctx, {'VCPU': {'total': 4}})
    victim = alloc_helpers.new_uuid()
    assert alloc_helpers.put(placement, victim, {rp: {'VCPU': 1}}).status_code == 204
    host = berth.conductors[0].host
    cctxt = _raw_client(berth, key).prepare(server=host)
    with pytest.raises(exception.Forbidden) as err:
        cctxt.call(forged, 'delete_allocations', tree=None, consumer_uuid=victim)
    assert 'RPC message was refused' in err.value.message
    with pytest.raises(exception.Forbidden):
        cctxt.call(forged, 'claim_resources', tree=None, consumers=[{
            'uuid': alloc_helpers.new_uuid(), 'allocations': {rp: {'VCPU': 3}},
            'project_id': 'x', 'user_id': 'x', 'consumer_type': None,
            'check_generation': False, 'generation': None}])
    held = placement.get('/allocations/%s' % victim).json()['allocations']
    assert {p: a['resources'] for p, a in held.items()} == {rp: {'VCPU': 1}}
    assert placement.get('/resource_providers/%s/usages' % rp).json()['usages'] == {
        'VCPU': 1}


def test_another_projects_allocation_is_neither_changed_nor_described(berth, bm):
    """create_allocation(s) for ids of rows the caller may not create: None, no write."""
    node = h.make_node(bm, owner='project-a')
    victim = h.allocate(bm, resource_class='gold', owner='project-a')
    assert victim['state'] == 'active', victim
    row = node_alloc_obj.get(berth_context.admin_context(berth.db), victim['uuid'])
    member_b = berth_context.RequestContext(user_id='u', project_id='project-b',
                                            roles=['member', 'reader'], overwrite=False)
    cctxt = berth.conductor_api.client.prepare(server=row.conductor_affinity,
                                               version='1.5')
    assert cctxt.call(member_b, 'create_allocations', allocation_ids=[row.id],
                      wait=1.0) == [None]
    assert cctxt.call(member_b, 'create_allocation', allocation_id=row.id,
                      wait=1.0) is None
    cctxt.cast(member_b, 'create_allocation', allocation_id=row.id)
    berth.conductor_api.ping(member_b, 'k')       # after the cast, on one queue
    after = bm.get('/v1/allocations/%s' % victim['uuid']).json()
    assert (after['state'], after['node_uuid'], after['last_error'],
            after['updated_at']) == ('active', node['uuid'], None, victim['updated_at'])
    reader = berth_context.RequestContext(user_id='u', project_id='project-b',
                                          roles=['reader'], overwrite=False)
    with pytest.raises(exception.Forbidden):
        cctxt.call(reader, 'create_allocations', allocation_ids=[row.id], wait=1.0)


def test_raw_column_values_are_invalid_and_written_nowhere(berth, bm):
    """A project member's RPC writes: only what its REST PATCH may change."""
    node = h.make_node(bm, owner='project-a')
    other = h.make_node(bm, owner='project-b')
    mine = h.allocate(bm, resource_class='gold', owner='project-a')
    row = node_alloc_obj.get(berth_context.admin_context(berth.db), mine['uuid'])
    member = berth_context.RequestContext(user_id='u', project_id='project-a',
                                          roles=['member', 'reader'], overwrite=False)
    cctxt = berth.conductor_api.client.prepare(server=row.conductor_affinity,
                                               version='1.6')
    for values in ({'node_id': row.node_id + 1}, {'owner': 'project-b'},
                   {'state': 'error'}, {'name': alloc_helpers.new_uuid()}):
        with pytest.raises(exception.Invalid):
            cctxt.call(member, 'update_allocation', allocation=mine['uuid'],
                       values=values)
    for values in ({'instance_uuid': None, 'provision_state': 'active'},
                   {'instance_uuid': None, 'fault': 'power failure'},
                   {'instance_uuid': None, 'reservation': 'c1'}):
        with pytest.raises(exception.Invalid):
            cctxt.call(member, 'update_node', node=node['uuid'], values=values)
    with pytest.raises(exception.Invalid):
        cctxt.call(member, 'backfill_allocation', node=other['uuid'], values={
            'uuid': alloc_helpers.new_uuid(), 'traits': ['CUSTOM_%d' % i
                                                        for i in range(3000)]})
    after = bm.get('/v1/allocations/%s' % mine['uuid']).json()
    assert (after['state'], after['node_uuid'], after['owner'], after['name']) == (
        'active', node['uuid'], 'project-a', None)
    got = bm.get('/v1/nodes/%s' % node['uuid']).json()
    assert (got['provision_state'], got['fault'], got['reservation']) == (
        'available', None, None)
    assert bm.get('/v1/allocations?node=%s' % other['uuid']).json()['allocations'] == []
