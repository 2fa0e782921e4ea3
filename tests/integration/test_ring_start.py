"""A conductor that starts while its coordination backend restarts waits for it.

Found by the chaos suite (tests/chaos): a conductor restarted while etcd was
restarting died at once with ``etcd3gw.exceptions.ConnectionFailedError``
and never came back.  Ring.start now retries for a while (START_RETRY_SECONDS),
then raises as before.
"""

import threading

from etcd3gw import exceptions as etcd3gw_exceptions
import pytest

from conductor import ring as conductor_ring
from tests import services
from tests.integration import conftest

pytestmark = conftest.MARKS


@pytest.fixture
def etcd_later(tmp_path):
    """An etcd whose ports are chosen but which is not started yet."""
    missing = services.Etcd.missing()
    if missing:
        reason = '!!! etcd is not installed (missing %s): SKIPPED !!!' % missing
        if conftest.REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
    server = services.Etcd(tmp_path)
    yield server
    server.stop()


def test_start_waits_for_a_backend_that_comes_back(conf, etcd_later):
    conf.set_override('backend_url', etcd_later.url(timeout=5), group='coordination')
    conf.set_override('watch_interval', 3600, group='coordination')
    ring = conductor_ring.Ring(conf, host='early')
    started, errors = [], []

    def start():
        try:
            started.append(ring.start())
        except Exception as exc:    # noqa: B902 - any error fails the assertion below
            errors.append(exc)

    thread = threading.Thread(target=start)
    thread.start()
    try:
        etcd_later.start()           # while the ring keeps trying
        thread.join(conductor_ring.START_RETRY_SECONDS + 30)
        assert errors == [] and started == [ring]
        ring.join({'host': 'early'})
        ring.poll()
        assert 'early' in ring.members()
    finally:
        ring.stop()


def test_start_gives_up_after_its_retry_time(conf):
    conf.set_override('backend_url', 'etcd3+http://127.0.0.1:%d?timeout=5'
                      % services.free_port(), group='coordination')
    ring = conductor_ring.Ring(conf, host='never')
    attempts = []
    connect = ring._coord.start

    def counted(*args, **kwargs):
        attempts.append(1)
        return connect(*args, **kwargs)

    ring._coord.start = counted
    # a refused connection fails at once: backoff 0.5, 1, 2 s fits 3 tries in 3 s
    with pytest.raises(etcd3gw_exceptions.ConnectionFailedError):
        ring.start(retry_for=3)
    assert len(attempts) >= 2, attempts
