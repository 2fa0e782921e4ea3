"""The threaded HTTP server: its listening socket queues a burst of connections."""

import shutil
import subprocess

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
