"""Ambiguous framing is 400 and a closed connection (api.http_framing, api.server).

Each case is framing RFC 9112 says to refuse, sent over a raw socket with a
second request smuggled behind it: the answer is 400, the server closes
the connection (the smuggled request never runs), nothing is stored.  And a
client trickling its header block holds no server thread: as many such
clients as threads leave the server answering others.
"""

import socket
import threading
import time
import urllib.parse

import pytest

from tests import fixtures

BODY = b'{"driver": "fake-hardware"}'
SMUGGLED = (b'POST /v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
            b'Content-Length: %d\r\n\r\n%s' % (len(BODY), BODY))


def _connect(url, timeout=30):
    parts = urllib.parse.urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=timeout)


def _exchange(url, data):
    """Send ``data``; everything answered until the server closes (None: it did not)."""
    with _connect(url) as sock:
        sock.sendall(data)
        answer = b''
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return answer, False
            if not chunk:
                return answer, True
            answer += chunk


def _request(headers, body=BODY, line=b'POST /v1/nodes HTTP/1.1'):
    return (line + b'\r\nHost: x\r\nContent-Type: application/json\r\n'
            b'X-OpenStack-Ironic-API-Version: 1.60\r\n' + headers + b'\r\n' + body)


CL = b'Content-Length: %d\r\n' % len(BODY)
CHUNKED = b'%x\r\n%s\r\n0\r\n\r\n' % (len(BODY), BODY)

CASES = {
    'duplicate-content-length': (CL + CL, BODY),
    'content-length-list': (b'Content-Length: %d, %d\r\n' % (len(BODY), len(BODY)), BODY),
    'folded-content-length': (b'Content-Length: 0\r\nX-A: b\r\n %d\r\n' % len(BODY), BODY),
    'fold-replacing-content-length': (CL + b'X-A: b\r\n\tContent-Length: 0\r\n', BODY),
    'space-before-colon-te': (b'Transfer-Encoding : chunked\r\n', CHUNKED),
    'space-before-colon-cl': (b'Content-Length : %d\r\n' % len(BODY), BODY),
    'te-not-chunked': (b'Transfer-Encoding: xchunked\r\n', CHUNKED),
    'te-list': (b'Transfer-Encoding: chunked, identity\r\n', CHUNKED),
    'te-twice': (b'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n', CHUNKED),
    'space-in-name': (CL + b'X Bad: 1\r\n', BODY),
    'nul-in-value': (CL + b'X-A: a\x00b\r\n', BODY),
    'control-in-value': (CL + b'X-A: a\x01b\r\n', BODY),
    'empty-name': (CL + b': value\r\n', BODY),
    'host-twice': (CL + b'Host: y\r\n', BODY),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_ambiguous_framing_is_400_and_closes(berth, bm, case):
    headers, body = CASES[case]
    answer, closed = _exchange(berth.baremetal_url, _request(headers, body) + SMUGGLED)
    assert answer.startswith(b'HTTP/1.1 400 '), answer[:300]
    assert b' 201 ' not in answer               # the smuggled request never ran
    assert closed
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_transfer_encoding_on_http_1_0_is_400_and_closes(berth, bm):
    request = _request(b'Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n',
                       CHUNKED, line=b'POST /v1/nodes HTTP/1.0')
    answer, closed = _exchange(berth.baremetal_url, request + SMUGGLED)
    assert b' 400 ' in answer.split(b'\r\n', 1)[0], answer[:300]
    assert b' 201 ' not in answer and closed
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_well_formed_framing_still_works(berth, bm):
    for headers, body in ((CL, BODY), (b'Transfer-Encoding: chunked\r\n', CHUNKED),
                          (b'transfer-encoding: Chunked\r\n', CHUNKED)):
        answer, _ = _exchange(berth.baremetal_url,
                              _request(headers + b'Connection: close\r\n', body))
        assert answer.startswith(b'HTTP/1.1 201 '), answer[:300]
    assert len(bm.get('/v1/nodes').json()['nodes']) == 3


@pytest.fixture
def two_threads(tmp_path_factory, tmp_path):
    """Two server threads per API, and a header deadline far beyond the test."""
    conf = fixtures.make_conf(tmp_path / 'state', **{
        'api.threads': 2, 'api.request_header_timeout': 600.0})
    fixtures.migrated_sqlite(tmp_path_factory.getbasetemp(), conf.state_path)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def test_trickling_header_blocks_hold_no_thread(two_threads):
    """Twice as many tricklers as threads; a prompt client is still answered
    while every trickler is connected and mid-header."""
    url = two_threads.baremetal_url
    stop = threading.Event()
    socks = [_connect(url) for _ in range(4)]

    def trickle(sock):
        sock.sendall(b'GET /v1/nodes HTTP/1.1\r\nHost: x\r\nX-Slow: ')
        while not stop.is_set():
            try:
                sock.send(b'a')
            except OSError:
                return
            stop.wait(0.2)

    threads = [threading.Thread(target=trickle, args=(s,), daemon=True) for s in socks]
    for t in threads:
        t.start()
    try:
        time.sleep(0.5)          # let every trickler reach the server first
        for _ in range(3):
            with _connect(url, timeout=10) as sock:
                sock.sendall(b'GET /v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
                answer = sock.recv(65536)
            assert answer.startswith(b'HTTP/1.1 200 '), answer[:200]
        assert all(t.is_alive() for t in threads)     # still trickling, not refused
    finally:
        stop.set()
        for sock in socks:
            sock.close()
        for t in threads:
            t.join(10)
