"""Metrics counted where things happen: rejections, RPC timeouts, claim retries."""

import socket
import threading

import oslo_messaging as messaging
import pytest
import requests

from common import exception, metrics, rpc, version
from conductor import workers as conductor_workers
from conductor.manager import claims
from tests.functional import metrics_helpers as mh
from tests.unit import test_claims


def _value(name, **labels):
    return mh.value(metrics.exposition()[0].decode(), name, **labels)


def test_rejections_and_queue_depth():
    workers = conductor_workers.Workers('metrics-w', 1)
    try:
        release = threading.Event()
        future = workers.spawn(release.wait)
        assert _value('berth_conductor_queue_depth', conductor='metrics-w') == 1
        with pytest.raises(exception.NoFreeWorker):
            with workers.slot():
                pass
        assert _value('berth_conductor_rejections_total', conductor='metrics-w') == 1
        release.set()
        future.result()
        assert workers.wait_idle(30)
        assert _value('berth_conductor_queue_depth', conductor='metrics-w') == 0
        assert _value('berth_conductor_worker_slots', conductor='metrics-w') == 1
    finally:
        workers.shutdown()


def test_rpc_timeouts_are_counted_by_method():
    before = _value('berth_rpc_timeouts_total', method='metrics_probe')
    with pytest.raises(exception.ServiceUnavailable):
        with rpc.translate_errors('c0', 'metrics_probe'):
            raise messaging.MessagingTimeout('no answer')
    assert _value('berth_rpc_timeouts_total', method='metrics_probe') == before + 1
    assert _value('berth_rpc_duration_seconds_count', method='metrics_probe') >= 1


def test_claim_retries_and_exhausted_conflicts():
    def always_racing(ctx, arg):
        raise test_claims._race()
    always_racing.__name__ = 'metrics_write'
    labels = dict(operation='metrics_write')
    with pytest.raises(exception.ConcurrentUpdate):
        claims.Claims(test_claims._Conf)._write(None, 'tree', always_racing, 'x')
    retries = test_claims._Conf.placement.allocation_conflict_retry_count
    assert _value('berth_claim_retries_total', **labels) == retries
    assert _value('berth_claim_conflicts_total', reason='retries_exhausted',
                  **labels) == 1
    assert _value('berth_claims_total', outcome='conflict', **labels) == 1


def _scrape_listener():
    """GET /metrics from a conductor listener on a free loopback port, then stop it."""
    server = metrics.start_listener('127.0.0.1', 0)
    try:
        return requests.get('http://127.0.0.1:%d/metrics' % server.server_port,
                            timeout=30)
    finally:
        server.shutdown()
        server.server_close()


def test_conductor_listener_on_a_free_loopback_port():
    resp = _scrape_listener()
    assert resp.status_code == 200
    assert '# TYPE berth_conductor_rejections_total counter' in resp.text


def test_build_info_carries_the_running_version():
    assert _value('berth_build_info', version=version.version_string()) == 1
    resp = _scrape_listener()
    assert 'berth_build_info{version="%s"} 1.0' % version.version_string() in resp.text


def _taken_port_before_a_free_one():
    """A socket bound on port P of loopback where P + 1 is free: (socket, P)."""
    for _ in range(50):
        held = socket.socket()
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(('127.0.0.1', 0))
        held.listen(1)
        port = held.getsockname()[1]
        probe = socket.socket()
        try:
            probe.bind(('127.0.0.1', port + 1))
            return held, port
        except OSError:
            held.close()
        finally:
            probe.close()
    pytest.fail('no port P with P + 1 free on loopback')


def test_a_conductor_takes_the_next_free_port_of_its_range():
    held, port = _taken_port_before_a_free_one()
    try:
        server = metrics.start_listener_in_range('127.0.0.1', port, 2)
        try:
            assert server.server_port == port + 1
            resp = requests.get('http://127.0.0.1:%d/metrics' % server.server_port,
                                timeout=30)
            assert resp.status_code == 200
        finally:
            server.shutdown()
            server.server_close()
    finally:
        held.close()


def test_a_range_with_every_port_taken_refuses_to_start():
    held, port = _taken_port_before_a_free_one()
    try:
        with pytest.raises(OSError, match=r'every metrics port of 127\.0\.0\.1:%d-%d'
                           % (port, port)):
            metrics.start_listener_in_range('127.0.0.1', port, 1)
    finally:
        held.close()
