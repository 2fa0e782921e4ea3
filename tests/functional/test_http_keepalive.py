"""The API servers keep many idle keep-alive connections open (no reset on reuse)."""

import http.client
import urllib.parse


def test_many_keep_alive_clients_can_reuse_their_connections(berth):
    url = urllib.parse.urlsplit(berth.baremetal_url)
    conns = [http.client.HTTPConnection(url.hostname, url.port, timeout=30)
             for _ in range(24)]
    try:
        for _ in range(2):   # the second round reuses every idle connection
            for conn in conns:
                conn.request('GET', '/v1')
                resp = conn.getresponse()
                resp.read()
                assert resp.status == 200
                assert resp.getheader('connection', '').lower() != 'close'
    finally:
        for conn in conns:
            conn.close()
