"""Options in a configuration file that nothing reads are named (cli.config_spelling)."""

import pathlib

import pytest

from cli import config_spelling
from common.conf import builder

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _mistakes(tmp_path, body):
    path = tmp_path / 'berth.conf'
    path.write_text(body)
    conf = builder.build(['--config-file', str(path)], config_files=[])
    errors, warnings = config_spelling.mistakes(conf)
    return [e.replace(str(path), 'F') for e in errors], \
        [w.replace(str(path), 'F') for w in warnings]


def test_the_namespaces_are_the_sample_configurations():
    listed = [line.split('=', 1)[1].strip() for line in
              (ROOT / 'etc/berth/berth-config-generator.conf').read_text().splitlines()
              if line.startswith('namespace')]
    assert tuple(listed) == config_spelling.NAMESPACES


def test_an_unknown_option_is_named_with_its_line_and_the_closest_name(tmp_path):
    errors, warnings = _mistakes(tmp_path, '[DEFAULT]\ndebug = true\n\n[database]\n'
                                           'conection = sqlite://\n[api]\nplacement_port = 1\n')
    assert errors == ["F:5: unknown option 'conection' in [database] "
                      "(did you mean 'connection'?)"]
    assert warnings == []


def test_no_hint_when_nothing_is_close(tmp_path):
    errors, _ = _mistakes(tmp_path, '[api]\nfrobnicate = 1\n')
    assert errors == ["F:2: unknown option 'frobnicate' in [api]"]


def test_comments_continuations_and_dashes_are_no_options(tmp_path):
    errors, _ = _mistakes(tmp_path, '[DEFAULT]\n# nope = 1\n; nope2 = 1\n'
                                    'host = a\n  continued line = x\n[api]\n'
                                    'placement-port = 8778\n')
    assert errors == []


def test_deprecated_names_are_still_read(tmp_path):
    # oslo.messaging reads rpc_thread_pool_size as executor_thread_pool_size,
    # oslo.log logfile as log_file
    errors, _ = _mistakes(tmp_path, '[DEFAULT]\nrpc_thread_pool_size = 4\n'
                                    'logfile = /tmp/x.log\n')
    assert errors == []


def test_keystoneauth_plugin_options_are_read_in_an_auth_type_group(tmp_path):
    errors, warnings = _mistakes(tmp_path, '[keystone_authtoken]\nauth_type = password\n'
                                           'auth_url = http://k\nusername = u\n'
                                           'password = p\nproject_name = s\n'
                                           'user_domain_name = Default\n'
                                           'www_authenticate_uri = http://k\n'
                                           'memcached_servers = m:11211\n'
                                           'pasword = typo\n')
    assert errors == ["F:10: unknown option 'pasword' in [keystone_authtoken] "
                      "(did you mean 'password'?)"]
    assert warnings == []


def test_a_group_nothing_reads_is_a_warning_once(tmp_path):
    errors, warnings = _mistakes(tmp_path, '[nova]\na = 1\nb = 2\n[coordinaton]\nx = 1\n')
    assert errors == []
    assert warnings == ['F:1: [nova] is not read by berth',
                        "F:4: [coordinaton] is not read by berth (did you mean "
                        "'coordination'?)"]


def test_check_or_exit_prints_one_line_per_mistake_and_exits_2(tmp_path, capsys):
    path = tmp_path / 'berth.conf'
    path.write_text('[api]\nworkerz = 2\n')
    conf = builder.build(['--config-file', str(path)], config_files=[])
    with pytest.raises(SystemExit) as exit_:
        config_spelling.check_or_exit('berth-api', conf)
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        "berth-api: %s:2: unknown option 'workerz' in [api] (did you mean "
        "'workers'?)\n" % path)


def test_without_a_file_nothing_is_loaded(monkeypatch):
    monkeypatch.setattr(config_spelling, 'known_options', lambda *a: pytest.fail('loaded'))
    conf = builder.build([], config_files=[])
    assert config_spelling.mistakes(conf) == ([], [])


def test_without_keystoneauth_an_auth_type_group_is_not_judged(tmp_path, monkeypatch):
    monkeypatch.setattr(config_spelling, '_keystoneauth_options', lambda: None)
    errors, _ = _mistakes(tmp_path, '[oslo_limit]\nauth_type = password\npasword = x\n'
                                    '[api]\nworkerz = 1\n')
    assert errors == ["F:5: unknown option 'workerz' in [api] (did you mean 'workers'?)"]
