"""The built-in HTTP server's limits, over a raw socket against a running berth."""

import socket
import urllib.parse

import pytest

from api import server

BODY = b'{"driver": "fake-hardware"}'


def _send(url, data, read_timeout=30):
    """Send raw ``data``; the status line's code and the whole answer read."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=read_timeout) as s:
        s.sendall(data)
        answer = b''
        while b'\r\n\r\n' not in answer:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    status = int(answer.split(b' ', 2)[1]) if answer.startswith(b'HTTP/') else None
    return status, answer


def _post(extra_headers, body=BODY):
    return (b'POST /v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
            b'X-OpenStack-Ironic-API-Version: 1.60\r\n' + extra_headers
            + b'\r\n' + body)


def test_a_well_formed_request_still_works(berth):
    status, _ = _send(berth.baremetal_url, _post(
        b'Content-Length: %d\r\nConnection: close\r\n' % len(BODY)))
    assert status == 201


def test_headers_over_the_limit_are_431(berth):
    big = b'X-Big: ' + b'a' * server.MAX_HEADER_BYTES + b'\r\n'
    status, _ = _send(berth.baremetal_url, _post(big + b'Content-Length: 0\r\n'))
    assert status == 431


def test_too_many_header_fields_are_431(berth):
    many = b''.join(b'X-H%d: 1\r\n' % i for i in range(server.MAX_HEADERS + 1))
    status, _ = _send(berth.baremetal_url, _post(many + b'Content-Length: 0\r\n'))
    assert status == 431


def test_a_request_line_over_the_limit_is_414(berth):
    line = b'GET /v1/nodes?x=' + b'a' * server.MAX_HEADER_BYTES + b' HTTP/1.1\r\n\r\n'
    status, _ = _send(berth.baremetal_url, line)
    assert status == 414


@pytest.mark.parametrize('headers', [
    b'Content-Length: %d\r\nTransfer-Encoding: chunked\r\n' % len(BODY),
    b'Content-Length: %d\r\nContent-Length: 5\r\n' % len(BODY),
    b'Content-Length: -1\r\n',
    b'Content-Length: +27\r\n',
    b'Content-Length: abc\r\n',
])
def test_ambiguous_framing_is_400_and_stores_nothing(berth, bm, headers):
    status, _ = _send(berth.baremetal_url, _post(headers))
    assert status == 400
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_a_content_length_that_is_not_a_number_gets_placements_words(berth, client):
    """Upstream's gabbit (basic-http.yaml, 'bad content length not int'), sent by hand."""
    body = b'{"uuid": "ce13d7f1-9988-4dfd-8e16-ce071802eb36"}'
    status, answer = _send(berth.placement_url, (
        b'POST /resource_providers HTTP/1.1\r\nHost: x\r\nX-Auth-Token: admin\r\n'
        b'Content-Type: application/json\r\nContent-Length: hi mom\r\n\r\n' + body))
    assert status == 400, answer
    assert b'content-length header must be an integer' in answer
    assert client.get('/resource_providers').json()['resource_providers'] == []


@pytest.mark.parametrize('chunks', [b'zz\r\nabc\r\n0\r\n\r\n',
                                    b'3\r\nabcdef\r\n0\r\n\r\n'])
def test_bad_chunks_are_400_never_500(berth, bm, chunks):
    status, answer = _send(berth.baremetal_url,
                           _post(b'Transfer-Encoding: chunked\r\n', chunks))
    assert status == 400, answer
    assert bm.get('/v1/nodes').json()['nodes'] == []


def test_413_comes_before_100_continue(berth):
    size = berth.conf.api.max_request_body_size + 1
    status, answer = _send(berth.placement_url, (
        b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
        b'Content-Type: application/json\r\nExpect: 100-continue\r\n'
        b'X-Auth-Token: admin\r\n'
        b'Content-Length: %d\r\n\r\n' % size))
    assert status == 413, answer
    assert b'100 Continue' not in answer


def test_a_small_body_gets_100_continue(berth):
    status, answer = _send(berth.baremetal_url, _post(
        b'Expect: 100-continue\r\nContent-Length: %d\r\nConnection: close\r\n'
        % len(BODY)))
    assert status == 100, answer


def test_the_server_sets_its_limits():
    http = server.HttpServer(lambda e, s: [], '127.0.0.1', 0, threads=1,
                             max_body_size=2048)
    assert http._server.max_request_header_size == server.MAX_HEADER_BYTES
    assert http._server.max_body_size == 2048
    assert http._server.timeout == server.READ_TIMEOUT
    assert http._server.header_timeout == server.HEADER_TIMEOUT
    assert http._server.body_timeout == server.BODY_TIMEOUT


def test_a_chunk_declared_over_the_limit_is_413_without_reading_it(berth, bm):
    status, answer = _send(berth.baremetal_url, _post(
        b'Transfer-Encoding: chunked\r\n', b'fffffff\r\nabc'))
    assert status == 413, answer
    assert bm.get('/v1/nodes').json()['nodes'] == []
