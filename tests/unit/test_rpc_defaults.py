"""berth's own defaults for oslo.messaging options (common.rpc.RABBIT_DEFAULTS)."""

import pathlib

from common import rpc
from common.conf import builder
from tests import services

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


def _count_list_opts(monkeypatch):
    """Count how often oslo.messaging's options are listed (copied) for registering."""
    calls = []
    real = rpc.messaging_opts.list_opts

    def list_opts():
        calls.append(1)
        return real()
    monkeypatch.setattr(rpc.messaging_opts, 'list_opts', list_opts)
    return calls


def test_call_timeout_registers_oslo_messaging_once(monkeypatch):
    """A fresh conf gets oslo.messaging's options (and berth's defaults) on the
    first ask; later asks (one per write call) read the option, no re-registering."""
    listed = _count_list_opts(monkeypatch)
    conf = builder.build(config_files=[])
    conf.set_override('rpc_timeout', None, group='conductor')
    assert rpc.call_timeout(conf) == conf.rpc_response_timeout
    assert conf.oslo_messaging_rabbit.kombu_reconnect_delay == 0.1
    assert listed == [1]
    conf.set_override('rpc_response_timeout', 23)
    assert rpc.call_timeout(conf) == 23
    assert listed == [1]


def test_registering_again_is_remembered_per_conf(monkeypatch):
    """register_opts copies every oslo.messaging option (~2 ms): once per ConfigOpts;
    a repeat (get_transport, the notifier, the CLI) keeps overrides and defaults."""
    listed = _count_list_opts(monkeypatch)
    conf = builder.build(config_files=[])
    rpc.register_opts(conf)
    conf.set_override('kombu_reconnect_delay', 2.0, group='oslo_messaging_rabbit')
    rpc.register_opts(conf)
    assert listed == [1]
    assert conf.oslo_messaging_rabbit.kombu_reconnect_delay == 2.0
    other = builder.build(config_files=[])
    rpc.register_opts(other)          # another ConfigOpts registers its own
    assert listed == [1, 1]
    assert other.oslo_messaging_rabbit.kombu_reconnect_delay == 0.1
    assert other.rpc_response_timeout == 60


def test_amqp_polls_start_slower(monkeypatch):
    """The reply waiter's and listener's first poll timeout (a message is handed
    on when it arrives whatever the timeout): raised to POLL_MIN, never lowered."""
    from oslo_messaging._drivers import amqpdriver
    monkeypatch.setattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN', 0.001)
    rpc.slow_amqp_polls()
    assert amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN == rpc.POLL_MIN
    assert rpc.POLL_MIN < amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX
    monkeypatch.setattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN', 1.0)
    rpc.slow_amqp_polls()
    assert amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN == 1.0


def test_reply_polls_left_alone_when_oslo_renames_the_floor(monkeypatch):
    """The floor is a private oslo.messaging constant: without it, nothing is set."""
    from oslo_messaging._drivers import amqpdriver
    monkeypatch.delattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN')
    rpc.slow_amqp_polls()
    assert not hasattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN')


def test_berth_conductor_polls_slower_before_it_serves(monkeypatch, tmp_path):
    """berth-conductor raises the floor before its RPC server's listener starts."""
    from oslo_messaging._drivers import amqpdriver

    from cli import conductor as cli_conductor

    monkeypatch.setattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN', 0.001)
    seen = []

    class Service:
        def __init__(self, conf, host, db):
            pass

        def start(self, on_phase=None):
            seen.append(amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN)

        def stop(self):
            pass

    class Database:
        def dispose(self):
            pass

    def run(life, start, stop, bound):
        start(life)
        stop()
        return 0

    monkeypatch.setattr(cli_conductor.conductor_service, 'ConductorService', Service)
    monkeypatch.setattr(cli_conductor.database, 'open_database', lambda conf: Database())
    monkeypatch.setattr(cli_conductor.lifecycle.Lifecycle, 'run', run)
    config = tmp_path / 'berth.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\n' % tmp_path + services.RPC_CONF)
    assert cli_conductor.main(['--config-file', str(config)]) == 0
    assert seen == [rpc.POLL_MIN]
