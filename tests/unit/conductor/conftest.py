"""Fixtures shared by the RPC client tests of this folder."""

import pytest

from common import rpc
from conductor.rpcapi import routing


class FakeRoots:
    """Every write's tree is 'root-1' (the real cache reads the database)."""

    def tree(self, ctx, providers, consumers=()):
        return 'root-1'

    def cached(self, providers):
        return 'root-1'

    def warm(self, ctx, provider_sets):
        pass


@pytest.fixture
def fake_roots(monkeypatch):
    """Writes routed as if every provider were in tree 'root-1'."""
    monkeypatch.setattr(routing, 'ROOTS', FakeRoots())


@pytest.fixture
def transport(conf):
    """The embedded (in-process) transport, cleaned up after the test."""
    t = rpc.get_transport(conf, url=rpc.EMBEDDED_TRANSPORT_URL)
    yield t
    t.cleanup()
