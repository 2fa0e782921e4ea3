"""bench/region.py: the server's CPU read from its CPU-time clock, ticks as a fallback;
how many distinct queries a shape gets."""

import os
import subprocess
import sys
import time
import types

from bench import cluster, region, serve_process


def test_cpu_seconds_of_another_process_to_below_a_tick():
    # it says it is up once its interpreter started: read before then, the
    # clock of a child not yet scheduled may still read 0 (seen in CI)
    proc = subprocess.Popen([sys.executable, '-c',
                             'import sys; print("up", flush=True); sys.stdin.read()'],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b'up\n'
        first = serve_process.cpu_seconds(proc.pid)
        assert first > 0                 # its interpreter's start, at least
        assert serve_process.cpu_seconds(proc.pid) >= first
        # finer than /proc's 10 ms ticks
        assert first != round(first, 2) or serve_process.cpu_seconds(proc.pid) != round(first, 2)
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait()


def test_cpu_seconds_falls_back_to_ticks(monkeypatch):
    def unreadable(clock):
        raise OSError('no such clock')

    monkeypatch.setattr(time, 'clock_gettime', unreadable)
    monkeypatch.setattr(cluster, 'cpu_seconds', lambda pid: 1.23 if pid == 42 else None)
    assert serve_process.cpu_seconds(42) == 1.23


def test_cpu_seconds_of_own_process_follows_its_work():
    before = serve_process.cpu_seconds(os.getpid())
    end = time.thread_time() + 0.02
    while time.thread_time() < end:
        pass
    assert serve_process.cpu_seconds(os.getpid()) - before >= 0.015


def test_the_host_reference_is_a_positive_best_time():
    from bench import host_speed

    assert host_speed._work(100) > 0
    ms = host_speed.reference_ms(tries=2)
    assert isinstance(ms, float) and ms > 0


class _Answers:
    """The server's side of measure(): every query it was sent, one candidate each."""

    def __init__(self, pause=0.0):
        self.queries = []
        self.pause = pause

    def get(self, query):
        self.queries.append(query)
        time.sleep(self.pause)
        return b'{"allocation_requests": [{}], "provider_summaries": {}}'


def _serve(client):
    return types.SimpleNamespace(client=client, cpu=time.process_time,
                                 proc=types.SimpleNamespace(pid=os.getpid()))


def test_a_shape_gets_its_requests_and_no_more_without_a_time_budget():
    client = _Answers()
    row = region.measure(_serve(client), 'no limit', 20, 1, seconds=0.0, most=200)
    assert row['requests'] == 20
    assert len(set(client.queries)) == 20          # every one distinct


def test_a_quick_shape_goes_on_until_its_time_budget_up_to_a_cap():
    client = _Answers()
    row = region.measure(_serve(client), 'no limit', 20, 1, seconds=60.0, most=50)
    assert row['requests'] == 50                   # the cap, long before 60 s
    assert len(set(client.queries)) == 50


def test_a_slow_shape_stops_at_its_requests_once_the_budget_is_spent():
    client = _Answers(pause=0.01)
    row = region.measure(_serve(client), 'no limit', 5, 1, seconds=0.01, most=200)
    assert row['requests'] == 5
    assert row['candidates'] == 1 and row['cpu_us_per_candidate'] is not None
