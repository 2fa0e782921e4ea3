"""Where one node allocation's CPU goes in an embedded berth, layer by layer.

Issue 20 asks for >= 1,000 node allocations/s embedded (bench/node_allocations.py:
SQLite, in-process conductors, 16 client threads).  Embedded is one
process, so its GIL runs one thread at a time: 1,000/s needs the whole
allocation (client, HTTP, API, conductor) in <= 1 ms of CPU.  This
measures each layer alone, one caller, requests one after another (no
contention, no GIL hand-offs between busy threads: a floor), CPU ms per
request of the whole process (``time.process_time``):

* ``http floor``: cheroot serving a WSGI app that answers ``{}`` at once,
  and an http.client caller (bench/node_allocations.py's), same process:
  what any request costs before berth's code;
* ``http berth server``: the same app behind berth's HTTP server
  (api/server.py: deadlines, body limits, 100-continue);
* ``app GET /v1`` ... ``app POST``: the bare metal WSGI application called
  in-process (no socket); *this thread* is the API's part (parse, policy,
  the INSERT, the RPC call, the answer), *other threads* the in-process
  transport's dispatch and the conductor's reservation;
* ``served ...``: the same requests over HTTP from one client; *this
  thread* is the client, *other threads* the server.

    .venv/bin/python -W ignore -m bench.node_allocation_layers [--requests 2000]

Prints a table and a final JSON line.

Recorded 2026-11-27 06:10-06:30 UTC (issue 20), shared 2-CPU VM, host
reference (bench/host_speed) ~25 ms, load average < 1, 2000 requests a
layer, 200 nodes; CPU ms per request, two runs each, before and after
api.connection_writer (headers sent with the body):

    layer                     before        after       this thread / other threads (after)
    http floor (bare cheroot) 0.30 / 0.29   0.28 / 0.30
    http berth server         0.27 / 0.28   0.25 / 0.27
    app GET /v1               0.075 / 0.072 0.072 / 0.074
    app GET allocation        0.38 / 0.41   0.40 / 0.38  0.37-0.38 / 0.01
    app POST allocation       1.64 / 1.80   1.78 / 1.73  0.88-0.91 / 0.85-0.88
    served GET /v1            0.52 / 0.61   0.54 / 0.54  0.18 (client) / 0.36
    served GET allocation     0.86 / 1.10   1.11 / 0.87  0.15-0.19 / 0.72-0.92
    served POST allocation    2.42 / 2.31   2.62 / 2.23  0.21-0.24 / 2.0-2.4

So one allocation served costs ~2.2-2.6 ms of the process's CPU with a
single caller and no contention: ~400-450/s on the one core its GIL
gives it, against 1,000/s asked.  Of that, the POST in-process is
~1.7 ms, half of it the API thread (parse, policy, the INSERT, the RPC
call and the answer) and half the conductor (the in-process transport's
dispatch and the reservation, one transaction); HTTP adds ~0.5-0.8 ms,
of which ~0.25-0.3 ms is the floor any request pays (loopback TCP,
cheroot's connection hand-offs between its selector and a worker, the
client).  With ~4,200 free nodes instead of 200 the in-process POST
measured 2.8-3.6 ms (SQLite's pick reads every free node that fits).  With the
host reference at ~39 ms (06:35), the same layers measured ~1.3-1.6x these.
"""

import argparse
import io
import json
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import node_allocations  # noqa: E402
from tests import fixtures  # noqa: E402

WARM = 100


def _trivial_app(environ, start_response):
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', '2')])
    return [b'{}']


def _per_request(count, fn):
    """CPU ms per call of the whole process, and of this thread, over ``count`` calls."""
    for _ in range(WARM):
        fn()
    process, thread = time.process_time(), time.thread_time()
    for _ in range(count):
        fn()
    return (1000.0 * (time.process_time() - process) / count,
            1000.0 * (time.thread_time() - thread) / count)


def http_floor(count):
    """(bare cheroot, berth's server): CPU ms per round trip of a trivial app."""
    from cheroot import wsgi

    from api import server as http_server

    bare = wsgi.Server(('127.0.0.1', 0), _trivial_app, numthreads=4)
    bare.prepare()
    thread = threading.Thread(target=bare.serve, daemon=True)
    thread.start()
    ours = http_server.HttpServer(_trivial_app, '127.0.0.1', 0, threads=4, name='layers')
    ours.start()
    try:
        rows = []
        for port in (bare.bind_addr[1], ours.address[1]):
            client = node_allocations._Client('http://127.0.0.1:%d' % port)
            rows.append(_per_request(count, lambda: client.call('GET', '/v1'))[0])
            if client.conn is not None:
                client.conn.close()
        return rows
    finally:
        bare.stop()
        ours.stop()


def _wsgi_caller(app):
    """call(method, path, body) -> (status, JSON): the app in-process, no socket.

    A bare environ rather than webob's Request.blank: the caller's own CPU
    counts in the layer, so it does as little as the server's gateway would.
    """
    def call(method, path, body=None):
        data = json.dumps(body).encode() if body is not None else b''
        environ = {
            'REQUEST_METHOD': method, 'PATH_INFO': path, 'QUERY_STRING': '',
            'SERVER_NAME': '127.0.0.1', 'SERVER_PORT': '6385', 'SERVER_PROTOCOL': 'HTTP/1.1',
            'wsgi.url_scheme': 'http', 'REMOTE_ADDR': '127.0.0.1',
            'HTTP_HOST': '127.0.0.1:6385', 'CONTENT_LENGTH': str(len(data)),
            'wsgi.input': io.BytesIO(data), 'wsgi.errors': sys.stderr}
        environ.update(('HTTP_' + k.upper().replace('-', '_'), v)
                       for k, v in node_allocations.HEADER.items())
        if data:
            environ['CONTENT_TYPE'] = 'application/json'
        status = []
        raw = b''.join(app(environ, lambda s, h, exc_info=None: status.append(s)))
        return int(status[0].split()[0]), (json.loads(raw) if raw else None)
    return call


def _posts(count, call, nodes):
    """CPU ms per POST /v1/allocations (process, this thread), ``nodes`` nodes in all.

    As bench/node_allocations.py, the conductor picks among ``nodes`` (SQLite's
    pick reads every free node that fits, so its cost grows with their
    number): the POSTs run in rounds that leave a quarter of the nodes
    free, and between rounds, off the clocks, their allocations are deleted.
    """
    per_round = max(1, nodes * 3 // 4)
    for todo in _rounds(WARM, per_round):
        _release(call, _allocate(call, todo))
    process = thread = 0.0
    for todo in _rounds(count, per_round):
        p0, t0 = time.process_time(), time.thread_time()
        uuids = _allocate(call, todo)
        process += time.process_time() - p0
        thread += time.thread_time() - t0
        _release(call, uuids)
    return 1000.0 * process / count, 1000.0 * thread / count


def _rounds(count, size):
    while count > 0:
        yield min(size, count)
        count -= size


def _allocate(call, count):
    uuids = []
    for _ in range(count):
        status, body = call('POST', '/v1/allocations', {'resource_class': 'baremetal'})
        # every POST must end active (its node found), or it measured less
        if status != 201 or body['state'] != 'active':
            raise RuntimeError('a POST did not end active: %s %s' % (status, body))
        uuids.append(body['uuid'])
    return uuids


def _release(call, uuids):
    for uuid in uuids:
        status, _ = call('DELETE', '/v1/allocations/' + uuid)
        if status != 204:
            raise RuntimeError('DELETE of %s answered %s' % (uuid, status))


def application_layers(count, nodes=200):
    """CPU ms per request of the bare metal app in-process and over HTTP."""
    with tempfile.TemporaryDirectory() as tmp:
        conf = fixtures.make_conf(os.path.join(tmp, 'state'))
        conf.set_override('embedded_conductors', 1, group='conductor')
        # the operator's opt-in: a POST answers its outcome however loaded
        # the host (3 s can pass on a busy CI machine); waiting costs no CPU
        conf.set_override('allocation_wait', 60, group='api')
        stack = fixtures.start_embedded(conf)
        try:
            node_allocations.make_nodes(stack.db, nodes)
            inproc = _wsgi_caller(stack.servers['baremetal'].app)
            client = node_allocations._Client(stack.baremetal_url)
            one = '/v1/allocations/' + _allocate(inproc, 1)[0]
            rows = {}
            for label, call in (('app', inproc), ('served', client.call)):
                rows[label + ' GET /v1'] = _per_request(count, lambda: call('GET', '/v1'))
                rows[label + ' GET allocation'] = _per_request(count, lambda: call('GET', one))
                rows[label + ' POST allocation'] = _posts(count, call, nodes - 1)
            return rows
        finally:
            stack.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--requests', type=int, default=2000, help='requests per layer')
    parser.add_argument('--nodes', type=int, default=200,
                        help='available nodes (as bench/node_allocations.py)')
    args = parser.parse_args(argv)
    load_before = round(os.getloadavg()[0], 2)
    bare, ours = http_floor(args.requests)
    rows = {'http floor': (bare, None), 'http berth server': (ours, None)}
    for label, (process, thread) in application_layers(args.requests, args.nodes).items():
        rows[label] = (process, thread)
    print('%-24s %8s %12s %14s' % ('layer', 'cpu ms', 'this thread', 'other threads'))
    out = {}
    for label, (process, thread) in rows.items():
        if thread is None:
            print('%-24s %8.3f' % (label, process))
            out[label] = {'cpu_ms': round(process, 3)}
        else:
            print('%-24s %8.3f %12.3f %14.3f' % (label, process, thread, process - thread))
            out[label] = {'cpu_ms': round(process, 3), 'this_thread_ms': round(thread, 3),
                          'other_threads_ms': round(process - thread, 3)}
    ceiling = 1000.0 / rows['served POST allocation'][0]
    print('one core at the served POST alone: %.0f allocations/s' % ceiling)
    print(json.dumps({'benchmark': 'node_allocation_layers', 'requests': args.requests,
                      'nodes': args.nodes,
                      'load_before': load_before,
                      'load_after': round(os.getloadavg()[0], 2),
                      'one_core_allocations_per_s': round(ceiling),
                      'layers': out}, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
