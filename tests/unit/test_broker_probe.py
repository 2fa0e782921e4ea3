"""common.broker_probe: which hosts it asks, and what a refused connection answers."""

import socket

import oslo_messaging as messaging

from common import broker_probe
from common.conf import builder


def _conf(url):
    conf = builder.build(config_files=[])
    messaging.TransportURL.parse(conf, 'fake://')      # registers transport_url
    conf.set_override('transport_url', url)
    return conf


def test_every_rabbit_host_is_asked_with_its_credentials():
    hosts = broker_probe._amqp_hosts(_conf('rabbit://u1:p1@h1:5673,u2:p2@h2/vh'))
    assert [(h['host'], h['userid'], h['password'], h['virtual_host']) for h in hosts] == [
        ('h1:5673', 'u1', 'p1', 'vh'), ('h2:5672', 'u2', 'p2', 'vh')]


def test_no_broker_no_probe():
    assert broker_probe.BrokerProbe(broker_probe._amqp_hosts(_conf('fake://'))
                                    ).reachable() is None


def test_a_closed_port_is_unreachable_at_once():
    with socket.socket() as s:          # a port nobody listens on
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    probe = broker_probe.BrokerProbe([{'host': '127.0.0.1:%d' % port, 'userid': 'guest',
                                       'password': 'guest', 'virtual_host': '/',
                                       'ssl': False}], timeout=1.0, ttl=0)
    assert probe.reachable() is False
