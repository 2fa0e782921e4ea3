"""berth's own defaults for oslo.messaging options (common.rpc.RABBIT_DEFAULTS)."""

import pathlib

from common import rpc
from common.conf import builder

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _conf(config_files=()):
    conf = builder.build(config_files=[str(f) for f in config_files])
    rpc.register_opts(conf)
    return conf


def test_reconnect_delay_defaults_short():
    """A reply listener on a lost node moves on in well under a second (HA tier)."""
    assert _conf().oslo_messaging_rabbit.kombu_reconnect_delay == 0.1


def test_a_configured_reconnect_delay_wins(tmp_path):
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text('[oslo_messaging_rabbit]\nkombu_reconnect_delay = 1.0\n')
    assert _conf([conf_file]).oslo_messaging_rabbit.kombu_reconnect_delay == 1.0


def test_the_sample_shows_berths_default():
    sample = (ROOT / 'etc/berth/berth.conf.sample').read_text()
    section = sample.split('[oslo_messaging_rabbit]', 1)[1].split('\n[', 1)[0]
    assert '#kombu_reconnect_delay = 0.1\n' in section


def test_call_timeout_registers_oslo_messaging_once(monkeypatch):
    """A fresh conf gets oslo.messaging's options (and berth's defaults) on the
    first ask; later asks (one per write call) read the option, no re-registering."""
    conf = builder.build(config_files=[])
    conf.set_override('rpc_timeout', None, group='conductor')
    assert rpc.call_timeout(conf) == conf.rpc_response_timeout
    assert conf.oslo_messaging_rabbit.kombu_reconnect_delay == 0.1
    calls = []
    monkeypatch.setattr(rpc, 'register_opts', calls.append)
    conf.set_override('rpc_response_timeout', 23)
    assert rpc.call_timeout(conf) == 23
    assert calls == []
