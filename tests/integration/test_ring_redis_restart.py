"""Conductors come back into the ring after Redis restarts empty.

Found by the chaos suite (``bench/chaos.py --tooz redis``): Redis without
persistence forgets the group itself, every ring read then failed with
GroupNotCreated and no conductor ever rejoined (503 "no conductor is alive"
until restarted).  A member now recreates the group and joins again.
"""

import pytest

from conductor import ring as conductor_ring
from tests import services
from tests.integration import conftest

pytestmark = conftest.MARKS


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test only (it is restarted)."""
    missing = services.Redis.missing()
    if missing:
        reason = '!!! redis is not installed (missing %s): SKIPPED !!!' % missing
        if conftest.REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
    server = services.Redis(tmp_path).start()
    yield server
    server.stop()


def test_members_rejoin_a_redis_that_forgot_the_group(conf, own_redis):
    conf.set_override('backend_url', own_redis.url(timeout=5), group='coordination')
    conf.set_override('watch_interval', 3600, group='coordination')   # poll by hand
    member = conductor_ring.Ring(conf, host='survivor').start()
    reader = conductor_ring.Ring(conf).start()
    try:
        member.join({'host': 'survivor'})
        reader.refresh()
        assert reader.members() == {'survivor'}
        own_redis.stop_server()
        own_redis.start()                # empty: no group, no members
        member.refresh()                 # recreates the group and joins again
        fresh = conductor_ring.Ring(conf).start()   # e.g. an API worker forked now
        try:
            assert fresh.members() == {'survivor'}
            assert fresh.owner('any-key') == 'survivor'
        finally:
            fresh.stop()
    finally:
        reader.stop()
        member.stop()
