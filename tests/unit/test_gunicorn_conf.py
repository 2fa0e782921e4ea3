"""etc/berth/gunicorn.conf.py: each API's master has a control socket of its own."""

import pathlib
import runpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONF = str(ROOT / 'etc/berth/gunicorn.conf.py')


def _settings(monkeypatch, **env):
    for name in ('BERTH_BIND', 'BERTH_CONTROL_SOCKET', 'XDG_RUNTIME_DIR'):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(CONF)


def test_two_apis_on_one_host_get_two_control_sockets(monkeypatch, tmp_path):
    monkeypatch.setenv('HOME', str(tmp_path))
    placement = _settings(monkeypatch, BERTH_BIND='0.0.0.0:8778')['control_socket']
    baremetal = _settings(monkeypatch, BERTH_BIND='0.0.0.0:6385')['control_socket']
    assert placement != baremetal
    assert placement.startswith(str(tmp_path / '.gunicorn'))
    assert not placement.endswith('/gunicorn.ctl')       # gunicorn's shared default


def test_the_control_socket_can_be_named(monkeypatch, tmp_path):
    named = str(tmp_path / 'p.ctl')
    assert _settings(monkeypatch, BERTH_CONTROL_SOCKET=named)['control_socket'] == named
    runtime = _settings(monkeypatch, XDG_RUNTIME_DIR=str(tmp_path), BERTH_BIND='unix:/x/y')
    assert runtime['control_socket'] == str(tmp_path / 'berth-unix-_x_y.ctl')


def test_the_worker_timeout_sits_above_the_write_bound(monkeypatch, conf):
    """gunicorn never kills a worker that waits out berth's own RPC bound (60 s + retries)."""
    from common import rpc
    monkeypatch.delenv('BERTH_WORKER_TIMEOUT', raising=False)
    assert _settings(monkeypatch)['timeout'] >= rpc.call_timeout(conf) + 30
    assert _settings(monkeypatch, BERTH_WORKER_TIMEOUT='150')['timeout'] == 150
