"""noauth2 is for loopback only: the API entry points refuse anything else unless told."""

import pytest

from cli import api as api_cli
from cli import berth as berth_cli
from cli import security
from tests import fixtures


@pytest.mark.parametrize('host', ['127.0.0.1', '127.0.0.2', '::1', 'localhost'])
def test_loopback_is_allowed(tmp_path, host):
    conf = fixtures.make_conf(tmp_path, **{'api.host': host})
    assert security.noauth_bind_error(conf) is None


@pytest.mark.parametrize('host', ['0.0.0.0', '::', '192.0.2.10', 'no-such-host.invalid'])
def test_non_loopback_is_refused_with_the_reason(tmp_path, host):
    conf = fixtures.make_conf(tmp_path, **{'api.host': host})
    error = security.noauth_bind_error(conf)
    assert 'refusing to listen on %s' % host in error
    assert 'X-Auth-Token' in error and '--allow-insecure-noauth' in error


def test_explicit_override_allows_it(tmp_path):
    conf = fixtures.make_conf(tmp_path, **{'api.host': '0.0.0.0',
                                           'api.allow_insecure_noauth': True})
    assert security.noauth_bind_error(conf) is None


def test_keystone_may_listen_anywhere(tmp_path):
    conf = fixtures.make_conf(tmp_path, **{'api.host': '0.0.0.0',
                                           'api.auth_strategy': 'keystone'})
    assert security.noauth_bind_error(conf) is None


def test_berth_serve_refuses_before_starting_anything(tmp_path, capsys):
    data = tmp_path / 'data'
    code = berth_cli.main(['serve', '--host', '0.0.0.0', '--data-dir', str(data),
                           '--placement-port', '0', '--baremetal-port', '0'])
    assert code == 2
    err = capsys.readouterr().err
    assert 'refusing to listen on 0.0.0.0' in err and 'noauth2' in err
    assert not data.exists()  # no database created, nothing bound


def test_berth_serve_flag_sets_the_option(monkeypatch, tmp_path):
    seen = {}

    def fake_check(conf):
        seen['allow'] = conf.api.allow_insecure_noauth
        seen['host'] = conf.api.host
        return 'stop here'

    # the process edge: stop right after the check, before anything binds
    monkeypatch.setattr(security, 'noauth_bind_error', fake_check)
    assert berth_cli.main(['serve', '--host', '0.0.0.0', '--allow-insecure-noauth',
                           '--data-dir', str(tmp_path)]) == 2
    assert seen == {'allow': True, 'host': '0.0.0.0'}


def test_berth_api_refuses_noauth_on_any_address(tmp_path, capsys):
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text('[api]\nauth_strategy = noauth2\nhost = 0.0.0.0\n'
                         '[DEFAULT]\nstate_path = %s\n' % tmp_path)
    assert api_cli.main(['--config-file', str(conf_file)]) == 2
    assert 'refusing to listen on 0.0.0.0' in capsys.readouterr().err
