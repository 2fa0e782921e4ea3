"""``berth-manage policy list|check``: the effective policy, overrides included."""

from cli import manage


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_check_shows_what_a_project_reader_may_do(capsys):
    assert manage.main(['policy', 'check', '--role', 'reader', '--project-id', 'p1']) == 0
    out = _lines(capsys)
    assert 'allow   placement:usages' in out
    assert 'deny    placement:resource_providers:create' in out
    assert 'allow   baremetal:allocation:get' in out
    assert 'deny    baremetal:node:create' in out


def test_check_as_admin_and_for_another_project(capsys):
    assert manage.main(['policy', 'check', '--role', 'admin']) == 0
    assert 'allow   placement:reshaper:reshape' not in _lines(capsys)  # service only
    assert manage.main(['policy', 'check', '--role', 'reader', '--project-id', 'p1',
                        '--target-project-id', 'p2']) == 0
    assert 'deny    placement:usages' in _lines(capsys)


def test_list_merges_the_operators_policy_file(tmp_path, capsys):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"placement:resource_providers:list": "role:reader"\n')
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text('[oslo_policy]\npolicy_file = %s\n' % policy_file)
    assert manage.main(['--config-file', str(conf_file), 'policy', 'list']) == 0
    out = _lines(capsys)
    assert 'placement:resource_providers:list: role:reader' in out
    assert 'placement:resource_providers:create: rule:admin_or_service_api' in out
    assert manage.main(['--config-file', str(conf_file), 'policy', 'check',
                        '--role', 'reader']) == 0
    assert 'allow   placement:resource_providers:list' in _lines(capsys)


def test_check_a_system_admin_and_a_domain_scoped_token_on_v1(capsys):
    """--role admin carries Keystone's implied member and reader roles."""
    assert manage.main(['policy', 'check', '--role', 'admin', '--system-scope', 'all']) == 0
    out = _lines(capsys)
    for rule in ('baremetal:node:create', 'baremetal:allocation:list_all',
                 'baremetal:allocation:create_restricted', 'baremetal:node:get'):
        assert 'allow   %s' % rule in out, rule
    assert manage.main(['policy', 'check', '--role', 'member', '--project-id', 'p1']) == 0
    out = _lines(capsys)
    assert 'allow   baremetal:allocation:create' in out
    assert 'allow   baremetal:node:get' in out          # the target project owns it
    assert 'deny    baremetal:allocation:list_all' in out
    assert 'deny    baremetal:node:create' in out
