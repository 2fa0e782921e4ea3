"""The HTTP server probe's reading of what a server answered to a smuggling attempt."""

from bench import http_server_probe as probe


def test_a_response_glued_to_the_previous_body_is_counted():
    # a JSON body ends without CRLF: the smuggled request's answer follows it directly
    answer = (b'HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 9\r\n\r\n{"a": 1}\n'
              b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}')
    assert probe.statuses(answer) == ['405', '200']


def test_chunked_bodies_are_skipped():
    answer = (b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
              b'3\r\nHTT\r\n5;x=1\r\nP/1.1\r\n0\r\n\r\n'
              b'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n')
    assert probe.statuses(answer) == ['200', '400']


def test_nothing_and_garbage():
    assert probe.statuses(b'') == []
    assert probe.statuses(b'garbage') == ['unparsed']
    assert probe.statuses(b'HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n') == ['200', 'unparsed']


def test_extra_cases_are_the_framing_tests_others():
    assert set(probe.EXTRA).isdisjoint(probe.FRAMING)
    assert {'host-twice', 'te-twice', 'te-not-chunked'} <= set(probe.EXTRA)
    assert 'duplicate-content-length' not in probe.EXTRA     # two-content-lengths already


def test_granian_not_installed_is_a_row_not_an_error(monkeypatch, capsys):
    real = probe.importlib.util.find_spec
    monkeypatch.setattr(probe.importlib.util, 'find_spec',
                        lambda name, *args: None if name == 'granian' else real(name, *args))
    probe.main(['--servers', 'granian-bare,granian-bare-2w'])
    out = capsys.readouterr().out
    assert 'granian-bare     not installed' in out
    assert '"not_installed": true' in out


def test_tree_cpu_counts_grandchildren(tmp_path):
    """berth-api under granian serves from grandchildren: their CPU is the server's."""
    import subprocess
    import sys
    import time
    spin = ('import time\nt = time.process_time()\n'
            'while time.process_time() - t < 0.5: pass\ntime.sleep(30)')
    child = subprocess.Popen([sys.executable, '-c',
                              'import subprocess, sys, time; subprocess.Popen([sys.executable, '
                              '"-c", %r]); time.sleep(30)' % spin])
    try:
        deadline = time.monotonic() + 30
        while probe._tree_cpu(child.pid) < 0.5 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert probe._tree_cpu(child.pid) >= 0.5
    finally:
        for pid in _descendants_of(child.pid):
            subprocess.run(['kill', str(pid)])
        child.kill()
        child.wait()


def _descendants_of(pid):
    import pathlib
    found = []
    for entry in pathlib.Path('/proc').iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / 'stat').read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(')') + 2:].split()[1]) == pid:
                found.append(int(entry.name))
    return found
