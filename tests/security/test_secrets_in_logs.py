"""No password or token reaches the logs or the console: options, start-up, request paths."""

import logging

from oslo_config import cfg
import pytest

from cli import berth as berth_cli
from cli import config as cli_config
from common import rpc
from common.conf import opts as conf_opts
from tests import fixtures

RABBIT_PW = 'RabbitS3cret-pw-4417'
DB_PW = 'DbS3cret-pw-9021'
REDIS_PW = 'RedisS3cret-pw-5530'
TOKEN = 'tok-8f2c1e55aa0b4e7f'
SECRETS = (RABBIT_PW, DB_PW, REDIS_PW, TOKEN)

# option names that may carry a credential (a URL with user:password, a key)
_CREDENTIAL = ('password', 'url', 'connection', 'secret', 'token')


def test_every_berth_option_that_can_carry_a_credential_is_secret():
    leaky = ['%s.%s' % (group, opt.dest) for group, opts in conf_opts.list_opts()
             for opt in opts
             if any(w in opt.dest for w in _CREDENTIAL) and not opt.secret
             and isinstance(opt, cfg.StrOpt)]
    assert leaky == []


def test_the_library_urls_we_document_are_secret(tmp_path):
    conf = fixtures.make_conf(tmp_path)
    rpc.register_opts(conf)
    for group, name in ((None, 'transport_url'), ('database', 'connection'),
                        ('database', 'slave_connection'),
                        ('coordination', 'backend_url')):
        opt = conf._get_opt_info(name, group)['opt']
        assert opt.secret, (group, name)


def test_the_debug_option_dump_masks_credentials(tmp_path, caplog):
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text(
        '[DEFAULT]\ntransport_url = rabbit://berth:%s@rabbit.example:5671/\n'
        '[database]\nconnection = postgresql+psycopg2://berth:%s@db.example/berth'
        '?sslmode=verify-full\n'
        '[coordination]\nbackend_url = redis://:%s@redis.example:6379\n'
        % (RABBIT_PW, DB_PW, REDIS_PW))
    conf = cli_config.make_conf(['--config-file', str(conf_file)])
    rpc.register_opts(conf)
    caplog.set_level(logging.DEBUG)
    conf.log_opt_values(logging.getLogger('berth.test'), logging.DEBUG)
    assert 'transport_url' in caplog.text and 'backend_url' in caplog.text
    for secret in (RABBIT_PW, DB_PW, REDIS_PW):
        assert secret not in caplog.text


@pytest.fixture
def secret_berth(tmp_path_factory, tmp_path):
    """An embedded berth whose transport URL carries a password, logging at DEBUG."""
    conf = fixtures.make_conf(tmp_path / 'state', debug=True)
    rpc.register_opts(conf)
    conf.set_override('transport_url', 'fake://berth:%s@127.0.0.1:5672/' % RABBIT_PW)
    fixtures.migrated_sqlite(tmp_path_factory.getbasetemp(), conf.state_path)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def test_request_paths_log_no_secret(secret_berth, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    placement = fixtures.PlacementClient(secret_berth.placement_url, version='latest')
    hdrs = {'X-Auth-Token': 'admin', 'X-Service-Token': TOKEN,
            'Authorization': 'Bearer ' + TOKEN}
    rp = placement.post('/resource_providers', json={'name': 'rp'}, headers=hdrs).json()
    placement.put('/resource_providers/%s/inventories' % rp['uuid'], headers=hdrs, json={
        'resource_provider_generation': rp['generation'],
        'inventories': {'VCPU': {'total': 4}}})
    resp = placement.put('/allocations/0b7f1f86-4a0e-4b4e-9d43-2c3ec1b2a001', headers=hdrs,
                         json={'allocations': {rp['uuid']: {'resources': {'VCPU': 1}}},
                               'project_id': 'p', 'user_id': 'u',
                               'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    assert resp.status_code == 204, resp.text  # through the conductor over RPC
    placement.get('/resource_providers?name=%s' % TOKEN, headers=hdrs)
    placement.close()
    bm = fixtures.BaremetalClient(secret_berth.baremetal_url)
    bm.post('/v1/allocations', json={'resource_class': 'none'}, headers=hdrs)
    bm.close()
    print(secret_berth.banner())
    out = capsys.readouterr()
    assert caplog.records
    for secret in (RABBIT_PW, DB_PW):
        assert secret not in caplog.text
        assert secret not in out.out + out.err
    # a token in a header is never logged (one in a query string is the caller's choice)
    assert 'Bearer' not in caplog.text


def test_berth_serve_banner_and_refusal_show_no_secret(tmp_path, capsys):
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text('[DEFAULT]\ntransport_url = rabbit://berth:%s@rabbit.example/\n'
                         '[api]\nauth_strategy = noauth2\nhost = 0.0.0.0\n' % RABBIT_PW)
    assert berth_cli.main(['serve', '--config-file', str(conf_file),
                           '--data-dir', str(tmp_path / 'd')]) == 2
    out = capsys.readouterr()
    assert 'refusing' in out.err
    assert RABBIT_PW not in out.out + out.err

