"""A write call whose reply is lost: replayed with its call id, run once (RPC 1.8).

The in-process transport drops exactly one reply (what a RabbitMQ node that
dies after the conductor wrote does); the API's attempt times out after
``[conductor] rpc_attempt_timeout``, the same call is sent again with the
same id, and the conductor answers it from its ledger instead of writing
again.
"""

import pytest

from common import metrics, rpc_inproc
from conductor.manager import claims as manager_claims
from tests import fixtures
from tests.functional import alloc_helpers, claim_helpers


def _stack(tmp_path_factory, tmp_path, **overrides):
    conf = fixtures.make_conf(tmp_path / 'state', **{'conductor.rpc_attempt_timeout': 0.5,
                                                     'conductor.rpc_timeout': 30,
                                                     **overrides})
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    return fixtures.start_embedded(conf)


@pytest.fixture
def replaying(tmp_path_factory, tmp_path):
    stack = _stack(tmp_path_factory, tmp_path)
    yield stack
    stack.stop()


@pytest.fixture
def pinned(tmp_path_factory, tmp_path):
    """A client capped at 1.7 ([upgrade_levels] conductor, a rolling upgrade)."""
    stack = _stack(tmp_path_factory, tmp_path, **{'conductor.rpc_timeout': 2,
                                                  'upgrade_levels.conductor': '1.7'})
    yield stack
    stack.stop()


@pytest.fixture
def lose_reply(monkeypatch):
    """``lose_reply(method)``: the first reply of ``method`` never reaches the caller.

    Returns the list of the call ids whose replies were dropped.
    """
    original = rpc_inproc._IncomingMessage.reply
    armed, dropped = set(), []

    def reply(self, reply=None, failure=None):
        method = self.message.get('method')
        if method in armed:
            armed.discard(method)
            dropped.append(self.message.get('args', {}).get('call_id'))
            return
        return original(self, reply, failure)

    monkeypatch.setattr(rpc_inproc._IncomingMessage, 'reply', reply)

    def arm(method):
        armed.add(method)
        return dropped
    return arm


def _client(stack):
    return fixtures.PlacementClient(stack.placement_url, version='latest')


def _replays(method):
    return metrics.RPC_REPLAYS.labels(method)._value.get()


@pytest.fixture
def claim_runs(monkeypatch):
    """The consumers of every claim a conductor really ran (a replay runs none)."""
    runs = []
    original = manager_claims.Claims.claim_resources

    def counted(self, ctx, tree, consumers):
        runs.append([c.uuid for c in consumers])
        return original(self, ctx, tree, consumers)
    monkeypatch.setattr(manager_claims.Claims, 'claim_resources', counted)
    return runs


def test_lost_reply_of_a_claim_is_replayed_and_written_once(replaying, lose_reply,
                                                            claim_runs):
    from common import context as berth_context
    client = _client(replaying)
    ctx = berth_context.admin_context(replaying.db)
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})
    consumer = alloc_helpers.new_uuid()
    before = _replays('claim_resources')
    dropped = lose_reply('claim_resources')
    # a new consumer (generation None): run twice, the second would be a 409
    resp = alloc_helpers.put(client, consumer, {rp: {'VCPU': 1}})
    assert resp.status_code == 204, resp.text
    assert len(dropped) == 1 and dropped[0]           # a reply with a call id was lost
    assert _replays('claim_resources') == before + 1
    assert [run for run in claim_runs if consumer in run] == [[consumer]]   # ran once
    got = client.get('/allocations/%s' % consumer).json()
    assert got['allocations'][rp]['resources'] == {'VCPU': 1}
    assert got['consumer_generation'] == 1            # one write, not two
    assert client.get('/resource_providers/%s/usages' % rp).json()['usages'] == {'VCPU': 1}
    client.close()


def test_lost_reply_of_a_schedule_and_claim_answers_the_first_claim(replaying, lose_reply):
    """The bench's 503: POST /claims answers the claim it made, and claims nothing more."""
    from common import context as berth_context
    client = _client(replaying)
    ctx = berth_context.admin_context(replaying.db)
    host = claim_helpers.host(client, ctx, vcpu=4, name='only')
    consumer = claim_helpers.new_uuid()
    dropped = lose_reply('schedule_and_claim')
    resp = claim_helpers.claim(client, consumer=consumer, resources={'VCPU': 1})
    assert claim_helpers.placed_on(resp) == [[host]]
    assert len(dropped) == 1
    assert claim_helpers.usage(client, host)['VCPU'] == 1
    client.close()


def test_a_client_capped_below_1_8_does_not_replay(pinned, lose_reply):
    """Pinned to 1.7: no call id, no resend; the lost reply is a 503 as before 1.8."""
    from common import context as berth_context
    client = _client(pinned)
    ctx = berth_context.admin_context(pinned.db)
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})
    before = _replays('claim_resources')
    dropped = lose_reply('claim_resources')
    resp = alloc_helpers.put(client, alloc_helpers.new_uuid(), {rp: {'VCPU': 1}})
    assert resp.status_code == 503, resp.text
    assert 'did not answer in time' in resp.text
    assert dropped == [None]                          # sent without a call id
    assert _replays('claim_resources') == before
    # the write ran once, on the conductor, before its reply was lost
    assert client.get('/resource_providers/%s/usages' % rp).json()['usages'] == {'VCPU': 1}
    client.close()


def test_lost_reply_of_a_refused_claim_replays_the_typed_error(replaying, lose_reply,
                                                                claim_runs):
    """The replay raises the recorded error: the same 409, code and text as without loss.

    A re-run would answer the same 409, so the conductor's runs are counted:
    the claim ran once, the second attempt was answered from the ledger.
    """
    from common import context as berth_context
    client = _client(replaying)
    ctx = berth_context.admin_context(replaying.db)
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 2}})
    control = alloc_helpers.put(client, alloc_helpers.new_uuid(), {rp: {'VCPU': 5}})
    assert control.status_code == 409, control.text
    before = _replays('claim_resources')
    dropped = lose_reply('claim_resources')
    refused = alloc_helpers.new_uuid()
    resp = alloc_helpers.put(client, refused, {rp: {'VCPU': 5}})
    assert len(dropped) == 1
    assert [run for run in claim_runs if refused in run] == [[refused]]   # ran once
    assert _replays('claim_resources') == before + 1
    assert resp.status_code == 409, resp.text
    strip = lambda r: {k: v for k, v in r.json()['errors'][0].items()  # noqa: E731
                       if k != 'request_id'}
    assert strip(resp) == strip(control)
    assert client.get('/resource_providers/%s/usages' % rp).json()['usages'] == {'VCPU': 0}
    client.close()


def test_a_silent_conductor_is_a_503_after_a_few_attempts_not_a_busy_loop(short_budget):
    """The in-process driver times out at once when nobody listens: attempts are waited out."""
    from common import context as berth_context
    client = _client(short_budget)
    ctx = berth_context.admin_context(short_budget.db)
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})
    for conductor in short_budget.conductors:
        # still a ring member, but no longer taking messages
        conductor._server.stop()
        conductor._server.wait()
    before = _replays('claim_resources')
    resp = alloc_helpers.put(client, alloc_helpers.new_uuid(), {rp: {'VCPU': 1}})
    assert resp.status_code == 503, resp.text
    assert 'did not answer in time' in resp.text
    # rpc_timeout 2 s in attempts of 0.5 s: three replays, not thousands
    assert 1 <= _replays('claim_resources') - before <= 4
    client.close()


@pytest.fixture
def short_budget(tmp_path_factory, tmp_path):
    """Replaying, with a short budget (rpc_timeout 2 s)."""
    stack = _stack(tmp_path_factory, tmp_path, **{'conductor.rpc_timeout': 2})
    yield stack
    stack.stop()


def test_an_uncapped_client_writes_to_an_older_conductor_the_old_way(
        tmp_path_factory, tmp_path, monkeypatch):
    """A conductor at 1.7 refuses 1.8 before running anything; the client resends at 1.2."""
    import oslo_messaging as messaging

    from conductor import manager as manager_mod
    monkeypatch.setattr(manager_mod.ConductorManager, 'target',
                        messaging.Target(version='1.7'))
    stack = _stack(tmp_path_factory, tmp_path)
    try:
        from common import context as berth_context
        client = _client(stack)
        ctx = berth_context.admin_context(stack.db)
        rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})
        consumer = alloc_helpers.new_uuid()
        resp = alloc_helpers.put(client, consumer, {rp: {'VCPU': 1}})
        assert resp.status_code == 204, resp.text
        assert client.get('/allocations/%s' % consumer).json()['consumer_generation'] == 1
        owner = stack.conductor_api.ring.owner('anything')
        assert owner in stack.conductor_api._old_servers
        client.close()
    finally:
        stack.stop()
