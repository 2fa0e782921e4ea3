"""bench/node_allocations.py: how its clients wait for an allocation (--client)."""

import pytest

from bench import node_allocations as bench


class _FakeClient:
    """Answers the POST with ``first`` state, then every GET with ``active``."""

    def __init__(self, first):
        self.first = first
        self.calls = []

    def call(self, method, path, body=None, extra_headers=None):
        self.calls.append(method)
        if method == 'POST':
            self.headers = extra_headers
        state = self.first if method == 'POST' else 'active'
        return (201 if method == 'POST' else 200), {
            'uuid': 'u', 'state': state, 'node_uuid': 'n'}


@pytest.fixture
def client_mode(monkeypatch):
    def set_mode(mode):
        monkeypatch.setitem(bench.POLL, 'client', mode)
        monkeypatch.setitem(bench.POLL, 'first', 0)
        monkeypatch.setitem(bench.POLL, 'every', 0)
    return set_mode


@pytest.mark.parametrize('mode, first, calls', [
    ('sdk', 'active', ['POST']),                  # openstacksdk: nothing to wait for
    ('sdk', 'allocating', ['POST', 'GET']),
    ('osc', 'active', ['POST', 'GET']),           # python-ironicclient: a GET always
    ('osc', 'allocating', ['POST', 'GET']),
])
def test_a_client_waits_as_its_library_does(client_mode, mode, first, calls):
    client_mode(mode)
    client = _FakeClient(first)
    result = bench._one(client)
    assert client.calls == calls
    assert result['state'] == 'active' and result['node'] == 'n'


def test_each_post_asks_for_the_wait_of_the_option(monkeypatch):
    import argparse
    parser = argparse.ArgumentParser()
    bench.add_poll_args(parser)
    monkeypatch.setattr(bench, 'POLL', dict(bench.POLL))
    bench.set_poll(parser.parse_args([]))
    assert bench.POLL['wait'] == 3.0        # what the recorded runs used
    bench.set_poll(parser.parse_args(['--wait', '0']))
    monkeypatch.setitem(bench.POLL, 'first', 0)
    monkeypatch.setitem(bench.POLL, 'every', 0)
    client = _FakeClient('allocating')
    bench._one(client)
    assert client.headers == {'Berth-Allocation-Wait': '0.0'}


def test_the_option_sets_the_mode():
    import argparse
    parser = argparse.ArgumentParser()
    bench.add_poll_args(parser)
    saved = dict(bench.POLL)
    try:
        bench.set_poll(parser.parse_args(['--client', 'osc']))
        assert bench.POLL['client'] == 'osc'
        bench.set_poll(parser.parse_args([]))
        assert bench.POLL['client'] == 'sdk'
    finally:
        bench.POLL.update(saved)
