"""conductor.ring on the production tooz backends (Redis and etcd), in process."""

import time

import pytest

from conductor import ring as conductor_ring
from tests.integration import conftest

pytestmark = conftest.MARKS


@pytest.fixture(params=['redis', 'etcd'])
def backend_url(request):
    server = request.getfixturevalue(request.param)
    return server.url(timeout=5)


def test_join_leave_and_a_silent_member_expires(conf, backend_url):
    conf.set_override('backend_url', backend_url, group='coordination')
    conf.set_override('watch_interval', 3600, group='coordination')   # poll by hand
    a = conductor_ring.Ring(conf, host='ring-a').start()
    b = conductor_ring.Ring(conf, host='ring-b').start()
    reader = conductor_ring.Ring(conf).start()
    try:
        a.join({'host': 'ring-a'})
        b.join({'host': 'ring-b'})
        reader.poll()
        assert reader.members() >= {'ring-a', 'ring-b'}
        owners = {reader.owner('k%d' % i) for i in range(50)}
        assert owners == {'ring-a', 'ring-b'}
        b.leave()
        reader.poll()
        assert 'ring-b' not in reader.members()
        # a member whose heart stops (like kill -9) expires after the timeout
        a._coord.heart.stop()
        a._coord.heart.wait()
        assert _poll_until(reader, lambda: 'ring-a' not in reader.members())
        assert a.is_alive('ring-a')        # ... but never to itself
    finally:
        for ring in (reader, b, a):
            ring.stop()


def _poll_until(ring, predicate, attempts=300):
    for _ in range(attempts):
        ring.poll()
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_heartbeats_reach_a_reader(conf, backend_url):
    """A conductor stamps its capabilities on every refresh; a reader sees the stamp."""
    conf.set_override('backend_url', backend_url, group='coordination')
    conf.set_override('watch_interval', 3600, group='coordination')   # refresh by hand
    member = conductor_ring.Ring(conf, host='ring-hb').start()
    reader = conductor_ring.Ring(conf).start()
    try:
        member.join({'rpc_api_version': '1.3'})
        reader.refresh()
        [first] = [m for m in reader.describe() if m['host'] == 'ring-hb']
        caps = first['capabilities']
        assert caps['rpc_api_version'] == '1.3'
        assert caps['joined_at'] <= caps['heartbeat_at'] <= time.time()
        time.sleep(0.05)
        member.refresh()
        [again] = [m for m in reader.describe() if m['host'] == 'ring-hb']
        assert again['capabilities']['heartbeat_at'] > caps['heartbeat_at']
    finally:
        reader.stop()
        member.stop()
