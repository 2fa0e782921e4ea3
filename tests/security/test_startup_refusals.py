"""Configurations that cannot serve safely refuse to start, each with a one-line reason."""

import json
import logging

import pytest

from api import wsgi
from api.common import startup
from cli import api as api_cli
from cli import berth as berth_cli
from cli import security
from tests import fixtures

NO_AUTHTOKEN = '[api]\nauth_strategy = keystone\n'
NO_AUTH_URL = NO_AUTHTOKEN + '[keystone_authtoken]\nauth_type = password\nusername = u\n'
USABLE = (NO_AUTHTOKEN + '[keystone_authtoken]\nauth_type = password\n'
          'auth_url = http://127.0.0.1:5000/v3\nwww_authenticate_uri = '
          'http://127.0.0.1:5000/v3\nusername = berth\npassword = pw\n'
          'project_name = service\nuser_domain_name = Default\n'
          'project_domain_name = Default\n')


def _conf_file(tmp_path, text):
    path = tmp_path / 'berth.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n%s' % (tmp_path / 'state', text))
    return path


@pytest.mark.parametrize('host, words', [('0', 'not an IP address in full'),
                                         ('', 'is empty'),
                                         ('127.1', 'not an IP address in full')])
def test_berth_serve_refuses_unclear_hosts(tmp_path, capsys, host, words):
    data = tmp_path / 'data'
    code = berth_cli.main(['serve', '--host', host, '--data-dir', str(data),
                           '--placement-port', '0', '--baremetal-port', '0'])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith('berth: --host: ') and words in err
    assert 'Traceback' not in err and len(err.splitlines()) == 1
    assert not data.exists()


def test_berth_api_refuses_an_unclear_host_in_the_config(tmp_path, capsys):
    path = _conf_file(tmp_path, '[api]\nauth_strategy = noauth2\nhost = 127.1\n')
    assert api_cli.main(['--config-file', str(path)]) == 2
    err = capsys.readouterr().err
    assert '[api] host' in err and 'Traceback' not in err


@pytest.mark.parametrize('text, words', [(NO_AUTHTOKEN, 'has no auth_type'),
                                         (NO_AUTH_URL, 'lacks auth_url')])
def test_keystone_without_usable_authtoken_refuses_to_start(tmp_path, capsys, text, words):
    path = _conf_file(tmp_path, text)
    assert api_cli.main(['--config-file', str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith('berth-api: [api] auth_strategy = keystone') and words in err
    assert len(err.strip().splitlines()) == 1
    assert berth_cli.main(['serve', '--config-file', str(path), '--data-dir',
                           str(tmp_path / 'data')]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / 'data').exists()


def test_a_usable_authtoken_passes(tmp_path):
    conf = fixtures.make_conf(tmp_path)
    path = _conf_file(tmp_path, USABLE)
    conf(['--config-file', str(path)])
    assert startup.keystone_error(conf) is None
    assert security.startup_error(conf) is None


def test_allow_insecure_noauth_logs_a_warning(tmp_path, caplog):
    conf = fixtures.make_conf(tmp_path, **{'api.host': '0.0.0.0',
                                           'api.allow_insecure_noauth': True})
    caplog.set_level(logging.WARNING)
    assert security.startup_error(conf) is None
    assert 'anyone who can reach this address' in security.warn_if_insecure(conf)
    assert 'allow_insecure_noauth' in caplog.text
    loop = fixtures.make_conf(tmp_path / 'l', **{'api.allow_insecure_noauth': True})
    assert security.warn_if_insecure(loop) is None


def test_berth_serve_warns_when_allowed_off_loopback(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(security, 'warn_if_insecure', lambda conf: seen.append(
        startup.insecure_noauth_warning(conf)))

    class Stop(Exception):
        pass

    def refuse(conf):
        raise Stop()
    monkeypatch.setattr(berth_cli.deployment, 'Embedded', refuse)
    with pytest.raises(Stop):
        berth_cli.main(['serve', '--host', '0.0.0.0', '--allow-insecure-noauth',
                        '--data-dir', str(tmp_path / 'd')])
    assert seen and 'administrator' in seen[0]


def _call(app, environ):
    seen = {}

    def start_response(status, headers):
        seen['status'] = status
    body = b''.join(app(dict({'REQUEST_METHOD': 'GET', 'PATH_INFO': '/'}, **environ),
                        start_response))
    return seen['status'], body


def test_wsgi_refuses_keystone_without_authtoken_with_the_reason(tmp_path):
    path = _conf_file(tmp_path, NO_AUTHTOKEN)
    with pytest.raises(wsgi.StartupRefused, match='has no auth_type'):
        wsgi.init_application([str(path)])
    lazy = wsgi._Lazy(lambda: wsgi.init_application([str(path)]))
    for _ in range(2):
        status, body = _call(lazy, {})
        assert status.startswith('503')
        assert 'has no auth_type' in json.loads(body)['errors'][0]['detail']


class _Sock:
    def __init__(self, address):
        self.address = address

    def getsockname(self):
        return (self.address, 8778)


def test_wsgi_noauth_answers_only_on_loopback():
    calls = []

    def app(environ, start_response):
        calls.append(1)
        start_response('200 OK', [])
        return [b'ok']

    class Conf:
        class api:
            auth_strategy = 'noauth2'
            allow_insecure_noauth = False
            host = '127.0.0.1'

    guard = wsgi._LoopbackOnly(app, Conf)
    assert _call(guard, {'gunicorn.socket': _Sock('127.0.0.1')})[0] == '200 OK'
    status, body = _call(guard, {'gunicorn.socket': _Sock('192.0.2.7')})
    assert status.startswith('503') and b'refusing to listen on 192.0.2.7' in body
    status, _ = _call(guard, {'SERVER_ADDR': '10.1.2.3'})
    assert status.startswith('503')
    assert calls == [1]
