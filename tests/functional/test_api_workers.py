"""berth-api with ``[api] workers = 2``: two forked processes serve, one killed is
replaced, SIGTERM ends them all (cli/api_workers.py).

Everything is checked on the real processes: the children of the master as
/proc lists them, each worker proved to serve by stopping the other one
(SIGSTOP: a stopped process accepts nothing, so the answer came from the
one left running), and after SIGTERM every pid gone from /proc.
"""

import os
import pathlib
import re
import signal
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
    for pid in _children(cmd.proc.pid):
        _kill(pid, signal.SIGCONT)
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


def _kill(pid, sig):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _get(port, path='/'):
    with urllib.request.urlopen('http://127.0.0.1:%d%s' % (port, path), timeout=30) as rsp:
        return rsp.status, rsp.read().decode()


def _ports(cmd):
    out = cmd.output()
    return [int(p) for p in re.findall(r'API on http://127\.0\.0\.1:(\d+)', out)]


def _live_workers(port):
    """The pids berth_api_worker says are serving (any worker answers for all)."""
    _status, body = _get(port, '/metrics')
    return {int(p) for p in re.findall(r'^berth_api_worker\{pid="(\d+)"\} 1\.0$',
                                       body, re.M)}


def _wait(predicate, what):
    deadline = time.monotonic() + BOUND
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail('not within %ss: %s' % (BOUND, what))
        time.sleep(0.2)


def _serves_alone(pid, others, ports):
    """``pid`` answers on both ports while every other worker is stopped."""
    for other in others:
        os.kill(other, signal.SIGSTOP)
    try:
        for port in ports:
            assert _get(port)[0] == 200
    finally:
        for other in others:
            os.kill(other, signal.SIGCONT)


def test_two_workers_serve_one_killed_is_replaced_and_sigterm_ends_all(api):
    api.wait_for('worker 1 started')
    master = api.proc.pid
    placement, baremetal = _ports(api)
    _wait(lambda: len(_children(master)) == 2, 'two worker processes')
    workers = _children(master)
    # both are up and each counts itself in the shared metrics
    _wait(lambda: _live_workers(placement) == workers, 'both workers in /metrics')
    for pid in workers:
        _serves_alone(pid, workers - {pid}, (placement, baremetal))

    victim = min(workers)
    os.kill(victim, signal.SIGKILL)
    _wait(lambda: victim not in _children(master) and len(_children(master)) == 2,
          'a new worker in place of the killed one')
    now = _children(master)
    (newcomer,) = now - workers
    _wait(lambda: _live_workers(placement) == now, 'the new worker in /metrics')
    _serves_alone(newcomer, now - {newcomer}, (placement, baremetal))

    metrics_dir = dict(line.split('=', 1) for line in pathlib.Path(
        '/proc/%d/environ' % master).read_text().split('\0') if '=' in line)[
        'PROMETHEUS_MULTIPROC_DIR']
    assert os.path.isdir(metrics_dir)
    assert api.stop(signal.SIGTERM, bound=BOUND) == 0
    for pid in now | {master}:
        assert not os.path.exists('/proc/%d' % pid), pid
    assert not os.path.exists(metrics_dir)
