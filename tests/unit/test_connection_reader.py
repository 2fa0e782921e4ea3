"""api.connection_reader.DeadlineReader: cheroot's reader semantics over one buffer."""

import socket
import time

import pytest

from api import connection_reader


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    a.settimeout(5)
    yield a, b
    a.close()
    b.close()


def _reader(sock, bufsize=16, timeout=5):
    return connection_reader.DeadlineReader(sock, bufsize, timeout)


def test_lines_then_body_across_small_reads(pair):
    a, b = pair
    b.sendall(b'PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 40\r\n\r\n' + b'y' * 40
              + b'GET /next HTTP/1.1\r\n')
    r = _reader(a)
    assert r.readline() == b'PUT /x HTTP/1.1\r\n'
    assert list(iter(r.readline, b'\r\n')) == [b'Host: h\r\n', b'Content-Length: 40\r\n']
    assert r.read(40) == b'y' * 40
    assert r.bytes_read == 40
    assert r.readline(5) == b'GET /'      # at most size bytes
    assert not r.has_data()               # a part of a header block: not a request yet
    assert r.readline(256) == b'next HTTP/1.1\r\n'
    assert not r.has_data()


def test_read_waits_for_the_whole_size_and_stops_at_the_end(pair):
    a, b = pair
    r = _reader(a)
    b.sendall(b'abc')
    b.sendall(b'defgh')
    assert r.read(6) == b'abcdef'
    assert r.read(0) == b''
    b.shutdown(socket.SHUT_WR)
    assert r.read(10) == b'gh'            # fewer at the end of the stream
    assert r.readline() == b''
    assert r.read() == b''


def test_a_line_without_newline_ends_at_the_end_of_the_stream(pair):
    a, b = pair
    b.sendall(b'partial')
    b.shutdown(socket.SHUT_WR)
    r = _reader(a)
    assert r.readline() == b'partial'
    assert list(r) == []


def test_readlines_and_iteration(pair):
    a, b = pair
    b.sendall(b'1\n2\n3\n')
    b.shutdown(socket.SHUT_WR)
    r = _reader(a)
    assert next(r) == b'1\n'
    assert r.readlines() == [b'2\n', b'3\n']


def test_a_passed_deadline_times_out_and_keeps_what_was_read(pair):
    a, b = pair
    r = _reader(a, timeout=5)
    b.sendall(b'GET / HT')
    r.start_deadline(0.2)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match='timed out'):
        r.readline()
    assert time.monotonic() - t0 < 4          # the deadline, not the read timeout
    assert r.timed_out
    assert a.gettimeout() == 5                # restored
    r.start_deadline(None)
    b.sendall(b'TP/1.1\r\n')
    assert r.readline() == b'GET / HTTP/1.1\r\n'


def test_a_deadline_already_passed_raises_before_reading(pair):
    a, b = pair
    r = _reader(a)
    b.sendall(b'x\n')
    r.start_deadline(-1)
    with pytest.raises(TimeoutError):
        r.readline()
    assert r.timed_out


def test_the_read_timeout_without_deadline_is_not_a_deadline_timeout(pair):
    a, _b = pair
    r = _reader(a, timeout=0.1)
    a.settimeout(0.1)
    with pytest.raises(TimeoutError):
        r.read(1)
    assert not r.timed_out


def test_a_closed_reader_refuses_reads(pair):
    a, b = pair
    b.sendall(b'x\n')
    r = _reader(a)
    r.close()
    assert r.closed
    with pytest.raises(ValueError):
        r.readline()
