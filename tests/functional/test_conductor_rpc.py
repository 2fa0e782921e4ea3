"""The API's RPC client against in-process conductors (the embedded in-process transport)."""

import threading

import pytest

from common import context as berth_context
from common import exception, rpc, rpc_inproc
from tests import fixtures
from tests.functional import alloc_helpers


@pytest.fixture
def trio(tmp_path_factory, tmp_path):
    """An embedded berth with three conductors, all in every ring.

    Its calls wait up to 10 s: CI's 2-core runner once kept a ping's reply
    past 2 s under the parallel pass's load.  No test here waits for the
    timeout itself (a stopped server's call fails at once: nobody listens).
    """
    conf = fixtures.make_conf(tmp_path / 'state', **{'conductor.embedded_conductors': 3,
                                                     'conductor.rpc_timeout': 10})
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    hosts = {c.host for c in stack.conductors}
    for ring in [stack.conductor_api.ring] + [c.ring for c in stack.conductors]:
        ring.refresh()
        assert ring.members() == hosts
    yield stack
    stack.stop()


def test_ping_reaches_the_ring_owner(trio):
    ctx = berth_context.admin_context()
    api = trio.conductor_api
    answered = set()
    for i in range(30):
        key = 'key-%d' % i
        reply = api.ping(ctx, key)
        assert reply['host'] == api.ring.owner(key)
        assert set(reply['members']) == {c.host for c in trio.conductors}
        answered.add(reply['host'])
    assert answered == {c.host for c in trio.conductors}


def test_embedded_default_is_one_conductor(berth):
    assert [c.host for c in berth.conductors] == ['%s-c0' % berth.conf.host]
    reply = berth.conductor_api.ping(berth_context.admin_context(), 'anything')
    assert reply['host'] == berth.conductors[0].host


def test_embedded_default_transport_is_in_process(berth):
    assert isinstance(berth.transport._driver, rpc_inproc.InProcessDriver)


def test_kombu_memory_transport_still_works_when_configured(tmp_path_factory, tmp_path):
    conf = fixtures.make_conf(tmp_path / 'state')
    rpc.register_opts(conf)
    conf.set_override('transport_url', 'kombu+memory:////')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    try:
        assert not isinstance(stack.transport._driver, rpc_inproc.InProcessDriver)
        reply = stack.conductor_api.ping(berth_context.admin_context(), 'k')
        assert reply['host'] == stack.conductors[0].host
    finally:
        stack.stop()


def test_pool_full_is_service_unavailable(trio):
    ctx = berth_context.admin_context()
    owner = trio.conductor_api.ring.owner('k')
    conductor = next(c for c in trio.conductors if c.host == owner)
    held = []
    try:
        for _ in range(conductor.workers.size):
            slot = conductor.workers.slot()
            slot.__enter__()
            held.append(slot)
        with pytest.raises(exception.NoFreeWorker) as err:
            trio.conductor_api.ping(ctx, 'k')
        assert owner in str(err.value)
    finally:
        for slot in held:
            slot.__exit__(None, None, None)
    assert trio.conductor_api.ping(ctx, 'k')['host'] == owner


def test_no_conductor_alive_is_service_unavailable(trio):
    for conductor in trio.conductors:
        conductor.stop(grace=0)
    trio.conductor_api.ring.refresh()      # what its next poll would do
    with pytest.raises(exception.ServiceUnavailable) as err:
        trio.conductor_api.ping(berth_context.admin_context(), 'k')
    assert 'no conductor is alive' in str(err.value)


def test_silent_conductor_times_out_as_service_unavailable(trio):
    owner = trio.conductor_api.ring.owner('k')
    conductor = next(c for c in trio.conductors if c.host == owner)
    # still a ring member, but no longer taking messages: the call times out
    conductor._server.stop()
    conductor._server.wait()
    with pytest.raises(exception.ServiceUnavailable) as err:
        trio.conductor_api.ping(berth_context.admin_context(), 'k')
    assert 'did not answer in time' in str(err.value)


# --- the same failures seen over HTTP: 503 berth.service_unavailable, nothing written ---

UNAVAILABLE = 'berth.service_unavailable'


@pytest.fixture
def claim(berth, client, ctx):
    """A provider with inventory, and a function that claims on it over HTTP."""
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})

    def put(consumer):
        return alloc_helpers.put(client, consumer, {rp: {'VCPU': 1}}, version='1.28')
    put.rp = rp
    return put


def _nothing_written(client, consumer, rp):
    assert client.get('/allocations/%s' % consumer).json()['allocations'] == {}
    assert client.get('/resource_providers/%s/usages' % rp).json()['usages'] == {'VCPU': 0}


def test_http_503_when_no_conductor_is_alive(berth, client, claim):
    for conductor in berth.conductors:
        conductor.stop(grace=0)
    berth.conductor_api.ring.refresh()
    consumer = alloc_helpers.new_uuid()
    detail = alloc_helpers.error(claim(consumer), 503, UNAVAILABLE)
    assert 'no conductor is alive' in detail
    _nothing_written(client, consumer, claim.rp)


def test_a_claim_that_finds_every_worker_busy_waits_for_one(berth, client, claim):
    # [conductor] admission_wait: a burst queues for a moment instead of 503
    workers = berth.conductors[0].workers
    workers.admission_wait = 60
    held = []
    for _ in range(workers.size):
        slot = workers.slot()
        slot.__enter__()
        held.append(slot)
    consumer = alloc_helpers.new_uuid()
    answer = []
    claiming = threading.Thread(target=lambda: answer.append(claim(consumer)),
                                daemon=True)
    try:
        claiming.start()
        claiming.join(0.5)
        assert answer == []             # waiting for a slot, not refused
    finally:
        for slot in held:
            slot.__exit__(None, None, None)
    claiming.join(60)
    assert answer[0].status_code == 204
    assert client.get('/allocations/%s' % consumer).json()['allocations'] != {}


def test_http_503_when_the_owner_has_no_free_worker(berth, client, claim):
    workers = berth.conductors[0].workers
    held = []
    try:
        for _ in range(workers.size):
            slot = workers.slot()
            slot.__enter__()
            held.append(slot)
        consumer = alloc_helpers.new_uuid()
        detail = alloc_helpers.error(claim(consumer), 503, UNAVAILABLE)
        assert 'no free worker' in detail
    finally:
        for slot in held:
            slot.__exit__(None, None, None)
    _nothing_written(client, consumer, claim.rp)
    assert claim(consumer).status_code == 204


@pytest.fixture
def impatient(tmp_path_factory, tmp_path):
    """An embedded berth whose API waits one second for a conductor."""
    conf = fixtures.make_conf(tmp_path / 'state', **{'conductor.rpc_timeout': 1})
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    client = fixtures.PlacementClient(stack.placement_url, version='latest')
    yield stack, client
    client.close()
    stack.stop()


def test_http_503_when_the_owner_does_not_answer(impatient):
    stack, client = impatient
    ctx = berth_context.admin_context(stack.db)
    rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})
    # still in the ring, but no longer taking messages
    server = stack.conductors[0]._server
    server.stop()
    server.wait()
    consumer = alloc_helpers.new_uuid()
    resp = alloc_helpers.put(client, consumer, {rp: {'VCPU': 1}})
    detail = alloc_helpers.error(resp, 503, UNAVAILABLE)
    assert 'did not answer in time' in detail
    _nothing_written(client, consumer, rp)


def test_503_has_no_code_before_1_23(berth, client, claim):
    for conductor in berth.conductors:
        conductor.stop(grace=0)
    berth.conductor_api.ring.refresh()
    rp = claim.rp
    resp = client.put('/allocations/%s' % alloc_helpers.new_uuid(), version='1.22',
                      json={'allocations': {rp: {'resources': {'VCPU': 1}}},
                            'project_id': 'p', 'user_id': 'u'})
    assert resp.status_code == 503
    assert 'code' not in resp.json()['errors'][0]
