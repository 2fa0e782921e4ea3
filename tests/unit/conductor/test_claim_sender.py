"""Coalesced claims (RPC 1.9): the client side and the endpoint's answers per claim."""

import os
import threading
from unittest import mock

import oslo_messaging as messaging
import pytest

from common import context as berth_context
from common import exception
from conductor import manager as conductor_manager
from conductor import rpcapi
from conductor.manager import claim_many
from conductor.rpcapi import claim_batch, gate, payloads, routing
from conductor.rpcapi import version as rpc_version
from tests.unit.conductor.test_rpcapi import FakeRing

pytestmark = pytest.mark.usefixtures('fake_roots')


@pytest.fixture
def api(conf, transport, monkeypatch):
    """A client as on RabbitMQ: the in-process transport is not told apart."""
    monkeypatch.setattr(claim_batch, 'in_process', lambda transport: False)
    return rpcapi.ConductorAPI(conf, transport, FakeRing())


def _consumer(uuid='c-1'):
    return payloads.ClaimConsumer(uuid, {'rp-1': {'VCPU': 1}}, 'p', 'u')


def _serialised(exc):
    try:
        raise exc
    except Exception:
        return claim_many._serialised(exc)


def test_a_claim_goes_as_claim_resources_many_with_a_call_id(api):
    ctx = berth_context.admin_context()
    api.conf.set_override('claim_routing', 'tree', group='conductor')
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = [None]
        assert api.claim_resources(ctx, [_consumer()]) is None
    prepare.assert_called_once_with(server='owner-of-root-1', version='1.9', timeout=2.5)
    args, kwargs = prepare.return_value.call.call_args
    assert args == (ctx, 'claim_resources_many')
    assert kwargs['claims'] == [{'tree': 'root-1',
                                 'consumers': [_consumer().to_primitive()]}]
    assert isinstance(kwargs['call_id'], str)


def test_a_claim_refused_in_its_batch_raises_its_own_error_typed(api):
    ctx = berth_context.admin_context()
    refused = _serialised(exception.InvalidAllocation(reason='too big'))
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = [refused]
        with pytest.raises(exception.InvalidAllocation) as raised:
            api.claim_resources(ctx, [_consumer()])
    assert 'too big' in str(raised.value)


def test_a_database_error_of_one_claim_is_a_503(api):
    ctx = berth_context.admin_context()

    class DBConnectionError(Exception):
        pass
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = [_serialised(DBConnectionError('gone'))]
        with pytest.raises(exception.ServiceUnavailable):
            api.claim_resources(ctx, [_consumer()])


def test_concurrent_claims_for_one_conductor_share_a_call(conf):
    sent, first_in, release = [], threading.Event(), threading.Event()

    class Client:
        def prepare(self, **kwargs):
            return self

        def call(self, ctx, method, claims, call_id):
            sent.append([c['consumers'][0]['uuid'] for c in claims])
            if len(sent) == 1:
                first_in.set()
                release.wait(30)
            return [None] * len(claims)

    sender = claim_batch.ClaimSender(Client(), '1.9', 2.5, 60)
    ctx = berth_context.admin_context()
    errors = []

    def claim(uuid):
        try:
            assert sender.claim(ctx, 'c1', 't', [{'uuid': uuid}]) is None
        except Exception as exc:      # reported below
            errors.append(exc)
    threads = [threading.Thread(target=claim, args=('a',))]
    threads[0].start()
    assert first_in.wait(30)
    threads += [threading.Thread(target=claim, args=(u,)) for u in 'bcd']
    for t in threads[1:]:
        t.start()
    for _ in range(3000):
        with sender._batcher._lock:
            if sum(len(h.pending) for h in sender._batcher._hosts.values()) == 3:
                break
        threading.Event().wait(0.001)
    release.set()
    for t in threads:
        t.join(30)
    assert errors == []
    assert sent[0] == ['a'] and sorted(sent[1]) == ['b', 'c', 'd'] and len(sent) == 2


def test_a_conductor_refusing_1_9_gets_one_call_per_claim(api):
    ctx = berth_context.admin_context()
    refused = messaging.RemoteError('UnsupportedVersion', 'Endpoint does not support '
                                    'RPC version 1.9')
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.side_effect = [refused, None, None]
        assert api.claim_resources(ctx, [_consumer()]) is None
        assert api.claim_resources(ctx, [_consumer()]) is None     # remembered
    assert [c.kwargs['version'] for c in prepare.call_args_list] == ['1.9', '1.8', '1.8']
    methods = [c.args[1] for c in prepare.return_value.call.call_args_list]
    assert methods == ['claim_resources_many', 'claim_resources', 'claim_resources']


@pytest.mark.parametrize('override', [('upgrade_levels', 'conductor', '1.8'),
                                      ('conductor', 'rpc_attempt_timeout', 0)])
def test_capped_below_1_9_or_without_replays_claims_go_one_by_one(conf, transport,
                                                                  monkeypatch, override):
    monkeypatch.setattr(claim_batch, 'in_process', lambda transport: False)
    group, name, value = override
    conf.set_override(name, value, group=group)
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        api.claim_resources(berth_context.admin_context(), [_consumer()])
    assert prepare.return_value.call.call_args.args[1] == 'claim_resources'


def test_the_in_process_transport_sends_claims_one_by_one(conf, transport):
    assert claim_batch.in_process(transport)
    assert rpcapi.ConductorAPI(conf, transport, FakeRing())._claims is None


def test_the_endpoint_answers_each_claim_and_refuses_alone():
    manager = mock.Mock(spec=['authz', 'claims', '_max_bytes'])
    manager._max_bytes = 1 << 20
    forbidden = exception.Forbidden('no', rule='r')
    manager.authz.claim_resources.side_effect = [None, forbidden, None]
    manager.claims.claim_many.return_value = [
        exception.InvalidAllocation(reason='too big'), None]
    a, b, c = _consumer('a'), _consumer('b'), _consumer('c')
    claims = [{'tree': 't1', 'consumers': [a.to_primitive()]},
              {'tree': 't2', 'consumers': [b.to_primitive()]},
              {'tree': None, 'consumers': [c.to_primitive()]},
              {'tree': 't4', 'consumers': [{'uuid': 'd'}]}]
    answers = claim_many.run(manager, berth_context.admin_context(), claims)
    # the endpoint reads each claim's consumers once into the typed contract
    manager.claims.claim_many.assert_called_once_with(mock.ANY, [('t1', [a]), ('root-1', [c])])
    assert answers[2] is None
    assert '"class": "InvalidAllocation"' in answers[0]['error']
    assert '"class": "Forbidden"' in answers[1]['error']
    # a consumer that is no claim is answered Invalid alone (never a KeyError)
    assert '"class": "Invalid"' in answers[3]['error']


def test_claim_resources_many_is_an_endpoint_method_of_1_9():
    assert callable(conductor_manager.ConductorManager.claim_resources_many)
    assert gate.parse(rpc_version.CLAIM_BATCH) <= gate.parse(rpc_version.RPC_API_VERSION)


def test_the_linger_of_coalesced_claims_is_configured(conf, transport, monkeypatch):
    """[conductor] claim_batch_linger reaches the claims' batcher, not the node allocations'."""
    monkeypatch.setattr(claim_batch, 'in_process', lambda transport: False)
    assert conf.conductor.claim_batch_linger == 0.002
    conf.set_override('claim_batch_linger', 0.005, group='conductor')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    assert api._claims._batcher.linger == 0.005
    assert api._batcher.linger == 0


def test_the_linger_threshold_of_coalesced_claims_is_configured(conf, transport, monkeypatch):
    """[conductor] claim_batch_linger_below reaches the claims' batcher only."""
    monkeypatch.setattr(claim_batch, 'in_process', lambda transport: False)
    assert conf.conductor.claim_batch_linger_below == 0
    conf.set_override('claim_batch_linger_below', 4, group='conductor')
    api = rpcapi.ConductorAPI(conf, transport, FakeRing())
    assert api._claims._batcher.linger_below == 4
    assert api._batcher.linger_below == 0


def test_claim_routing_tree_sends_to_the_tree_owner(api):
    ctx = berth_context.admin_context()
    api.conf.set_override('claim_routing', 'tree', group='conductor')
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = [None]
        api.claim_resources(ctx, [_consumer()])
    assert prepare.call_args.kwargs['server'] == 'owner-of-root-1'


def test_claim_routing_process_sends_to_this_process_s_conductor(api):
    """claim_routing = process (the default): the ring owner of host and pid; the tree travels."""
    assert api.conf.conductor.claim_routing == 'process'
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = [None]
        api.claim_resources(ctx, [_consumer()])
    assert prepare.call_args.kwargs['server'] == 'owner-of-claims-from/%s/%d' % (
        api.conf.host, os.getpid())
    assert prepare.return_value.call.call_args.kwargs['claims'][0]['tree'] == 'root-1'


def test_claim_routing_process_sends_an_uncached_tree_as_none(api, monkeypatch):
    """A cold routing cache costs this process no database read: the conductor resolves it."""
    class ColdRoots:
        def tree(self, ctx, providers, consumers=()):
            raise AssertionError('the API read the tree from the database')

        def cached(self, providers):
            return None
    monkeypatch.setattr(routing, 'ROOTS', ColdRoots())
    ctx = berth_context.admin_context()
    with mock.patch.object(api.client, 'prepare', autospec=True) as prepare:
        prepare.return_value.call.return_value = [None]
        assert api.claim_resources(ctx, [_consumer()]) is None
    assert prepare.call_args.kwargs['server'] == 'owner-of-claims-from/%s/%d' % (
        api.conf.host, os.getpid())
    assert prepare.return_value.call.call_args.kwargs['claims'] == [
        {'tree': None, 'consumers': [_consumer().to_primitive()]}]


def test_claim_routing_refuses_an_unknown_value(conf):
    with pytest.raises(ValueError):
        conf.set_override('claim_routing', 'random', group='conductor')
