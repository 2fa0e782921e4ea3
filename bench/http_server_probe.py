"""Which HTTP server configuration keeps berth-api's framing and slow-header behaviour.

    python -m bench.http_server_probe [--servers builtin,granian,gthread,asgi] [--seconds 3]

Each candidate serves berth's bare-metal WSGI app (SQLite, noauth2, one
process) on a free loopback port, started as an operator would start it:
``builtin`` is ``berth-api`` (``[api] server = builtin``, two threads),
``gunicorn`` is ``berth-api`` with ``[api] server = gunicorn`` (gthread, one
worker of two threads), ``granian`` is ``berth-api`` with ``[api] server =
granian`` (one worker of two blocking threads per API), ``gthread`` and
``asgi`` are the ``gunicorn`` command (gthread 1 x 2 threads; the asyncio
ASGI worker with the WSGI app run by a2wsgi in a thread pool),
``granian-bare`` and ``granian-bare-2w`` the ``granian`` command (its WSGI
interface, HTTP/1 only, 1 or 2 workers of two blocking threads).  A name
may be given more than once (``builtin,granian,builtin,granian``: rows of
one run, alternating).
For each it reports:

* framing: seven requests RFC 9112 says to refuse (two Content-Lengths,
  ``Transfer-Encoding :``, HTTP/1.0 with Transfer-Encoding, an obs-fold, a
  space in a header name, NUL and a control byte in a value), each with a
  second request smuggled behind it: refused means a 4xx that is not the
  app's (the app answers POST /v1 with 405) or a closed connection, and the
  smuggled request never answered; then ("extra") the other cases of
  tests/security/test_http_framing.py, and how many answers of all of them
  were a 5xx;
* slow headers: the latency of a normal request while two clients trickle
  their header block one byte per 0.2 s (target: under 2 s);
* rate: sequential keep-alive ``GET /v1`` for ``--seconds`` seconds: requests
  per second and the server's CPU (all its processes) per request.

It prints a table and, last, one JSON line.
"""

import argparse
import importlib.util
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from tests import services
from tests.security import test_http_framing

BIN = pathlib.Path(sys.executable).parent
BODY = b'{"driver": "fake-hardware"}'
CL = b'Content-Length: %d\r\n' % len(BODY)
CHUNKED = b'%x\r\n%s\r\n0\r\n\r\n' % (len(BODY), BODY)
SMUGGLED = b'GET /v1 HTTP/1.1\r\nHost: x\r\n\r\n'
LINE = b'POST /v1 HTTP/1.1'
# name: (request line, extra headers, body)
FRAMING = {
    'two-content-lengths': (LINE, CL + CL, BODY),
    'te-space-before-colon': (LINE, b'Transfer-Encoding : chunked\r\n', CHUNKED),
    'http10-with-te': (b'POST /v1 HTTP/1.0',
                       b'Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n', CHUNKED),
    'obs-fold': (LINE, CL + b'X-A: b\r\n\tContent-Length: 0\r\n', BODY),
    'space-in-name': (LINE, CL + b'X Bad: 1\r\n', BODY),
    'nul-in-value': (LINE, CL + b'X-A: a\x00b\r\n', BODY),
    'control-in-value': (LINE, CL + b'X-A: a\x01b\r\n', BODY),
}
# the rest of the framing test's cases, on the probe's request line
EXTRA = {case: (LINE, headers, body)
         for case, (headers, body) in sorted(test_http_framing.CASES.items())
         if (LINE, headers, body) not in FRAMING.values()}
APP = 'bench.http_server_probe_app'
GRANIAN = {'granian-bare': 1, 'granian-bare-2w': 2}     # candidate: workers
BERTH_API = ('builtin', 'gunicorn', 'gunicorn-gthread', 'granian')   # [api] server


def _config(tmp, server):
    port, bm_port = services.free_port(), services.free_port()
    text = (f'[DEFAULT]\nstate_path = {tmp}/state\nhost = probe\n'
            f'[database]\nconnection = sqlite:///{tmp}/berth.sqlite\n'
            f'[coordination]\nbackend_url = file://{tmp}/coord\n'
            f'[rpc]\nsigning_key = {services.RPC_SIGNING_KEY}\n'
            f'[api]\nauth_strategy = noauth2\nplacement_port = {port}\n'
            f'baremetal_port = {bm_port}\nworkers = 1\nthreads = 2\nserver = {server}\n'
            'request_header_timeout = 600\n')
    path = os.path.join(tmp, 'berth.conf')
    with open(path, 'w') as f:
        f.write(text)
    return path, bm_port


def start(name, tmp):
    """(process, port, seconds to the first answer) of candidate ``name``."""
    path, port = _config(tmp, name if name in BERTH_API else 'builtin')
    subprocess.run([str(BIN / 'berth-manage'), '--config-file', path, 'db', 'sync'],
                   check=True, capture_output=True)
    env = dict(os.environ, BERTH_CONFIG_FILE=path)
    if name in BERTH_API:
        argv = [str(BIN / 'berth-api'), '--config-file', path]
    elif name in GRANIAN:
        argv = [sys.executable, '-m', 'granian', '--interface', 'wsgi', '--http', '1',
                '--host', '127.0.0.1', '--port', str(port), '--no-ws',
                '--workers', str(GRANIAN[name]), '--blocking-threads', '2',
                '%s:wsgi_app' % APP]
    else:
        argv = [sys.executable, '-m', 'gunicorn', '--bind', '127.0.0.1:%d' % port,
                '--workers', '1', '--threads', '2', '--timeout', '90',
                '--control-socket', os.path.join(tmp, 'g.ctl'),
                '-k', 'asgi' if name == 'asgi' else 'gthread',
                '%s:%s' % (APP, 'asgi_app' if name == 'asgi' else 'wsgi_app')]
    log = open(os.path.join(tmp, 'server.log'), 'w')
    began = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError('%s exited: %s' % (name, open(log.name).read()[-2000:]))
        try:
            if _exchange(port, b'GET /v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
                         5)[0].startswith(b'HTTP/1.1 200'):
                return proc, port, time.monotonic() - began
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError('%s did not answer within 60 s' % name)


def _exchange(port, data, timeout=10):
    """(everything answered, whether the server closed)."""
    with socket.create_connection(('127.0.0.1', port), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b''
        while True:
            try:
                chunk = sock.recv(65536)
            except (TimeoutError, ConnectionResetError):
                return answer, False
            if not chunk:
                return answer, True
            answer += chunk


def statuses(answer):
    """The status codes of the responses in ``answer``, one after the other
    (a body is skipped by its Content-Length, or chunk by chunk); what cannot
    be parsed ends the list as ``unparsed``."""
    out = []
    try:
        while answer.startswith(b'HTTP/1.') and b'\r\n\r\n' in answer:
            head, answer = answer.split(b'\r\n\r\n', 1)
            out.append(head.split(b' ', 2)[1].decode())
            fields = dict((name.strip().lower(), value.strip()) for name, _, value in
                          (line.partition(b':') for line in head.split(b'\r\n')[1:]))
            if fields.get(b'transfer-encoding', b'').lower() == b'chunked':
                size = 1
                while answer and size:           # (a trailer section is not expected)
                    line, _, answer = answer.partition(b'\r\n')
                    size = int(line.split(b';')[0], 16)
                    answer = answer[size + 2:]
            else:
                answer = answer[int(fields.get(b'content-length', len(answer))):]
    except (ValueError, IndexError, UnicodeDecodeError):
        answer = answer or b'?'
    if answer:
        out.append('unparsed')
    return out


def framing(port, cases):
    """{case: (refused before the app and the smuggled request never ran, what came back)}."""
    out = {}
    for case, (line, headers, body) in cases.items():
        answer, closed = _exchange(port, line + b'\r\nHost: x\r\n' + headers + b'\r\n'
                                   + body + SMUGGLED, timeout=5)
        codes = statuses(answer)
        refused = ((codes[0] != '405' and codes[0].startswith('4') if codes else closed)
                   and len(codes) <= 1)
        out[case] = (refused, (' '.join(codes) or 'nothing')
                     + (', closed' if closed else ', left open'))
    return out


class Tricklers:
    """``clients`` connections sending one header a byte every 0.2 s until closed."""

    def __init__(self, port: int, clients: int, path: str = '/v1') -> None:
        self.stop = threading.Event()
        self.socks = [socket.create_connection(('127.0.0.1', port), timeout=30)
                      for _ in range(clients)]
        self.head = b'GET %s HTTP/1.1\r\nHost: x\r\nX-Slow: ' % path.encode()
        self.threads = [threading.Thread(target=self._trickle, args=(s,), daemon=True)
                        for s in self.socks]
        for t in self.threads:
            t.start()
        time.sleep(0.5)          # let every trickler reach the server first

    def _trickle(self, sock: socket.socket) -> None:
        try:
            sock.sendall(self.head)
            while not self.stop.wait(0.2):
                sock.send(b'a')
        except OSError:
            return

    def still_trickling(self) -> bool:
        return all(t.is_alive() for t in self.threads)

    def close(self) -> None:
        self.stop.set()
        for sock in self.socks:
            sock.close()


def slow_headers(port, clients=2):
    """Seconds a normal request takes while ``clients`` trickle their headers."""
    tricklers = Tricklers(port, clients)
    began = time.monotonic()
    try:
        answer, _ = _exchange(port, b'GET /v1 HTTP/1.1\r\nHost: x\r\n'
                              b'Connection: close\r\n\r\n', timeout=20)
        took = time.monotonic() - began if answer.startswith(b'HTTP/1.1 200') else None
    finally:
        tricklers.close()
    return took


def _tree_cpu(pid):
    """CPU seconds of ``pid`` and its live descendants (granian's workers are grandchildren)."""
    tick = os.sysconf('SC_CLK_TCK')
    parent, cpu = {}, {}
    for entry in pathlib.Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / 'stat').read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(')') + 2:].split()
        parent[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    total = 0.0
    for proc in cpu:
        up = proc
        while up not in (pid, 0, 1) and up in parent:
            up = parent[up]
        if up == pid:
            total += cpu[proc]
    return total


def rate(port, pid, seconds):
    """(requests per second, server CPU ms per request) of keep-alive GET /v1."""
    import http.client
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    cpu0, began, count = _tree_cpu(pid), time.monotonic(), 0
    while time.monotonic() - began < seconds:
        conn.request('GET', '/v1')
        conn.getresponse().read()
        count += 1
    took, cpu = time.monotonic() - began, _tree_cpu(pid) - cpu0
    conn.close()
    return round(count / took, 1), round(1000 * cpu / count, 3)


def probe(name, seconds):
    if name in GRANIAN and importlib.util.find_spec('granian') is None:
        return {'server': name, 'not_installed': True}
    with tempfile.TemporaryDirectory(prefix='berth-probe-') as tmp:
        proc, port, ready = start(name, tmp)
        try:
            cases = framing(port, FRAMING)
            extra = framing(port, EXTRA)
            slow = slow_headers(port)
            rps, cpu_ms = rate(port, proc.pid, seconds)
        finally:
            began = time.monotonic()
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            stopped = time.monotonic() - began
    both = cases | extra
    return {'server': name, 'framing_refused': sum(ok for ok, _ in cases.values()),
            'framing_cases': len(cases),
            'extra_refused': sum(ok for ok, _ in extra.values()), 'extra_cases': len(extra),
            'answers_5xx': sum(len(re.findall(r'\b5\d\d\b', seen)) for _, seen in both.values()),
            'framing_passed': sorted(c for c, (ok, _) in both.items() if not ok),
            'framing_answers': {c: seen for c, (_, seen) in both.items()},
            'slow_header_latency_s': None if slow is None else round(slow, 3),
            'req_per_s': rps, 'cpu_ms_per_req': cpu_ms,
            'start_s': round(ready, 2), 'stop_s': round(stopped, 2)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--servers', default='builtin,granian,gunicorn,gunicorn-gthread,'
                        'gthread,asgi,granian-bare,granian-bare-2w')
    parser.add_argument('--seconds', type=float, default=3.0)
    args = parser.parse_args(argv)
    rows = [probe(name, args.seconds) for name in args.servers.split(',')]
    print('%-16s %-8s %-6s %-4s %-10s %-8s %-8s %-7s %-6s %s' % (
        'server', 'framing', 'extra', '5xx', 'slow-hdr s', 'req/s', 'cpu ms', 'start', 'stop',
        'let through'))
    for r in rows:
        if r.get('not_installed'):
            print('%-16s not installed' % r['server'])
            continue
        print('%-16s %d/%-6d %d/%-4d %-4d %-10s %-8s %-8s %-7s %-6s %s' % (
            r['server'], r['framing_refused'], r['framing_cases'], r['extra_refused'],
            r['extra_cases'], r['answers_5xx'], r['slow_header_latency_s'], r['req_per_s'],
            r['cpu_ms_per_req'], r['start_s'], r['stop_s'],
            ','.join(r['framing_passed']) or '-'))
    answered = [r for r in rows if not r.get('not_installed')]
    if answered:
        print('\n%-30s %s' % ('case', ' | '.join(r['server'] for r in answered)))
        for case in list(FRAMING) + list(EXTRA):
            print('%-30s %s' % (case, ' | '.join(r['framing_answers'][case] for r in answered)))
    print(json.dumps({'bench': 'http_server_probe', 'results': rows}))


if __name__ == '__main__':
    main()
