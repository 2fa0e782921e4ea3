"""Slow clients against the built-in server: whole-request deadlines for the
headers and for the body ([api] request_header_timeout, request_body_timeout)
answer 408 and close, so trickling clients cannot hold the server's threads.

The deadlines here are small (set in the test's config); the assertions are
on the outcome (408, closed, another client served), never on elapsed time.
"""

import json
import socket
import threading
import time
import urllib.parse

import pytest

from tests import fixtures

# each trickling client gives up after this many bytes; without the
# deadlines that is where the test notices the server never answered
TRICKLE_MAX = 600
TRICKLE_PAUSE = 0.1


@pytest.fixture
def slow_berth(tmp_path_factory, tmp_path):
    """Two server threads per API and deadlines of one second."""
    conf = fixtures.make_conf(tmp_path / 'state', **{
        'api.threads': 2, 'api.request_header_timeout': 1.0,
        'api.request_body_timeout': 1.0})
    fixtures.migrated_sqlite(tmp_path_factory.getbasetemp(), conf.state_path)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def _connect(url):
    parts = urllib.parse.urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=60)


def _read_to_close(sock):
    """Everything the server sends until it closes the connection."""
    answer = b''
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return answer
        answer += chunk


class Trickler(threading.Thread):
    """Sends ``head``, then one byte of ``drip`` at a time until the server
    answers or closes; records what the server sent and whether it closed."""

    def __init__(self, url, head, drip=b'a'):
        super().__init__(daemon=True)
        self.sock = _connect(url)
        self.head, self.drip = head, drip
        self.answer = None
        self.closed = False

    def run(self):
        self.sock.sendall(self.head)
        self.sock.setblocking(False)
        received = b''
        try:
            for _ in range(TRICKLE_MAX):
                try:
                    chunk = self.sock.recv(65536)
                except BlockingIOError:
                    chunk = None
                if chunk == b'':
                    self.closed = True
                    break
                if chunk:
                    received += chunk
                    continue
                try:
                    self.sock.send(self.drip)
                except OSError:     # reset: the server closed first
                    self.closed = True
                    break
                time.sleep(TRICKLE_PAUSE)
            if self.closed or received:
                self.sock.setblocking(True)
                self.sock.settimeout(30)
                try:
                    received += _read_to_close(self.sock)
                    self.closed = True
                except OSError:
                    pass
        finally:
            self.answer = received
            self.sock.close()


def _status(answer):
    assert answer.startswith(b'HTTP/1.'), answer[:200]
    return int(answer.split(b' ', 2)[1])


def _body(answer):
    return json.loads(answer.partition(b'\r\n\r\n')[2])


def test_trickled_headers_get_408_and_free_the_threads(slow_berth):
    """Two clients trickle header bytes into a two-thread server; both get
    408 and are closed, and a third client is then served."""
    url = slow_berth.baremetal_url
    slow = [Trickler(url, b'GET /v1/nodes HTTP/1.1\r\nHost: x\r\nX-Slow: ')
            for _ in range(2)]
    for client in slow:
        client.start()
    with _connect(url) as sock:
        sock.sendall(b'GET /v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
        answer = _read_to_close(sock)
    assert _status(answer) == 200, answer[:300]
    for client in slow:
        client.join(120)
        assert not client.is_alive()
        assert _status(client.answer) == 408, client.answer[:300]
        assert client.closed


def test_a_request_line_trickled_forever_is_408(slow_berth):
    client = Trickler(slow_berth.placement_url, b'GET /resource_providers')
    client.start()
    client.join(120)
    assert _status(client.answer) == 408, client.answer[:300]
    assert client.closed


@pytest.mark.parametrize('api, path, version', [
    ('placement', '/resource_providers', b'OpenStack-API-Version: placement latest'),
    ('baremetal', '/v1/nodes', b'X-OpenStack-Ironic-API-Version: 1.60'),
])
def test_a_trickled_body_is_408_in_the_api_format_and_stores_nothing(
        slow_berth, api, path, version):
    body = b'{"name": "slow", "driver": "fake-hardware", "description": "'
    head = (b'POST %s HTTP/1.1\r\nHost: x\r\nX-Auth-Token: admin\r\n'
            b'Content-Type: application/json\r\n%s\r\nContent-Length: 100000\r\n\r\n'
            % (path.encode(), version) + body)
    client = Trickler(getattr(slow_berth, api + '_url'), head)
    client.start()
    client.join(120)
    assert _status(client.answer) == 408, client.answer[:300]
    assert client.closed
    error = _body(client.answer)
    if api == 'placement':
        assert error['errors'][0]['status'] == 408
        assert error['errors'][0]['code'] == 'berth.request_timeout'
        rps = fixtures.PlacementClient(slow_berth.placement_url).get(
            '/resource_providers').json()['resource_providers']
        assert rps == []
    else:
        assert 'did not arrive in time' in json.loads(error['error_message'])['faultstring']
        nodes = fixtures.BaremetalClient(slow_berth.baremetal_url).get(
            '/v1/nodes').json()['nodes']
        assert nodes == []


def test_a_body_shorter_than_its_content_length_is_408_not_400(slow_berth):
    """The client stops sending mid-body and waits: 408 and closed (400 before)."""
    with _connect(slow_berth.placement_url) as sock:
        sock.sendall(b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
                     b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n'
                     b'OpenStack-API-Version: placement 1.23\r\n'
                     b'Content-Length: 30\r\n\r\n{"name": "x')
        answer = _read_to_close(sock)
    assert _status(answer) == 408, answer[:300]
    assert _body(answer)['errors'][0]['code'] == 'berth.request_timeout'


def test_a_prompt_client_on_the_same_server_is_unaffected(slow_berth):
    """Keep-alive: two requests on one connection, each within its deadline."""
    with _connect(slow_berth.baremetal_url) as sock:
        for _ in range(2):
            sock.sendall(b'GET /v1 HTTP/1.1\r\nHost: x\r\n\r\n')
            answer = b''
            while b'\r\n\r\n' not in answer:
                answer += sock.recv(65536)
            assert _status(answer) == 200
            head, _, rest = answer.partition(b'\r\n\r\n')
            length = int([line.split(b':')[1] for line in head.split(b'\r\n')
                          if line.lower().startswith(b'content-length')][0])
            while len(rest) < length:
                rest += sock.recv(65536)
