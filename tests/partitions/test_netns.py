"""The namespaced test network itself: a host joining never moves the servers' address."""

import subprocess

import pytest

from tests import netns
from tests.partitions import conftest

pytestmark = conftest.MARKS


@pytest.fixture
def network():
    reason = netns.unavailable_reason()
    if reason:
        text = '!!! netns SKIPPED: %s !!!' % reason
        if conftest.REQUIRE:
            pytest.fail(text + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(text)
    net = netns.Network().create()
    yield net
    net.destroy()


def _mac(device):
    out = subprocess.run(['ip', '-o', 'link', 'show', device], capture_output=True,
                         text=True, check=True).stdout
    return out.split('link/ether ')[1].split()[0]


def test_a_port_joining_the_bridge_keeps_its_address(network):
    """A bridge left to itself takes its lowest port address; the hosts' ARP
    entries for every server would then go stale at once (the partition tier
    saw a minute of silence when a conductor host was added)."""
    network.server_address()
    network.add_host('a')
    before = _mac(network.bridge)
    low = network.prefix + 'lo'
    subprocess.run(['ip', 'link', 'add', low, 'address', '00:00:5e:00:00:01', 'type',
                    'veth', 'peer', 'name', low + 'p'], check=True)
    try:
        subprocess.run(['ip', 'link', 'set', low, 'master', network.bridge], check=True)
        subprocess.run(['ip', 'link', 'set', low, 'up'], check=True)
        assert _mac(network.bridge) == before
    finally:
        subprocess.run(['ip', 'link', 'del', low], capture_output=True)
