"""``berth-manage quota set|show|delete`` against a migrated database (BERTH_TEST_DB)."""

import json

import pytest

from cli import manage
from tests import fixtures


@pytest.fixture
def cfg(tmp_path, tmp_path_factory):
    state = tmp_path / 'state'
    conf = fixtures.make_conf(state)
    url = fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    path = tmp_path / 'berth.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n[database]\nconnection = %s\n'
                    % (state, url))
    return str(path)


def _run(cfg, capsys, *args):
    code = manage.main(['--config-file', cfg, 'quota'] + list(args))
    return code, capsys.readouterr().out


def test_set_show_delete(cfg, capsys):
    code, out = _run(cfg, capsys, 'set', 'p1', '--resource', 'VCPU=10',
                     '--resource', 'MEMORY_MB=2048', '--consumers', 'INSTANCE=3')
    assert code == 0, out
    shown = json.loads(out)
    assert shown['resources']['VCPU'] == {'limit': 10, 'usage': 0}
    assert shown['consumers'] == {'INSTANCE': {'limit': 3, 'usage': 0}}
    code, out = _run(cfg, capsys, 'show', 'p1', '--user', 'u1')
    assert code == 0 and json.loads(out)['resources'] == {}
    assert _run(cfg, capsys, 'delete', 'p1') == (0, 'Removed 3 limit(s).\n')
    assert json.loads(_run(cfg, capsys, 'show', 'p1')[1])['resources'] == {}


@pytest.mark.parametrize('arg, text', [
    ('VCPU=-1', 'non-negative integer'),
    ('VCPU=two', 'non-negative integer'),
    ('NO_SUCH_CLASS=1', 'NO_SUCH_CLASS'),
    ('VCPU', 'expected CLASS=N'),
])
def test_bad_limits_fail_and_write_nothing(cfg, capsys, arg, text):
    assert _run(cfg, capsys, 'set', 'p1', '--resource', 'VCPU=5')[0] == 0
    code, out = _run(cfg, capsys, 'set', 'p1', '--resource', arg)
    assert code == 1 and text in out
    assert json.loads(_run(cfg, capsys, 'show', 'p1')[1])['resources'] == {
        'VCPU': {'limit': 5, 'usage': 0}}
