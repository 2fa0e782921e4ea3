"""berth-api with ``[api] workers = 2``: two forked processes serve, one killed is
replaced, SIGTERM ends them all (cli/api_workers.py).

Everything is checked on the real processes: the children of the master as
/proc lists them, each worker proved to serve by finding the server end of
an answered connection among its open files (/proc/net/tcp, /proc/PID/fd),
and after SIGTERM every pid gone from /proc.
"""

import os
import pathlib
import re
import signal
import socket
import time
import urllib.request

import pytest

from tests.functional.test_lifecycle import Command, _synced

# generous bounds, not speed measurements
BOUND = 60


@pytest.fixture
def api(tmp_path):
    cfg = _synced(tmp_path, api={'workers': 2, 'threads': 4})
    cmd = Command(tmp_path, 'berth-api', '--config-file', cfg)
    yield cmd
    cmd.kill()


def _children(pid):
    """The pids whose parent is ``pid``, read from /proc."""
    found = set()
    for entry in pathlib.Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / 'stat').read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rindex(')') + 2:].split()
        if fields[0] != 'Z' and int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def _get(port, path='/'):
    with urllib.request.urlopen('http://127.0.0.1:%d%s' % (port, path), timeout=BOUND) as rsp:
        return rsp.status, rsp.read().decode()


def _ports(cmd):
    out = cmd.output()
    return [int(p) for p in re.findall(r'API on http://127\.0\.0\.1:(\d+)', out)]


def _live_workers(port):
    """The pids berth_api_worker says are serving (set once both servers listen;
    any worker answers for all)."""
    _status, body = _get(port, '/metrics')
    return {int(p) for p in re.findall(r'^berth_api_worker\{pid="(\d+)"\} 1\.0$',
                                       body, re.M)}


def _wait(predicate, what):
    deadline = time.monotonic() + BOUND
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail('not within %ss: %s' % (BOUND, what))
        time.sleep(0.2)


def _server_inode(client):
    """The inode of the server's end of ``client``'s loopback TCP connection."""
    port = client.getsockname()[1]
    for line in pathlib.Path('/proc/net/tcp').read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[2].split(':')[1], 16) == port:     # its remote end is us
            return fields[9]
    return None


def _serving_pid(port, pids):
    """Which of ``pids`` answered a request on a new connection (it holds the socket)."""
    with socket.create_connection(('127.0.0.1', port), timeout=BOUND) as client:
        client.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
        assert client.recv(12).startswith(b'HTTP/1.1 200'), port
        inode = _server_inode(client)
        for pid in pids:
            try:
                fds = os.listdir('/proc/%d/fd' % pid)
            except FileNotFoundError:
                continue
            for fd in fds:
                try:
                    if os.readlink('/proc/%d/fd/%s' % (pid, fd)) == 'socket:[%s]' % inode:
                        return pid
                except OSError:
                    continue
    return None


def _each_serves(pids, ports):
    """Every one of ``pids`` answers on every port (new connections until each has)."""
    for port in ports:
        seen = set()
        _wait(lambda: seen.add(_serving_pid(port, pids)) or pids <= seen,
              'answers from each of %s on port %d (so far %s)' % (pids, port, seen))


def test_two_workers_serve_one_killed_is_replaced_and_sigterm_ends_all(api):
    api.wait_for('worker 1 started')
    master = api.proc.pid
    placement, baremetal = _ports(api)
    _wait(lambda: len(_children(master)) == 2, 'two worker processes')
    workers = _children(master)
    # both are up and each counts itself in the shared metrics
    _wait(lambda: _live_workers(placement) == workers, 'both workers in /metrics')
    _each_serves(workers, (placement, baremetal))

    victim = min(workers)
    os.kill(victim, signal.SIGKILL)
    _wait(lambda: victim not in _children(master) and len(_children(master)) == 2,
          'a new worker in place of the killed one')
    now = _children(master)
    (newcomer,) = now - workers
    _wait(lambda: _live_workers(placement) == now, 'the new worker in /metrics')
    _each_serves(now, (placement, baremetal))

    metrics_dir = dict(line.split('=', 1) for line in pathlib.Path(
        '/proc/%d/environ' % master).read_text().split('\0') if '=' in line)[
        'PROMETHEUS_MULTIPROC_DIR']
    assert os.path.isdir(metrics_dir)
    assert api.stop(signal.SIGTERM, bound=BOUND) == 0
    for pid in now | {master}:
        assert not os.path.exists('/proc/%d' % pid), pid
    assert not os.path.exists(metrics_dir)
