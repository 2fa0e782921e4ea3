"""The RPC door fails closed as shipped: a broker process without a usable
``[rpc] signing_key`` refuses to start, in one line, before it connects.

The real console scripts run in a subprocess with a ``rabbit://`` transport
URL to a port nobody listens on: they must refuse before dialling it (a
process that dialled would sit in the driver's connect loop instead).
"""

import os
import pathlib
import subprocess
import sys

import pytest

from api import wsgi
from cli import berth as berth_cli
from common import rpc_keys, rpc_trust
from tests import fixtures, services

BIN = pathlib.Path(sys.executable).parent
ROOT = pathlib.Path(__file__).resolve().parents[2]
GOOD = 'R3al-key_' * 6


def _conf_file(tmp_path, rpc_lines=''):
    path = tmp_path / 'berth.conf'
    path.write_text(
        '[DEFAULT]\nstate_path = %s\ntransport_url = rabbit://guest:guest@127.0.0.1:%d/\n'
        '[database]\nconnection = sqlite:///%s\n'
        '[coordination]\nbackend_url = file://%s\n'
        '[api]\nauth_strategy = noauth2\nplacement_port = %d\nbaremetal_port = %d\n%s'
        % (tmp_path / 'state', services.free_port(), tmp_path / 'berth.sqlite',
           tmp_path / 'coord', services.free_port(), services.free_port(), rpc_lines))
    return path


def _run(name, path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop('BERTH_TEST_RPC_KEY', None)
    return subprocess.run([str(BIN / name), '--config-file', str(path)], env=env,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def _refused_in_one_line(done, name, words):
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert 'Traceback' not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith('%s: ' % name) and words in lines[0], lines[0]
    assert 'berth-manage rpc generate-key' in lines[0]
    assert done.stdout == ''            # nothing served, nothing printed
    return lines[0]


@pytest.mark.parametrize('name', ['berth-conductor', 'berth-api'])
def test_a_broker_process_without_a_key_refuses_to_start(tmp_path, name):
    line = _refused_in_one_line(_run(name, _conf_file(tmp_path)), name,
                                '[rpc] signing_key is not set')
    # what to do and where
    assert 'every berth process' in line and '[rpc] allow_unsigned = true' in line


@pytest.mark.parametrize('name, key, words', [
    ('berth-conductor', 'k' * 31, 'shorter than 32 characters'),
    ('berth-api', 'k' * 31, 'shorter than 32 characters'),
    ('berth-api', 'PASTE-THE-OUTPUT-OF-berth-manage-rpc-generate-key', 'example value'),
    ('berth-conductor', 'NOVAS-KEY-AT-LEAST-32-CHARACTERS', 'example value'),
])
def test_a_short_or_documented_key_refuses_to_start(tmp_path, name, key, words):
    path = _conf_file(tmp_path, '[rpc]\nsigning_key = %s\n' % key)
    _refused_in_one_line(_run(name, path), name, words)


def test_a_short_service_key_refuses_the_conductor(tmp_path):
    path = _conf_file(tmp_path, '[rpc]\nsigning_key = %s\nservice_keys = nova:short\n'
                      % GOOD)
    _refused_in_one_line(_run('berth-conductor', path), 'berth-conductor',
                         'service_keys key of nova')


def test_berth_serve_with_a_broker_and_no_key_refuses(tmp_path, capsys):
    path = _conf_file(tmp_path)
    assert berth_cli.main(['serve', '--config-file', str(path), '--data-dir',
                           str(tmp_path / 'data')]) == 2
    err = capsys.readouterr().err
    assert err.startswith('berth: [rpc] signing_key is not set')
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / 'data').exists()


def test_the_wsgi_entry_point_refuses_too(tmp_path):
    with pytest.raises(wsgi.StartupRefused) as err:
        wsgi.init_application(config_files=[str(_conf_file(tmp_path))])
    assert 'berth-manage rpc generate-key' in str(err.value)


class _Rabbit:
    """A transport whose driver is the rabbit one (nothing is dialled)."""

    def __init__(self, conf):
        self._driver = type('D', (), {'__module__': 'oslo_messaging._drivers.impl_rabbit'})()
        self.conf = conf


def test_allow_unsigned_runs_unsigned_with_the_warning(tmp_path, caplog, monkeypatch):
    conf = fixtures.make_conf(tmp_path)
    with pytest.raises(rpc_keys.Refused):
        rpc_trust.signing(_Rabbit(conf))         # any client built on a broker
    with pytest.raises(rpc_keys.Refused):
        rpc_trust.verifier(conf, _Rabbit(conf), 'c1')   # any conductor
    conf.set_override('allow_unsigned', True, group='rpc')
    monkeypatch.setattr(rpc_trust, '_LOGGED', set())
    with caplog.at_level('WARNING', logger='berth'):
        assert rpc_trust.verifier(conf, _Rabbit(conf), 'c1') is None
    assert 'trust mode: unsigned' in caplog.text and 'allow_unsigned' in caplog.text
