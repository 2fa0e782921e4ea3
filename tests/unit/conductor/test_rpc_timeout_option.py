"""One RPC timeout: ``[conductor] rpc_timeout``, else ``[DEFAULT] rpc_response_timeout``.

The ConductorAPI's client and ``berth-manage status``'s ping read the same
option (moved out of test_rpcapi.py, which keeps the routing table).
"""

from conductor import rpcapi
from tests.unit.conductor.test_rpcapi import FakeRing


def test_rpc_timeout_unset_follows_rpc_response_timeout(conf, transport):
    assert conf.conductor.rpc_timeout is None
    assert rpcapi.ConductorAPI(conf, transport, FakeRing()).client.timeout == 60
    conf.set_override('rpc_response_timeout', 17)
    assert rpcapi.ConductorAPI(conf, transport, FakeRing()).client.timeout == 17


def test_rpc_timeout_set_wins_over_rpc_response_timeout(conf, transport):
    conf.set_override('rpc_response_timeout', 17)
    conf.set_override('rpc_timeout', 5, group='conductor')
    assert rpcapi.ConductorAPI(conf, transport, FakeRing()).client.timeout == 5


def test_manage_status_ping_uses_the_same_timeout(conf, transport, monkeypatch):
    from cli import manage_status
    from common import rpc as common_rpc
    seen, versions = [], []

    class Answering:
        def prepare(self, server, version):
            versions.append(version)
            return self

        def call(self, ctx, method):
            return {'pong': True}

    def get_client(transport, version, cap, timeout, retry):
        seen.append(timeout)
        return Answering()

    monkeypatch.setattr(common_rpc, 'get_transport', lambda conf: transport)
    monkeypatch.setattr(transport, 'cleanup', lambda: None)
    monkeypatch.setattr(common_rpc, 'get_client', get_client)
    conf.set_override('rpc_response_timeout', 7)
    manage_status._ping(conf, 'c-a')
    conf.set_override('rpc_timeout', 3, group='conductor')
    manage_status._ping(conf, 'c-a')
    conf.clear_override('rpc_timeout', group='conductor')
    conf.set_override('rpc_response_timeout', 600)
    manage_status._ping(conf, 'c-a')
    assert seen == [7, 3, manage_status.PING_BOUND]
    # 1.0, never the newest version: an older conductor (mid-upgrade) answers it
    assert versions == ['1.0'] * 3
