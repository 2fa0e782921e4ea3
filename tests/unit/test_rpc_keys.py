"""Which RPC signing keys a process starts with (common.rpc_keys), how to make one
(``berth-manage rpc generate-key``) and the upgrade check that says so first."""

import pathlib
import re

from oslo_upgradecheck import upgradecheck
import pytest

from cli import deployment, manage, manage_status
from common import rpc, rpc_keys
from tests import fixtures

Code = upgradecheck.Code
ROOT = pathlib.Path(__file__).resolve().parents[2]
GOOD = 'g' * 12 + 'O0d-k3y_' * 6
BROKER = 'rabbit://guest:guest@127.0.0.1:5672/'

# where berth prints example configuration: every key value found there must be refused
EXAMPLE_FILES = ('README.md', 'doc/**/*.md', 'doc/**/*.rst', 'doc/**/*.txt',
                 'doc/**/*.ini', 'doc/**/*.conf', 'etc/berth/*', 'releasenotes/**/*.yaml',
                 'releasenotes/**/*.rst', 'api-ref/**/*')
SIGNING = re.compile(r'signing_key[ \t]*=[ \t]*([^\s`\'",)]+)')
SERVICE = re.compile(r'service_keys[ \t]*=[ \t]*([^\s`\'")]+)')


def _example_values():
    values = set()
    for pattern in EXAMPLE_FILES:
        for path in ROOT.glob(pattern):
            if not path.is_file():
                continue
            text = path.read_text(errors='replace')
            values.update(SIGNING.findall(text))
            for pairs in SERVICE.findall(text):
                values.update(pair.partition(':')[2] for pair in pairs.split(',')
                              if ':' in pair)
    return values


def test_every_key_in_the_docs_and_samples_is_refused():
    found = _example_values()
    # the scan finds the examples (the deployment guide's, the service's in
    # rpc.md): it is not vacuous
    long_ones = {v for v in found if len(v) >= rpc_keys.MIN_KEY}
    assert len(long_ones) >= 2, found
    accepted = sorted(v for v in found if rpc_keys.key_error('[rpc] signing_key', v) is None)
    assert not accepted, ('keys printed in the docs/samples would be accepted; add them '
                          'to common.rpc_keys.KNOWN_EXAMPLES: %s' % accepted)


@pytest.mark.parametrize('value, words', [
    ('k' * 31, 'shorter than 32 characters'),
    ('', 'shorter than 32 characters'),
    ('SECRET-AT-LEAST-32-CHARACTERS', 'shorter'),
    ('NOVAS-KEY-AT-LEAST-32-CHARACTERS', 'example value'),
    ('PASTE-THE-OUTPUT-OF-berth-manage-rpc-generate-key', 'example value'),
])
def test_short_and_example_keys_are_refused(value, words):
    reason = rpc_keys.key_error('[rpc] signing_key', value)
    assert words in reason and 'berth-manage rpc generate-key' in reason


def test_a_real_key_is_accepted():
    assert rpc_keys.key_error('[rpc] signing_key', GOOD) is None
    assert rpc_keys.key_error('[rpc] signing_key', 'k' * 32) is None


def _conf(tmp_path, **overrides):
    conf = fixtures.make_conf(tmp_path)
    rpc.register_opts(conf)             # [DEFAULT] transport_url
    for name, value in overrides.items():
        group, _, opt = name.rpartition('.')
        conf.set_override(opt, value, group=group or None)
    return conf


def test_a_broker_without_a_key_is_refused_with_what_to_do(tmp_path):
    conf = _conf(tmp_path, transport_url=BROKER)
    reason = rpc_keys.startup_error(conf)
    assert '[rpc] signing_key is not set' in reason
    assert '"berth-manage rpc generate-key"' in reason
    assert 'every berth process' in reason and 'allow_unsigned' in reason
    assert '\n' not in reason
    # the default transport (unset) is RabbitMQ on localhost: refused too
    assert rpc_keys.startup_error(_conf(tmp_path / 'd')) == reason


def test_allow_unsigned_is_the_only_way_to_run_a_broker_without_a_key(tmp_path):
    conf = _conf(tmp_path, transport_url=BROKER, **{'rpc.allow_unsigned': True})
    assert rpc_keys.startup_error(conf) is None
    assert conf.rpc.allow_unsigned is True
    assert _conf(tmp_path / 'd').rpc.allow_unsigned is False      # the default


@pytest.mark.parametrize('url', ['inproc://', 'kombu+memory:////', 'fake://'])
def test_an_in_process_transport_needs_no_key(tmp_path, url):
    assert rpc_keys.startup_error(_conf(tmp_path, transport_url=url)) is None


def test_berth_serve_on_its_defaults_needs_no_key(tmp_path):
    conf = _conf(tmp_path)
    assert rpc_keys.startup_error(conf, deployment.transport_url(conf)) is None
    broker = _conf(tmp_path / 'b', transport_url=BROKER)
    assert rpc_keys.startup_error(broker, deployment.transport_url(broker))


@pytest.mark.parametrize('url', [BROKER, 'inproc://'])
def test_a_bad_key_is_refused_in_every_process_and_transport(tmp_path, url):
    short = _conf(tmp_path, transport_url=url, **{'rpc.signing_key': 'x' * 20})
    assert 'shorter than 32' in rpc_keys.startup_error(short)
    example = _conf(tmp_path / 'e', transport_url=url, **{
        'rpc.signing_key': 'NOVAS-KEY-AT-LEAST-32-CHARACTERS'})
    assert 'example value' in rpc_keys.startup_error(example)
    service = _conf(tmp_path / 's', transport_url=url, **{
        'rpc.signing_key': GOOD, 'rpc.service_keys': {'nova': 'n' * 10}})
    assert 'service_keys key of nova' in rpc_keys.startup_error(service)
    assert rpc_keys.startup_error(_conf(tmp_path / 'g', transport_url=url, **{
        'rpc.signing_key': GOOD, 'rpc.service_keys': {'nova': 'n' * 40}})) is None


def test_generate_key_prints_a_fresh_key_and_where_it_goes(capsys):
    keys = []
    for _ in range(2):
        assert manage.main(['rpc', 'generate-key']) == 0
        out = capsys.readouterr().out
        assert '[rpc]\n' in out and 'every berth process' in out.lower()
        lines = [line for line in out.splitlines() if line.startswith('signing_key = ')]
        assert len(lines) == 1
        keys.append(lines[0].split(' = ', 1)[1])
    assert keys[0] != keys[1]
    for key in keys:
        assert len(key) >= 48 and re.fullmatch(r'[A-Za-z0-9_-]+', key)
        assert rpc_keys.key_error('[rpc] signing_key', key) is None


def _rpc_key_check(conf):
    checks = manage_status.Checks(conf)
    try:
        for title, func in checks._upgrade_checks:
            if title == 'RPC signing key':
                return func(checks)
    finally:
        checks.close()
    raise AssertionError('no "RPC signing key" upgrade check')


def test_upgrade_check_fails_while_a_broker_has_no_key(tmp_path):
    result = _rpc_key_check(_conf(tmp_path, transport_url=BROKER))
    assert result.code == Code.FAILURE
    assert 'refuse to start' in result.details
    assert 'berth-manage rpc generate-key' in result.details
    assert '[rpc] signing_key' in result.details


@pytest.mark.parametrize('overrides, code, words', [
    ({'transport_url': BROKER, 'rpc.allow_unsigned': True}, Code.WARNING, 'unsigned'),
    ({'transport_url': BROKER, 'rpc.signing_key': GOOD}, Code.SUCCESS, 'signed'),
    ({'transport_url': 'inproc://'}, Code.SUCCESS, 'embedded'),
    ({'transport_url': BROKER, 'rpc.signing_key': 'short'}, Code.FAILURE, 'shorter'),
])
def test_upgrade_check_says_the_trust_mode(tmp_path, overrides, code, words):
    result = _rpc_key_check(_conf(tmp_path, **overrides))
    assert result.code == code and words in result.details
