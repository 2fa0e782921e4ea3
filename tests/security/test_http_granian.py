"""berth-api with ``[api] server = granian`` keeps the built-in server's HTTP behaviour.

The framing cases of test_http_framing.py (each with a request smuggled
behind it), HTTP/1.0 with Transfer-Encoding, clients trickling their header
block while a prompt client is served, a request in flight when SIGTERM
lands, and the workers sharing the parent's preloaded index: all against a
real ``berth-api`` process (cli/api_granian.py), SQLite, no conductor.
"""

import os
import re
import signal
import socket
import stat
import subprocess
import time

import pytest

from bench import http_server_probe
from tests.functional.test_api_workers import _children, _live_workers, _wait
from tests.functional.test_lifecycle import Command, _synced
from tests.security import test_http_framing as framing
from tests.security import test_http_gunicorn as gunicorn

pytest.importorskip('granian')

BOUND = 60


def _start(tmp_path, sections=None, **api):
    cfg = _synced(tmp_path, api={'server': 'granian', 'workers': 1, 'threads': 2, **api},
                  **(sections or {}))
    cmd = Command(tmp_path, 'berth-api', '--config-file', cfg)
    workers = 2 * int(api.get('workers', 1))
    _wait(lambda: cmd.output().count('worker started') >= workers, 'every worker')
    cmd.config = cfg
    cmd.ports = [int(p) for p in re.findall(r'API on http://127\.0\.0\.1:(\d+)',
                                            cmd.output())]
    return cmd


@pytest.fixture(scope='module')
def granian_api(tmp_path_factory):
    cmd = _start(tmp_path_factory.mktemp('granian'))
    yield cmd
    cmd.proc.send_signal(signal.SIGTERM)    # its exit removes the handshake's directory
    try:
        cmd.proc.wait(BOUND)
    except subprocess.TimeoutExpired:
        pass
    cmd.kill()


def _url(cmd, api='baremetal'):
    return 'http://127.0.0.1:%d' % cmd.ports[api == 'baremetal']


def _exchange(cmd, data):
    return framing._exchange(_url(cmd), data)


# hyper merges two identical Content-Length fields into the one value: RFC
# 9110 8.6 lets a recipient do so ("... MAY either reject the message as
# invalid or replace that invalid field value with a single instance"), and
# every parser that follows the RFC reads the same body length, so the request
# behind it is an ordinary pipelined one, not a smuggled one.  Differing
# values are refused (test_differing_content_lengths_are_refused).
MERGED = {'duplicate-content-length'}


@pytest.mark.parametrize('case', sorted(set(framing.CASES) - MERGED))
def test_ambiguous_framing_is_refused_and_closes(granian_api, case):
    headers, body = framing.CASES[case]
    answer, closed = _exchange(granian_api, framing._request(headers, body)
                               + framing.SMUGGLED)
    gunicorn._refused(answer, closed, rb'400')
    if case in ('host-twice', 'te-twice'):      # RepeatGuard's: Placement's error format
        assert b'"code": "berth.bad_framing"' in answer, answer[:400]


def test_identical_duplicate_content_length_is_one_length(granian_api):
    headers, body = framing.CASES['duplicate-content-length']
    answer, _ = _exchange(granian_api, framing._request(
        headers + b'Connection: close\r\n', body))
    assert answer.startswith(b'HTTP/1.1 201 '), answer[:300]       # read as one length


def test_differing_content_lengths_are_refused(granian_api):
    headers = framing.CL + b'Content-Length: %d\r\n' % (len(framing.BODY) - 1)
    answer, closed = _exchange(granian_api, framing._request(headers) + framing.SMUGGLED)
    gunicorn._refused(answer, closed, rb'400')


def test_transfer_encoding_on_http_1_0_is_refused(granian_api):
    request = framing._request(b'Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n',
                               framing.CHUNKED, line=b'POST /v1/nodes HTTP/1.0')
    gunicorn._refused(*_exchange(granian_api, request + framing.SMUGGLED))


def test_both_apis_answer_on_their_own_port(granian_api):
    request = b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
    placement = framing._exchange(_url(granian_api, 'placement'), request)[0]
    baremetal = _exchange(granian_api, request)[0]
    assert placement.startswith(b'HTTP/1.1 200 ') and baremetal.startswith(b'HTTP/1.1 200 ')
    assert b'"versions"' in placement and b'"default_version"' not in placement
    assert b'"default_version"' in baremetal, baremetal[:300]


@pytest.mark.parametrize('case', sorted(gunicorn.HOSTILE))
def test_hostile_requests_are_never_5xx(granian_api, case):
    answer = b''
    with framing._connect(_url(granian_api), timeout=5) as sock:
        sock.sendall(gunicorn.HOSTILE[case] + b'\r\n')
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            pass
    assert not re.match(rb'HTTP/1\.[01] 5', answer), answer[:300]


def test_trickling_header_blocks_do_not_delay_a_prompt_client(granian_api):
    """Twice as many tricklers as threads: a prompt client is answered within 2 s."""
    tricklers = http_server_probe.Tricklers(
        int(_url(granian_api).rsplit(':', 1)[1]), 4, path='/v1/nodes')
    try:
        answered = gunicorn._prompt_answers(_url(granian_api))
        assert tricklers.still_trickling()           # still trickling, not refused
    finally:
        tricklers.close()
    assert answered == 3


def test_sigterm_drains_a_request_in_flight(tmp_path):
    """A request whose body is still arriving when SIGTERM lands is answered; exit 0."""
    cmd = _start(tmp_path)
    try:
        with socket.create_connection(('127.0.0.1', cmd.ports[0]), timeout=BOUND) as sock:
            sock.sendall(b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
                         b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n'
                         b'Content-Length: 12\r\nConnection: close\r\n\r\n{"nam')
            time.sleep(0.5)
            cmd.proc.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            sock.sendall(b'e": 1,}')        # bad JSON: the app's own 400
            answer = gunicorn._read_all(sock)
        assert answer.startswith(b'HTTP/1.1 400 '), answer[:300]
        assert b'"errors"' in answer
        assert cmd.proc.wait(BOUND) == 0
    finally:
        cmd.kill()


def _unix_paths(pid):
    """The paths of the Unix sockets process ``pid`` holds."""
    inodes = set()
    for fd in os.listdir('/proc/%d/fd' % pid):
        target = os.readlink('/proc/%d/fd/%s' % (pid, fd))
        if target.startswith('socket:['):
            inodes.add(target[8:-1])
    with open('/proc/%d/net/unix' % pid) as table:
        rows = [line.split() for line in table.readlines()[1:]]
    return {row[7] for row in rows if len(row) > 7 and row[6] in inodes}


def _descendants(pid):
    found = set()
    for child in _children(pid):
        found |= {child} | _descendants(child)
    return found


def test_workers_share_the_preloaded_index_and_sigterm_ends_all(tmp_path):
    """Every worker is forked from the parent that loaded the index, once.

    The marker: the parent's pid, set in a module global by the parent when
    it loaded the index (cli.api_granian.PRELOADED_BY), printed by each
    worker; and the index loaded once in all.  Both APIs' metrics count
    every worker of both servers (one multiprocess directory).
    """
    cmd = _start(tmp_path, workers=2)
    try:
        parent = cmd.proc.pid
        servers = _children(parent)
        assert len(servers) == 2
        workers = _descendants(parent) - servers
        assert len(workers) == 4, workers
        assert cmd.output().count('candidate index loaded') <= 1
        marks = re.findall(r'worker started \(pid (\d+), index of (\d+)\)', cmd.output())
        assert {int(w) for w, _ in marks} == workers
        assert {int(p) for _, p in marks} == {parent}
        _wait(lambda: _live_workers(cmd.ports[0]) == workers, 'all workers in /metrics')
        # the index handshake listens in a directory only berth-api's user may enter
        [handshake] = [p for p in _unix_paths(parent) if 'berth-api-index-' in p]
        assert stat.S_IMODE(os.stat(os.path.dirname(handshake)).st_mode) == 0o700
        assert cmd.stop(signal.SIGTERM, bound=BOUND) == 0
        for pid in workers | servers | {parent}:
            assert not os.path.exists('/proc/%d' % pid), pid
        assert not os.path.exists(os.path.dirname(handshake))
    finally:
        cmd.kill()


def test_sighup_reloads_the_mutable_options_and_keeps_serving(tmp_path):
    cmd = _start(tmp_path, {'DEFAULT': {'debug': 'false'}})
    try:
        started = cmd.output().count('worker started')
        path = open(cmd.config).read()
        with open(cmd.config, 'w') as f:
            f.write(path.replace('debug = false', 'debug = true'))
        cmd.proc.send_signal(signal.SIGHUP)
        cmd.wait_for('SIGHUP: configuration reloaded (DEFAULT.debug)', BOUND)
        # each server replaces its worker; the new ones serve with the new options
        _wait(lambda: cmd.output().count('worker started') >= started + 2, 'new workers')
        answer, _ = _exchange(cmd, b'GET /v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
        assert answer.startswith(b'HTTP/1.1 200 '), answer[:300]
        assert cmd.stop(signal.SIGTERM, bound=BOUND) == 0
    finally:
        cmd.kill()
