"""``berth-manage status``: each upgrade check, the table and the exit code."""

import json

from oslo_policy import opts as policy_opts
from oslo_upgradecheck import upgradecheck
import pytest

from cli import manage, manage_status
from tests import fixtures, nova_cell, services
from tests.functional import legacy_helpers

Code = upgradecheck.Code


class FakeRing:
    """Stands in for the tooz group (a process edge)."""

    def __init__(self, members, versions=None):
        self._members = members
        self._versions = versions or {}

    def members(self):
        if isinstance(self._members, Exception):
            raise self._members
        return frozenset(self._members)

    def describe(self):
        return [{'host': h, 'capabilities': {'rpc_api_version': self._versions.get(h, '1.7')}}
                for h in sorted(self.members())]

    def stop(self):
        pass


def _checks(conf, members=None, answers=None, versions=None):
    ring = None if members is None else (lambda _conf: FakeRing(members, versions))

    def pinger(_conf, host):
        answer = answers[host]
        if isinstance(answer, Exception):
            raise answer
        return {'host': host, 'members': answer}

    return manage_status.Checks(conf, ring_factory=ring,
                                pinger=pinger if answers is not None else None)


def _run(checks, name):
    for title, func in checks._upgrade_checks:
        if title == name:
            try:
                return func(checks)
            finally:
                checks.close()
    raise KeyError(name)


def test_running_embedded_berth(berth, conf, capsys):
    checks = manage_status.Checks(conf)
    try:
        code = checks.check()
    finally:
        checks.close()
    out = capsys.readouterr().out
    assert 'berth upgrade check results' in out
    assert '| Database schema ' in out and 'Schema at head' in out
    assert 'All online data migrations are complete.' in out
    # the embedded conductor is a real member of the file-based tooz group
    assert '| Conductor ring members | Warning |' in out and '%s-c0' % conf.host in out
    # an unset transport_url is read as berth-conductor reads it (RabbitMQ on
    # localhost), not as the in-process transport of this embedded test berth
    assert '| Conductors reachable   | Failure |' in out
    assert 'transport_url is unset' in ' '.join(out.split())
    # the embedded conductor publishes this code's RPC version: the gate is open
    assert '| Compute node gate      | Success |' in out
    assert code == Code.FAILURE


def test_empty_database_fails_schema_and_migrations(tmp_path):
    conf = fixtures.make_conf(tmp_path / 'empty')
    assert _run(manage_status.Checks(conf), 'Database schema').code == Code.FAILURE
    result = _run(manage_status.Checks(conf), 'Online data migrations')
    assert result.code == Code.FAILURE and 'schema is not at head' in result.details


def test_pending_migrations_fail_then_bad_rows_only_warn(berth, conf, ctx):
    nova_cell.set_conf(conf)
    rows = nova_cell.make_rows(14)
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    result = _run(manage_status.Checks(conf), 'Online data migrations')
    assert result.code == Code.FAILURE
    assert 'compute nodes -> providers: 9' in result.details
    from objects.legacy import online_migrations
    online_migrations.run(ctx, conf)
    result = _run(manage_status.Checks(conf), 'Online data migrations')
    assert result.code == Code.WARNING
    assert '4 compute node(s) cannot be migrated (ids 10, 11, 12, 13)' in result.details


def test_invalid_migration_configuration_fails(berth, conf):
    conf.set_override('cpu_allocation_ratio', -1.0)
    result = _run(manage_status.Checks(conf), 'Online data migrations')
    assert result.code == Code.FAILURE and 'cpu_allocation_ratio' in result.details


@pytest.mark.parametrize('members,code,text', [
    ([], Code.FAILURE, 'No conductor is a member'),
    (['c1'], Code.WARNING, 'A single conductor has no standby'),
    (['c1', 'c2'], Code.SUCCESS, '2 member(s): c1, c2.'),
    (RuntimeError('etcd is down'), Code.FAILURE, 'etcd is down'),
])
def test_ring_members(conf, members, code, text):
    result = _run(_checks(conf, members), 'Conductor ring members')
    assert result.code == code and text in result.details


@pytest.mark.parametrize('members,versions,code,text', [
    (['c1', 'c2'], {}, Code.SUCCESS, 'All 2 conductor(s) speak RPC 1.7 or later'),
    (['c1', 'c2', 'c3'], {'c2': '1.6', 'c3': None}, Code.WARNING,
     'older: c2 (1.6), c3 (unknown)'),
    ([], {}, Code.WARNING, 'No conductor is a member'),
    (RuntimeError('etcd is down'), {}, Code.FAILURE, 'etcd is down'),
])
def test_compute_node_write_gate(conf, members, versions, code, text):
    result = _run(_checks(conf, members, versions=versions), 'Compute node gate')
    assert result.code == code and text in ' '.join(result.details.split())


@pytest.mark.parametrize('answers,code,text', [
    ({'c1': ['c1', 'c2'], 'c2': ['c1', 'c2']}, Code.SUCCESS, 'All 2 conductor(s)'),
    ({'c1': ['c1', 'c2'], 'c2': TimeoutError()}, Code.FAILURE,
     'Unreachable over RPC: c2 (TimeoutError)'),
    ({'c1': ['c1', 'c2'], 'c2': ['c2']}, Code.WARNING, 'c2 see(s) a different ring'),
])
def test_conductors_reachable(conf, answers, code, text):
    conf_with_broker(conf)
    result = _run(_checks(conf, ['c1', 'c2'], answers), 'Conductors reachable')
    assert result.code == code and text in result.details


def test_no_conductor_to_reach(conf):
    conf_with_broker(conf)
    result = _run(_checks(conf, [], {}), 'Conductors reachable')
    assert result.code == Code.FAILURE


def test_in_process_transport_only_warns(conf):
    manage_status._transport_url(conf)   # registers the messaging options
    conf.set_override('transport_url', 'inproc://')
    result = _run(_checks(conf, ['c1'], {'c1': ['c1']}), 'Conductors reachable')
    assert result.code == Code.WARNING and 'in-process' in result.details


def test_unset_transport_is_read_as_the_conductor_reads_it(conf):
    """Unset: the conductor dials RabbitMQ on localhost, so the check does too."""
    result = _run(_checks(conf, ['c1'], {'c1': ConnectionRefusedError('c1')}),
                  'Conductors reachable')
    assert result.code == Code.FAILURE
    assert 'transport_url is unset' in result.details
    assert "rabbit://guest@localhost:5672/" in result.details


def conf_with_broker(conf):
    manage_status._transport_url(conf)   # registers the messaging options
    conf.set_override('transport_url', 'rabbit://guest:guest@127.0.0.1:5999/')


def _policy(conf, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    policy_opts.set_defaults(conf)
    conf.set_override('policy_file', str(path), group='oslo_policy')
    return _run(manage_status.Checks(conf), 'Policy file')


def test_policy_default_and_yaml_override(conf, tmp_path):
    assert _run(manage_status.Checks(conf), 'Policy file').code == Code.SUCCESS
    result = _policy(conf, tmp_path, 'policy.yaml',
                     '"placement:resource_providers:list": "role:admin"\n')
    assert result.code == Code.SUCCESS and '1 rule(s) overridden' in result.details


def test_policy_json_file_fails(conf, tmp_path):
    result = _policy(conf, tmp_path, 'policy.json', json.dumps(
        {'placement:resource_providers:list': 'role:admin'}))
    assert result.code == Code.FAILURE and 'JSON-formatted' in result.details


def test_policy_unknown_rule_warns(conf, tmp_path):
    result = _policy(conf, tmp_path, 'policy.yaml', '"placement:no_such_rule": ""\n')
    assert result.code == Code.WARNING and 'placement:no_such_rule' in result.details


def test_policy_broken_yaml_fails(conf, tmp_path):
    result = _policy(conf, tmp_path, 'policy.yaml', '"a": [unclosed\n')
    assert result.code == Code.FAILURE and 'cannot be loaded' in result.details


def test_cli_prints_the_table_and_exits_with_the_worst_code(tmp_path, capsys):
    cfg = tmp_path / 'berth.conf'
    cfg.write_text('[DEFAULT]\nstate_path = %s\n' % (tmp_path / 'nothing'))
    assert manage.main(['--config-file', str(cfg), 'status']) == 2
    out = capsys.readouterr().out
    assert '| Database schema        | Failure |' in out
    assert 'run "berth-manage db sync"' in out


def test_unreachable_database_is_a_failure_row_not_a_traceback(tmp_path, capsys):
    port = services.free_port()          # nobody listens there
    cfg = tmp_path / 'berth.conf'
    cfg.write_text('[DEFAULT]\nstate_path = %s\n[database]\nconnection = '
                   'postgresql+psycopg2://berth@127.0.0.1:%d/berth\nmax_retries = 0\n'
                   % (tmp_path / 'state', port))
    assert manage.main(['--config-file', str(cfg), 'status']) == 2
    out = capsys.readouterr().out
    assert '| Database schema        | Failure |' in out
    assert 'The database cannot be reached or read' in out
    assert 'Traceback' not in out


def test_berth_status_upgrade_check_runs_the_same_checks(tmp_path, capsys):
    """oslo.upgradecheck's spelling: same rows, same exit code; --json too."""
    from cli import status
    cfg = tmp_path / 'berth.conf'
    cfg.write_text('[DEFAULT]\nstate_path = %s\n' % (tmp_path / 'nothing'))
    assert manage.main(['--config-file', str(cfg), 'status']) == 2
    manage_out = capsys.readouterr().out
    assert status.main(['--config-file', str(cfg), 'upgrade', 'check']) == 2
    assert capsys.readouterr().out == manage_out
    assert status.main(['--config-file', str(cfg), 'upgrade', 'check', '--json']) == 2
    report = json.loads(capsys.readouterr().out)
    rows = {c['check']: c['result'] for c in report['checks']}
    assert rows['Database schema'] == Code.FAILURE
    assert set(rows) == {title for title, _ in manage_status.Checks(None)._upgrade_checks}


def test_berth_status_is_a_console_script():
    import configparser
    import pathlib
    setup = configparser.ConfigParser()
    setup.read(pathlib.Path(__file__).resolve().parents[2] / 'setup.cfg')
    scripts = setup['entry_points']['console_scripts']
    assert 'berth-status = cli.status:main' in scripts.splitlines()


def test_berth_status_usage_error_exits_2(capsys):
    from cli import status
    with pytest.raises(SystemExit) as exc:
        status.main(['upgrade', 'frobnicate'])
    assert exc.value.code == 2
