"""The API's RPC client against in-process conductors (kombu memory transport)."""

import pytest

from common import context as berth_context
from common import exception
from tests import fixtures


@pytest.fixture
def trio(tmp_path_factory, tmp_path):
    """An embedded berth with three conductors, all in every ring."""
    conf = fixtures.make_conf(tmp_path / 'state', **{'conductor.embedded_conductors': 3,
                                                     'conductor.rpc_timeout': 2})
    fixtures.migrated_sqlite(tmp_path_factory.getbasetemp(), conf.state_path)
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
