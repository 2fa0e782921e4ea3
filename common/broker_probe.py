"""Whether the message broker answers now, asked by this process (for /status).

An API process learns that the broker went away only when it next sends
something: its reply queue, set up once, stays "ready" through an outage,
and a status page that judged by it said nothing for the whole outage.  So
the page asks the broker itself: one AMQP handshake (connect, log in, open
the virtual host, close) per configured RabbitMQ host, each bounded by
``TIMEOUT`` seconds, the first that answers is enough.  The answer is kept
``TTL`` seconds so a page polled by several operators costs one handshake.

Per process and on demand: every API process (a forked worker too) asks
for itself when its page is read, with no thread to keep alive across a
fork.  A transport that is not RabbitMQ (``fake://`` of ``berth serve``) is
never probed: :meth:`BrokerProbe.reachable` answers None.
"""

import logging
import os
import threading
import time
from typing import Any

import amqp
import oslo_messaging as messaging

LOG = logging.getLogger('berth.' + __name__)

# seconds one handshake may take, and seconds an answer is kept
TIMEOUT = 1.5
TTL = 2.0

_PROBES: dict[str, 'BrokerProbe'] = {}
_PROBES_LOCK = threading.Lock()


def _after_fork():
    global _PROBES_LOCK
    _PROBES_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_after_fork)


def _amqp_hosts(conf):
    """``[dict]`` of amqp.Connection arguments, one per RabbitMQ host of the transport URL."""
    if not conf.transport_url:
        return []
    url = messaging.TransportURL.parse(conf, conf.transport_url)
    if not url.transport.startswith('rabbit') or not url.hosts:
        return []
    ssl: dict[str, Any] | bool = False
    rabbit = getattr(conf, 'oslo_messaging_rabbit', None)
    if rabbit is not None and rabbit.ssl:
        ssl = ({'ca_certs': rabbit.ssl_ca_file, 'cert_reqs': 2}
               if rabbit.ssl_ca_file else True)
    found = []
    for host in url.hosts:
        hostname = host.hostname or 'localhost'
        if ':' in hostname:                      # an IPv6 address
            hostname = '[%s]' % hostname
        found.append({'host': '%s:%d' % (hostname, host.port or 5672),
                      'userid': host.username or 'guest',
                      'password': host.password or 'guest',
                      'virtual_host': url.virtual_host or '/', 'ssl': ssl})
    return found


class BrokerProbe:
    """A bounded, cached AMQP handshake with the broker of one transport URL."""

    def __init__(self, hosts, timeout=TIMEOUT, ttl=TTL):
        self._hosts = hosts
        self._timeout = timeout
        self._ttl = ttl
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._answer: bool | None = None
        self._at = 0.0

    def reachable(self) -> bool | None:
        """True/False: the broker answered / did not, at most ``ttl`` s ago; None: no broker."""
        if not self._hosts:
            return None
        if self._pid != os.getpid():            # a forked worker: nothing inherited counts
            self._lock, self._pid, self._at = threading.Lock(), os.getpid(), 0.0
        with self._lock:
            if time.monotonic() - self._at > self._ttl:
                self._answer = any(self._handshake(host) for host in self._hosts)
                self._at = time.monotonic()
            return self._answer

    def _handshake(self, host):
        """One connect, login and open of the virtual host, no retry; whether it worked."""
        conn = amqp.Connection(connect_timeout=self._timeout, read_timeout=self._timeout,
                               write_timeout=self._timeout, heartbeat=0, **host)
        try:
            conn.connect()
            return True
        except Exception as exc:        # refused, timed out, refused login: all "not now"
            LOG.debug('The message broker at %s did not answer a probe: %s',
                      host['host'], exc)
            return False
        finally:
            try:
                conn.collect() if not conn.connected else conn.close()
            except Exception as exc:    # a half-open connection: nothing more to undo
                LOG.debug('Closing a broker probe: %s', exc)


def for_conf(conf) -> BrokerProbe:
    """The process's probe of ``conf``'s broker (one per transport URL)."""
    key = conf.transport_url or ''
    with _PROBES_LOCK:
        probe = _PROBES.get(key)
        if probe is None:
            probe = _PROBES[key] = BrokerProbe(_amqp_hosts(conf))
        return probe
