"""A write past its caller's deadline is dropped by the conductor, never committed (RPC 1.10).

An embedded berth on its in-process transport: the API's ConductorAPI
stamps the deadline, the conductor's door and its claim path enforce it.
"""

import threading
import time

import pytest

from common import context as berth_context
from common import deadline, exception, metrics
from conductor.rpcapi import payloads
from tests import fixtures
from tests.functional import claim_helpers as h

BOUND = 60      # seconds a step may take before the test fails (never reached)


@pytest.fixture
def stack(tmp_path_factory, tmp_path):
    conf = fixtures.make_conf(tmp_path / 'state', **{'conductor.rpc_timeout': 3,
                                                     'rpc.deadline_grace': 0})
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    berth = fixtures.start_embedded(conf)
    yield berth
    berth.stop()


@pytest.fixture
def client(stack):
    c = fixtures.PlacementClient(stack.placement_url, version='latest')
    yield c
    c.close()


def _consumer(rp):
    return payloads.ClaimConsumer(uuid=h.new_uuid(), allocations={rp: {'VCPU': 1}},
                                  project_id='p1', user_id='u1')


def _dropped(where):
    return metrics.RPC_EXPIRED.labels('claim_resources', where)._value.get()


def _nothing_written(client, rp, consumer):
    resp = client.get('/allocations/%s' % consumer.uuid)
    assert resp.status_code == 200, resp.text
    assert resp.json()['allocations'] == {}
    assert h.usage(client, rp).get('VCPU', 0) == 0


def _wait_for(predicate, what):
    give_up = time.monotonic() + BOUND
    while not predicate():
        assert time.monotonic() < give_up, 'gave up waiting for ' + what
        time.sleep(0.05)


def test_a_claim_past_its_deadline_is_dropped_at_dispatch(stack, client):
    rp = h.host(client, None)
    consumer = _consumer(rp)
    before = _dropped('dispatch')
    with deadline.bounded(-5), pytest.raises(exception.RequestExpired):
        stack.conductor_api.claim_resources(berth_context.admin_context(), [consumer])
    assert _dropped('dispatch') == before + 1
    _nothing_written(client, rp, consumer)
    # the same claim within its deadline is written
    stack.conductor_api.claim_resources(berth_context.admin_context(), [consumer])
    assert h.usage(client, rp)['VCPU'] == 1


def test_a_claim_that_reaches_its_deadline_before_commit_is_rolled_back(stack, client):
    rp = h.host(client, None)
    consumer = _consumer(rp)
    before = _dropped('commit')
    committer = stack.conductors[0].manager.claims.batches
    answers = []

    def claim():
        try:
            with deadline.bounded(1):
                stack.conductor_api.claim_resources(berth_context.admin_context(),
                                                    [consumer])
            answers.append('written')
        except exception.ServiceUnavailable as exc:
            answers.append(exc)

    # the claim is admitted, then waits for the group committer held here
    with committer._queues._lock:
        started = time.time()
        caller = threading.Thread(target=claim, daemon=True, name='claimer')
        caller.start()
        _wait_for(lambda: time.time() > started + 1.2, 'the deadline to pass')
    _wait_for(lambda: _dropped('commit') > before, 'the conductor to drop the claim')
    caller.join(BOUND)
    assert not caller.is_alive(), 'the caller never got an answer'
    assert len(answers) == 1 and isinstance(answers[0], exception.ServiceUnavailable)
    _nothing_written(client, rp, consumer)
