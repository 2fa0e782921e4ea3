"""ConductorAPI: every method's RPC name, pinned version, routing and call/cast.

One table drives the checks; add a row for every new RPC method.
"""

import os
from unittest import mock

from kombu import exceptions as kombu_exc
import oslo_messaging as messaging
import pytest

from common import context as berth_context
from common import inventory_contract
from conductor import manager as conductor_manager
from conductor import rpcapi
from conductor.rpcapi import gate, payloads, routing
from conductor.rpcapi import version as rpc_version


class FakeRing:
    """Owner of a key: a name derived from it, so routing is visible."""

    def owner(self, key):
        return 'owner-of-%s' % key

    def members(self):
        return frozenset({'alive-host'})

    def describe(self):
        return [{'host': 'alive-host', 'capabilities': {'rpc_api_version': '1.7'}}]


CONSUMER = payloads.ClaimConsumer('c-1', {}, 'p', 'u')
CONSUMERS = [CONSUMER.to_primitive()]
SCHEDULE = payloads.ScheduleRequest({'groups': []}, [payloads.ScheduleConsumer('c-1', 'p', 'u')],
                                    weigher='pack', distinct_roots=True)

# (ConductorAPI method, its arguments, server it must go to, RPC method,
#  RPC kwargs, pinned version, 'call' or 'cast'); the trees come from
#  FakeRoots (conductor.rpcapi.routing computes them from the arguments)
CASES = [
    ('ping', {'routing_key': 'rp-1'}, 'owner-of-rp-1', 'ping', {}, '1.0', 'call'),
    ('create_allocation', {'allocation_id': 7, 'host': 'cond-b'}, 'cond-b',
     'create_allocation', {'allocation_id': 7}, '1.1', 'cast'),
    ('destroy_allocation', {'allocation_uuid': 'a-1'}, 'owner-of-a-1',
     'destroy_allocation', {'allocation_uuid': 'a-1'}, '1.1', 'call'),
    ('claim_resources', {'consumers': [CONSUMER]}, 'owner-of-root-1',
     'claim_resources', {'tree': 'root-1', 'consumers': CONSUMERS}, '1.2', 'call'),
    ('delete_allocations', {'consumer_uuid': 'c-1'}, 'owner-of-root-1',
     'delete_allocations', {'tree': 'root-1', 'consumer_uuid': 'c-1'}, '1.2', 'call'),
    ('reshape', {'body': payloads.ReshapeBody(
        {'rp': inventory_contract.ProviderInventories(0, {})}, [CONSUMER])},
     'owner-of-root-1', 'reshape',
     {'tree': 'root-1', 'inventories': {'rp': {'resource_provider_generation': 0,
                                               'inventories': {}}},
      'consumers': CONSUMERS}, '1.2', 'call'),
    ('schedule_and_claim', {'request': SCHEDULE},
     'owner-of-c-1', 'schedule_and_claim',
     {'request': {'groups': []}, 'consumers': [{'uuid': 'c-1', 'project_id': 'p',
                                                'user_id': 'u', 'consumer_type': None}],
      'weigher': 'pack', 'distinct_roots': True}, '1.3', 'call'),
    ('backfill_allocation', {'new': payloads.NewAllocation(uuid='a-2'), 'node': 'n-1'},
     'owner-of-a-2', 'backfill_allocation', {'values': {'uuid': 'a-2'}, 'node': 'n-1'},
     '1.6', 'call'),
    ('update_allocation', {'holder': ('a-4', 'alive-host'),
                           'change': payloads.AllocationUpdate(name='n')},
     'alive-host', 'update_allocation', {'allocation': 'a-4', 'values': {'name': 'n'}},
     '1.6', 'call'),
    # the node writes that end an allocation: to its affinity host while alive ...
    ('update_node', {'holder': ('a-3', 'alive-host'), 'node': 'n-1',
                     'change': payloads.NodeUpdate(('instance_uuid',))}, 'alive-host',
     'update_node', {'node': 'n-1', 'values': {'instance_uuid': None}}, '1.6', 'call'),
    # ... else to the ring owner of the allocation uuid
    ('set_node_provision_state', {'holder': ('a-3', 'dead-host'), 'node': 'n-1',
                                  'verb': 'deleted'}, 'owner-of-a-3',
     'set_node_provision_state', {'node': 'n-1', 'verb': 'deleted'}, '1.6', 'call'),
    ('destroy_node', {'holder': ('a-3', None), 'node': 'n-1'}, 'owner-of-a-3',
     'destroy_node', {'node': 'n-1'}, '1.6', 'call'),
    # a process without the database routes a node by its uuid, else host and name
    ('update_compute_node', {'host': 'cmp1', 'capacity': {'vcpus': 8}},
     'owner-of-compute-node/cmp1/cmp1', 'update_compute_node',
     {'tree': None, 'host': 'cmp1', 'capacity': {'vcpus': 8}}, '1.7', 'call'),
    ('update_compute_node', {'host': 'cmp1', 'capacity': {'uuid': 'u-1',
                                                          'hypervisor_hostname': 'n1'}},
     'owner-of-u-1', 'update_compute_node',
     {'tree': None, 'host': 'cmp1', 'capacity': {'uuid': 'u-1',
                                                 'hypervisor_hostname': 'n1'}},
     '1.7', 'call'),
    # a destroy goes to the allocation's holder while it lives, else as above
    ('destroy_allocation', {'allocation_uuid': 'a-1', 'affinity': 'alive-host'},
     'alive-host', 'destroy_allocation', {'allocation_uuid': 'a-1'}, '1.1', 'call'),
    ('destroy_allocation', {'allocation_uuid': 'a-1', 'affinity': 'dead-host'},
     'owner-of-a-1', 'destroy_allocation', {'allocation_uuid': 'a-1'}, '1.1', 'call'),
]
# what the conductor answers to each call, and what the method returns then
REPLIES = {'schedule_and_claim': (
    [{'consumer_uuid': 'c-1', 'allocations': {}}],
    [payloads.ClaimedConsumer('c-1', {})]),
    'backfill_allocation': ({'uuid': 'a-2', 'error': None},
                            payloads.BackfillAnswer('a-2', None))}

# public methods that send nothing
LOCAL = {'can_send_version', 'allocation_owner', 'broker_reachable', 'unreachable'}
# public methods that send to every conductor (tested on their own below)
FAN_OUT = {'conductors'}



pytestmark = pytest.mark.usefixtures('fake_roots')


@pytest.fixture
def api(conf, transport):
    return rpcapi.ConductorAPI(conf, transport, FakeRing())


# calls that are not writes: never a call id, never replayed (1.8)
NOT_REPLAYED = {'ping'}


def _check_case(api, method, args, server, rpc_method, rpc_kwargs, version, kind,
                replayed):
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        cctxt = prepare.return_value
        reply, returned = REPLIES.get(method, ('reply', 'reply'))
        getattr(cctxt, kind).return_value = reply
        result = getattr(api, method)(ctx, **args)
    if replayed:
        prepare.assert_called_once_with(server=server, version=rpc_version.REPLAY,
                                        timeout=2.5)
        rpc_kwargs = dict(rpc_kwargs, call_id=mock.ANY)
    else:
        prepare.assert_called_once_with(server=server, version=version)
    getattr(cctxt, kind).assert_called_once_with(ctx, rpc_method, **rpc_kwargs)
    assert result == (returned if kind == 'call' else None)
    return getattr(cctxt, kind).call_args.kwargs.get('call_id')


@pytest.mark.parametrize('method,args,server,rpc_method,rpc_kwargs,version,kind', CASES,
                         ids=[c[0] for c in CASES])
def test_rpc_methods(api, method, args, server, rpc_method, rpc_kwargs, version, kind):
    """Every write call carries a fresh call id at 1.8 (one attempt of rpc_attempt_timeout)."""
    replayed = kind == 'call' and method not in NOT_REPLAYED
    call_id = _check_case(api, method, args, server, rpc_method, rpc_kwargs, version,
                          kind, replayed)
    if replayed:
        assert isinstance(call_id, str) and len(call_id) == 36


@pytest.mark.parametrize('method,args,server,rpc_method,rpc_kwargs,version,kind', CASES,
                         ids=[c[0] for c in CASES])
def test_rpc_methods_capped_below_1_8_send_no_call_id(conf, transport, method, args, server,
                                                     rpc_method, rpc_kwargs, version, kind):
    """A client pinned to 1.7 (rolling upgrade) sends every call exactly as before 1.8."""
    conf.set_override('conductor', '1.7', group='upgrade_levels')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    _check_case(api, method, args, server, rpc_method, rpc_kwargs, version, kind, False)


def test_rpc_attempt_timeout_0_sends_no_call_id(conf, transport):
    conf.set_override('rpc_attempt_timeout', 0, group='conductor')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    _check_case(api, *CASES[2], False)


def test_every_public_method_has_a_row():
    public = {name for name in vars(rpcapi.ConductorAPI)
              if not name.startswith('_') and callable(getattr(rpcapi.ConductorAPI, name))}
    missing = public - LOCAL - FAN_OUT - {c[0] for c in CASES}
    assert not missing, 'add a row to CASES (tests/unit/conductor/test_rpcapi.py) for %s' % (
        sorted(missing))


def test_allocation_owner_is_the_ring_owner_of_this_process_by_default(api):
    """allocation_routing = process: one conductor for every row of a process."""
    assert api.conf.conductor.allocation_routing == 'process'
    key = routing.process_key('allocations', api.conf.host, os.getpid())
    assert api.allocation_owner('a-9') == api.allocation_owner('a-8') == 'owner-of-' + key


def test_allocation_owner_by_uuid_is_the_ring_owner_of_the_uuid(api):
    api.conf.set_override('allocation_routing', 'allocation', group='conductor')
    assert api.allocation_owner('a-9') == 'owner-of-a-9'


def test_allocation_routing_refuses_an_unknown_value(conf):
    with pytest.raises(ValueError):
        conf.set_override('allocation_routing', 'random', group='conductor')


def test_every_rpc_method_exists_on_the_endpoint():
    for case in CASES:
        assert callable(getattr(conductor_manager.ConductorManager, case[3]))


def test_one_version_for_client_and_endpoint(api):
    assert conductor_manager.ConductorManager.target.version == rpc_version.RPC_API_VERSION
    assert api.version_cap == rpc_version.RPC_API_VERSION
    assert max(gate.parse(c[5]) for c in CASES) <= gate.parse(rpc_version.RPC_API_VERSION)


def test_version_cap_from_upgrade_levels(conf, transport):
    conf.set_override('conductor', '1.0', group='upgrade_levels')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    assert api.version_cap == '1.0'
    assert api.can_send_version('1.0')
    assert not api.can_send_version('1.1')


class DescribedRing(FakeRing):
    """Two members; the second joined on a backend without heartbeats."""

    def describe(self):
        return [{'host': 'c-a', 'capabilities': {'rpc_api_version': '1.3',
                                                 'joined_at': 1.0, 'heartbeat_at': 2.0}},
                {'host': 'c-b', 'capabilities': {'rpc_api_version': '1.2',
                                                 'joined_at': 1.0}}]


def test_conductors_pings_every_member(conf, transport):
    api = rpcapi.ConductorAPI(conf, transport, DescribedRing())
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.side_effect = [
            {'host': 'c-a'}, messaging.MessagingTimeout('no answer')]
        found = api.conductors(ctx, ping_timeout=0.5)
    assert [c.kwargs for c in prepare.call_args_list] == [
        {'server': 'c-a', 'version': '1.0', 'timeout': 0.5},
        {'server': 'c-b', 'version': '1.0', 'timeout': 0.5}]
    prepare.return_value.call.assert_called_with(ctx, 'ping')
    a, b = found
    assert (a['host'], a['rpc_api_version'], a['ping_error']) == ('c-a', '1.3', None)
    assert a['ping_ms'] >= 0 and abs(a['joined_age'] - a['heartbeat_age'] - 1) < 0.2
    assert (b['host'], b['rpc_api_version'], b['ping_ms']) == ('c-b', '1.2', None)
    assert 'did not answer in time' in b['ping_error']
    assert b['heartbeat_age'] is None


def test_create_allocation_with_wait_is_a_batch_call_bounded_by_the_wait(api):
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = [{'state': 'active'}]
        result = api.create_allocation(ctx, 7, 'cond-b', wait=2.5)
    prepare.assert_called_once_with(server='cond-b', version='1.5',
                                    timeout=2.5 + rpcapi.ALLOCATION_REPLY_MARGIN)
    prepare.return_value.call.assert_called_once_with(
        ctx, 'create_allocations', allocation_ids=[7], wait=2.5)
    assert result == payloads.AllocationOutcome('active')   # {'state': 'active'} decoded
    assert callable(conductor_manager.ConductorManager.create_allocations)


def test_create_allocation_with_wait_is_one_call_to_a_conductor_at_1_4(conf, transport):
    conf.set_override('conductor', '1.4', group='upgrade_levels')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = {'state': 'active'}
        result = api.create_allocation(ctx, 7, 'cond-b', wait=2.5)
    prepare.assert_called_once_with(server='cond-b', version='1.4',
                                    timeout=2.5 + rpcapi.ALLOCATION_REPLY_MARGIN)
    prepare.return_value.call.assert_called_once_with(
        ctx, 'create_allocation', allocation_id=7, wait=2.5)
    assert result == payloads.AllocationOutcome('active')   # {'state': 'active'} decoded


def test_create_allocation_casts_to_a_conductor_older_than_1_4(conf, transport):
    conf.set_override('conductor', '1.3', group='upgrade_levels')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        assert api.create_allocation(ctx, 7, 'cond-b', wait=2.5) is None
    prepare.assert_called_once_with(server='cond-b', version='1.1')
    prepare.return_value.cast.assert_called_once_with(
        ctx, 'create_allocation', allocation_id=7)


@pytest.mark.parametrize('failure', [
    messaging.MessagingTimeout('no answer'),
    messaging.RemoteError('OperationalError', 'boom')])
@pytest.mark.parametrize('cap', ['1.4', '1.5'])
def test_create_allocation_not_answered_is_unknown_not_an_error(conf, transport,
                                                                failure, cap):
    """The row is stored: a slow or failing conductor leaves it allocating (201)."""
    conf.set_override('conductor', cap, group='upgrade_levels')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.side_effect = failure
        assert api.create_allocation(berth_context.admin_context(), 7, 'cond-b',
                                     wait=1) is None


@pytest.mark.parametrize('failure', [
    messaging.MessageDeliveryFailure('down'),
    kombu_exc.OperationalError('[Errno 113] No route to host'),
    ConnectionRefusedError(111, 'Connection refused'),
], ids=['delivery-failure', 'kombu-no-route', 'socket-refused'])
def test_a_broker_that_cannot_be_reached_is_unavailable_not_a_500(api, failure):
    from common import exception
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.side_effect = failure
        with pytest.raises(exception.ServiceUnavailable) as raised:
            api.claim_resources(berth_context.admin_context(), [CONSUMER])
    assert 'message broker cannot be reached' in str(raised.value)


def test_create_allocation_not_sent_is_unavailable(api):
    from common import exception
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.side_effect = messaging.MessageDeliveryFailure('down')
        with pytest.raises(exception.ServiceUnavailable):
            api.create_allocation(berth_context.admin_context(), 7, 'cond-b', wait=1)


@pytest.mark.parametrize('method,args', [
    ('backfill_allocation', {'new': payloads.NewAllocation(uuid='a-2'), 'node': 'n-1'}),
    ('update_node', {'holder': ('a-3', 'alive-host'), 'node': 'n-1',
                     'change': payloads.NodeUpdate()}),
    ('set_node_provision_state', {'holder': ('a-3', None), 'node': 'n-1',
                                  'verb': 'undeploy'}),
    ('destroy_node', {'holder': ('a-3', None), 'node': 'n-1'}),
    ('update_allocation', {'holder': ('a-3', None), 'change': payloads.AllocationUpdate()}),
])
def test_writes_of_1_6_below_the_cap_are_unavailable_and_send_nothing(conf, transport,
                                                                     method, args):
    """A cap below 1.6 never falls back to a write in the API process: 503."""
    from common import exception
    conf.set_override('conductor', '1.5', group='upgrade_levels')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        with pytest.raises(exception.ServiceUnavailable) as raised:
            getattr(api, method)(berth_context.admin_context(), **args)
    assert not prepare.called
    assert 'needs conductor RPC API 1.6' in str(raised.value)


def test_update_compute_node_below_the_cap_is_unavailable_and_sends_nothing(conf,
                                                                          transport):
    from common import exception
    conf.set_override('conductor', '1.6', group='upgrade_levels')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        with pytest.raises(exception.ServiceUnavailable) as raised:
            api.update_compute_node(berth_context.admin_context(), 'cmp1', {'vcpus': 8})
    assert not prepare.called
    assert 'needs conductor RPC API 1.7' in str(raised.value)
    assert '[upgrade_levels] conductor is 1.6' in str(raised.value)


def test_update_compute_node_to_an_old_owner_is_unavailable_and_sends_nothing(conf,
                                                                            transport):
    from common import exception

    class OldOwnerRing(FakeRing):
        def describe(self):
            return [{'host': 'owner-of-compute-node/cmp1/cmp1',
                     'capabilities': {'rpc_api_version': '1.6'}},
                    {'host': 'alive-host', 'capabilities': {'rpc_api_version': '1.7'}}]

    api = rpcapi.ConductorAPI(conf, transport, OldOwnerRing())
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        with pytest.raises(exception.ServiceUnavailable) as raised:
            api.update_compute_node(berth_context.admin_context(), 'cmp1', {'vcpus': 8})
    assert not prepare.called
    assert 'owner-of-compute-node/cmp1/cmp1 speaks 1.6' in str(raised.value)


def test_doc_rpc_md_documents_every_method_and_version():
    import pathlib
    text = (pathlib.Path(__file__).resolve().parents[3] / 'doc' / 'source' / 'rpc.md').read_text()
    endpoint = {name for name in vars(conductor_manager.ConductorManager)
                if not name.startswith('_') and name not in ('periodic_tasks', 'target')
                and callable(getattr(conductor_manager.ConductorManager, name))}
    missing = sorted(m for m in endpoint if '| `%s` |' % m not in text)
    assert missing == [], 'doc/source/rpc.md has no row for %s' % missing
    assert '| %s |' % rpc_version.RPC_API_VERSION in text


def test_a_client_without_database_sends_no_tree_and_routes_by_provider(api, monkeypatch):
    class NoRoots:
        def tree(self, ctx, providers, consumers=()):
            return None
    monkeypatch.setattr(routing, 'ROOTS', NoRoots())
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        api.claim_resources(ctx, [payloads.ClaimConsumer('c-1', {'rp-2': {}, 'rp-1': {}},
                                                         'p', 'u')])
    prepare.assert_called_once_with(server='owner-of-rp-1', version='1.8', timeout=2.5)
    assert prepare.return_value.call.call_args.kwargs['tree'] is None
def test_update_compute_node_with_the_database_routes_by_the_provider_tree(api,
                                                                          monkeypatch):
    """A known node goes to the owner of its provider's root (FakeRoots: root-1)."""
    looked_up = []

    def find(ctx, host, name):
        looked_up.append((host, name))
        return 'node-uuid'

    monkeypatch.setattr(routing, '_compute_node_uuid', find)
    ctx = berth_context.admin_context()
    ctx.db = object()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        api.update_compute_node(ctx, 'cmp1', {'hypervisor_hostname': 'n1', 'vcpus': 2})
    assert looked_up == [('cmp1', 'n1')]
    prepare.assert_called_once_with(server='owner-of-root-1', version='1.8', timeout=2.5)
    assert prepare.return_value.call.call_args.kwargs['tree'] == 'root-1'


def test_update_compute_node_of_a_new_node_routes_by_host_and_name(monkeypatch):
    monkeypatch.setattr(routing, '_compute_node_uuid', lambda ctx, host, name: None)
    ctx = berth_context.admin_context()
    ctx.db = object()
    assert routing.compute_node_route(ctx, 'cmp1', {}) == (None, 'compute-node/cmp1/cmp1')


def test_a_conductor_refusing_1_8_gets_writes_the_old_way(api):
    """An uncapped client and an older conductor: nothing ran, the pre-1.8 call follows."""
    ctx = berth_context.admin_context()
    refused = messaging.RemoteError('UnsupportedVersion', 'Endpoint does not support '
                                    'RPC version 1.8')
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.side_effect = [refused, 'old answer', 'old again']
        assert api.delete_allocations(ctx, 'c-1') == 'old answer'
        assert api.delete_allocations(ctx, 'c-1') == 'old again'   # remembered
    assert prepare.call_args_list == [
        mock.call(server='owner-of-root-1', version='1.8', timeout=2.5),
        mock.call(server='owner-of-root-1', version='1.2'),
        mock.call(server='owner-of-root-1', version='1.2')]
    calls = prepare.return_value.call.call_args_list
    assert 'call_id' in calls[0].kwargs
    assert 'call_id' not in calls[1].kwargs and 'call_id' not in calls[2].kwargs
