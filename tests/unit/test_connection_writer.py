"""api.connection_writer.HeldWriter: a response's headers leave with its body's first bytes."""

import http.client
import socket
import time

import pytest

from api import connection_writer, server


class _Socket:
    """The writer's edge: what each sendall was given."""

    def __init__(self):
        self.sent = []

    def sendall(self, data):
        self.sent.append(bytes(data))


def _writer():
    sock = _Socket()
    return sock, connection_writer.HeldWriter(sock)


def test_a_write_is_one_send_of_its_bytes():
    sock, writer = _writer()
    assert writer.write(b'abc') == 3
    assert writer.write(memoryview(b'de')) == 2
    assert sock.sent == [b'abc', b'de']
    assert writer.bytes_written == 5


def test_held_headers_go_out_with_the_first_body_bytes():
    sock, writer = _writer()
    writer.hold_next()
    assert writer.write(b'HTTP/1.1 200 OK\r\n\r\n') == 19      # counted as written
    assert sock.sent == []
    writer.write(b'{}')
    writer.write(b'more')
    assert sock.sent == [b'HTTP/1.1 200 OK\r\n\r\n{}', b'more']
    assert writer.bytes_written == 25


def test_held_headers_without_a_body_leave_on_release():
    sock, writer = _writer()
    writer.hold_next()
    writer.write(b'HTTP/1.1 204 No Content\r\n\r\n')
    writer.release()
    writer.release()                                  # nothing left: no empty send
    writer.flush()
    assert sock.sent == [b'HTTP/1.1 204 No Content\r\n\r\n']


def test_a_closed_writer_refuses_writes_and_drops_what_it_held():
    sock, writer = _writer()
    writer.hold_next()
    writer.write(b'headers')
    writer.close()
    writer.release()
    assert sock.sent == []
    with pytest.raises(ValueError):
        writer.write(b'x')


def test_a_send_error_reaches_the_caller():
    class Broken:
        def sendall(self, data):
            raise BrokenPipeError(32, 'Broken pipe')

    writer = connection_writer.HeldWriter(Broken())
    writer.hold_next()
    writer.write(b'headers')
    with pytest.raises(BrokenPipeError):
        writer.write(b'body')


class _Recorded(connection_writer.HeldWriter):
    sends = []

    def _send(self, data):
        self.sends.append(bytes(data))
        super()._send(data)


def _app(environ, start_response):
    if environ['PATH_INFO'] == '/empty':
        start_response('204 No Content', [])
        return []
    if environ['PATH_INFO'] == '/pieces':
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', '9')])
        return [b'[1,', b'2,', b'3]  ']
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', '2')])
    return [b'{}']


@pytest.fixture
def served(monkeypatch):
    monkeypatch.setattr(connection_writer, 'HeldWriter', _Recorded)
    monkeypatch.setattr(_Recorded, 'sends', [])
    httpd = server.HttpServer(_app, '127.0.0.1', 0, threads=2, name='writer-test')
    host, port = httpd.start()
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        yield conn, _Recorded.sends
    finally:
        conn.close()
        httpd.stop()


def _get(conn, path, method='GET'):
    conn.request(method, path)
    resp = conn.getresponse()
    return resp.status, resp.read()


def test_a_small_answer_is_one_send(served):
    conn, sends = served
    assert _get(conn, '/') == (200, b'{}')
    assert len(sends) == 1
    assert sends[0].startswith(b'HTTP/1.1 200 OK\r\n') and sends[0].endswith(b'\r\n\r\n{}')


def test_an_answer_in_pieces_sends_its_headers_with_the_first(served):
    conn, sends = served
    assert _get(conn, '/pieces') == (200, b'[1,2,3]  ')
    assert [s[-3:] for s in sends] == [b'[1,', b'2,', b'3]  '[-3:]]
    assert sends[0].startswith(b'HTTP/1.1 200 OK\r\n')


@pytest.mark.parametrize('method', ['GET', 'HEAD'])
def test_an_answer_without_body_still_sends_its_headers(served, method):
    conn, sends = served
    assert _get(conn, '/empty', method) == (204, b'')
    assert _get(conn, '/', method)[0] == 200       # the connection still works after it
    assert sends[0].startswith(b'HTTP/1.1 204 No Content\r\n')


def test_keep_alive_answers_in_a_row_each_complete(served):
    conn, sends = served
    for _ in range(20):
        assert _get(conn, '/') == (200, b'{}')
    assert len(sends) == 20


def test_a_client_gone_before_the_answer_does_not_stop_the_server(served):
    conn, sends = served
    host, port = conn.host, conn.port
    raw = socket.create_connection((host, port), timeout=10)
    raw.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    raw.close()
    deadline = time.monotonic() + 30     # its worker writes to the closed peer
    while not sends:
        assert time.monotonic() < deadline, 'the gone client was never answered'
        time.sleep(0.01)
    assert _get(conn, '/') == (200, b'{}')
    assert len(sends) == 2
