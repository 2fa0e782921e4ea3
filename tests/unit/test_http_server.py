"""The threaded HTTP server: its listening socket queues a burst of connections."""

import shutil
import subprocess
import time

import pytest

from api import server


def _app(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'ok']


@pytest.mark.skipif(shutil.which('ss') is None, reason='ss (iproute2) is not installed')
def test_listen_backlog_takes_a_burst_of_clients():
    """cheroot's default backlog of 5 reset clients that connected at once."""
    http = server.HttpServer(_app, '127.0.0.1', 0, threads=2, name='backlog-test')
    host, port = http.start()
    try:
        out = subprocess.run(['ss', '-Hltn', 'sport = :%d' % port], check=True,
                             capture_output=True, text=True).stdout.split()
        # State Recv-Q Send-Q Local Peer: a listener's Send-Q is its backlog
        backlog = int(out[2])
        with open('/proc/sys/net/core/somaxconn') as f:
            ceiling = int(f.read())
        assert backlog == min(server.LISTEN_BACKLOG, ceiling)
        assert backlog > 5
    finally:
        http.stop()


def _held_request(name, headers):
    """(server, client socket, entered, release): a GET in flight, held until ``release``."""
    import socket
    import threading

    entered, release = threading.Event(), threading.Event()

    def held(environ, start_response):
        entered.set()
        release.wait(120)
        start_response('200 OK', headers)
        return [b'done']

    http = server.HttpServer(held, '127.0.0.1', 0, threads=2, name=name)
    host, port = http.start()
    client = socket.create_connection((host, port), timeout=120)
    client.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    return http, client, entered, release


def test_stop_leaves_a_request_that_outlasts_the_drain():
    """A stop waits STOP_DRAIN for requests in flight, not for as long as one runs.

    cheroot's own stop waits for every worker thread with no bound once its
    shutdown timeout has passed: a stop during a minute-long answer took a
    minute.  The request here is held (an Event) until the stop has returned.
    """
    import socket
    import threading

    http, client, entered, release = _held_request(
        'drain-test', [('Content-Type', 'text/plain')])
    host, port = http.address
    try:
        assert entered.wait(60), 'the request never reached the application'
        result = {}
        stopper = threading.Thread(target=lambda: result.update(done=http.stop(drain=0.1)),
                                   daemon=True)
        stopper.start()
        stopper.join(60)
        assert not stopper.is_alive(), 'stop() waited for the request in flight'
        assert result['done'] is False
        assert not release.is_set()
        # the listening socket closes meanwhile (cheroot's selector loop
        # first ends, within about half a second)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection((host, port), timeout=10).close()
            except ConnectionRefusedError:
                break
            assert time.monotonic() < deadline, 'still accepting 60 s after the stop'
            time.sleep(0.05)
        assert not release.is_set()
    finally:
        release.set()
        client.close()


def test_stop_lets_a_request_in_flight_finish_within_the_drain():
    http, client, entered, release = _held_request(
        'drain-ok', [('Content-Type', 'text/plain'), ('Content-Length', '4')])
    try:
        assert entered.wait(60), 'the request never reached the application'
        http.begin_stop()
        release.set()
        assert http.stop(drain=60) is True
        answer = b''
        while not answer.endswith(b'done'):
            more = client.recv(4096)
            assert more, 'closed before the answer: %r' % answer
            answer += more
        assert answer.startswith(b'HTTP/1.1 200 ')
    finally:
        release.set()
        client.close()
