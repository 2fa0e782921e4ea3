"""/quotas says whether its limits bite: ``enforced``, and a warning when they do not.

The enforced side (no warning, ``enforced: true``) is in test_quotas.py, whose
berth enforces quotas.
"""

import json

from cli import manage
from objects.placement import quota as quota_obj
from tests import fixtures


def test_a_limit_set_while_not_enforced_is_answered_with_a_warning(client):
    resp = client.put('/quotas/p1', json={'resources': {'VCPU': 4}})
    assert resp.status_code == 200
    body = resp.json()
    assert body['enforced'] is False
    assert body['warning'] == quota_obj.NOT_ENFORCED
    assert resp.headers['Warning'] == '299 berth "%s"' % quota_obj.NOT_ENFORCED
    shown = client.get('/quotas/p1').json()
    assert shown['enforced'] is False
    assert shown['resources'] == {'VCPU': {'limit': 4, 'usage': 0}}   # stored all the same


def test_the_cli_says_whether_limits_are_enforced(tmp_path, tmp_path_factory, capsys):
    state = tmp_path / 'state'
    url = fixtures.fresh_database(tmp_path_factory.getbasetemp(), fixtures.make_conf(state))
    cfg = tmp_path / 'berth.conf'
    cfg.write_text('[DEFAULT]\nstate_path = %s\n[database]\nconnection = %s\n' % (state, url))
    assert manage.main(['--config-file', str(cfg), 'quota', 'set', 'p1',
                        '--resource', 'VCPU=2']) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)['enforced'] is False
    assert quota_obj.NOT_ENFORCED in err
    cfg.write_text(cfg.read_text() + '[quota]\nenforce = true\n')
    assert manage.main(['--config-file', str(cfg), 'quota', 'set', 'p1',
                        '--resource', 'VCPU=2']) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)['enforced'] is True and err == ''
