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
    probe.main(['--servers', 'granian,granian-2w'])
    out = capsys.readouterr().out
    assert 'granian          not installed' in out
    assert '"not_installed": true' in out
