"""Expand/contract: every migration is classified, ``db sync`` stops before a contract
revision, ``db contract`` refuses while an older conductor runs, ``status`` says when."""

import os
import shutil

from oslo_upgradecheck import upgradecheck
import pytest

from cli import manage, manage_status, manage_upgrade
from conductor import service_versions
from db import api as db_api
from db import migration

Code = upgradecheck.Code
MINE = service_versions.this_release()
CONTRACT_REV = '''"""test only: a contract revision"""

revision = '9001'
down_revision = '%s'
branch_labels = None
depends_on = None
phase = 'contract'


def upgrade():
    pass
'''
LATER_EXPAND_REV = CONTRACT_REV.replace("'9001'", "'9002'").replace(
    "'contract'", "'expand'").replace('a contract', 'a later expand')


def test_every_migration_is_classified():
    phases = dict(migration.phases())
    # what each shipped revision is; a new one must be added here on purpose
    assert phases == {'0001': 'expand', '0002': 'expand', '0003': 'expand',
                      '0004': 'expand', '0005': 'expand', '0006': 'expand',
                      '0007': 'expand', '0008': 'expand',
                      '0009': 'expand', '0010': 'expand', '0011': 'expand',
                      '0012': 'expand', '0013': 'expand', '0014': 'expand',
                      '0015': 'expand'}
    assert list(phases)[-1] == migration.head()
    with open(os.path.join(migration.SCRIPT_LOCATION, 'script.py.mako')) as f:
        assert "\nphase = 'expand'\n" in f.read()      # new revisions start classified


def test_a_revision_without_phase_is_refused(tmp_path, monkeypatch):
    location = _copy_scripts(tmp_path, monkeypatch)
    text = CONTRACT_REV.replace("phase = 'contract'\n", '') % migration.head()
    with open(os.path.join(location, 'versions', '9001_test.py'), 'w') as f:
        f.write(text)
    with pytest.raises(ValueError, match='migration 9001 has no phase'):
        migration.phases()


def _copy_scripts(tmp_path, monkeypatch):
    location = str(tmp_path / 'migrations')
    shutil.copytree(migration.SCRIPT_LOCATION, location,
                    ignore=shutil.ignore_patterns('__pycache__'))
    monkeypatch.setattr(migration, 'SCRIPT_LOCATION', location)
    return location


class FakeRing:
    """The conductor group as ``Ring.describe()`` shows it (a process edge)."""

    def __init__(self, members):
        self._members = members

    def describe(self):
        if isinstance(self._members, Exception):
            raise self._members
        return [{'host': h, 'capabilities': caps} for h, caps in self._members.items()]

    def stop(self):
        pass


OLD = {'c0': {'host': 'c0', 'rpc_api_version': '1.6'},          # 0.1.0 records no release
       'c1': {'host': 'c1', 'version': MINE}}
NEW = {'c0': {'version': MINE}, 'c1': {'version': MINE}}


@pytest.fixture
def staged(tmp_path, monkeypatch):
    """A database at 0004 of a script directory with 9001 (contract) and 9002 (expand)."""
    location = _copy_scripts(tmp_path, monkeypatch)
    head = migration.head()
    with open(os.path.join(location, 'versions', '9001_contract.py'), 'w') as f:
        f.write(CONTRACT_REV % head)
    with open(os.path.join(location, 'versions', '9002_expand.py'), 'w') as f:
        f.write(LATER_EXPAND_REV % '9001')
    db, conf_file = _database_at(tmp_path, 'berth', head)
    yield db, conf_file, head
    db.dispose()


def _database_at(tmp_path, name, revision):
    """A SQLite database at ``revision`` (None: empty) and a configuration file for it."""
    url = 'sqlite:///%s' % (tmp_path / ('%s.sqlite' % name))
    db = db_api.Database(url)
    if revision is not None:
        migration.upgrade(db, revision)
    conf_file = tmp_path / ('%s.conf' % name)
    conf_file.write_text('[DEFAULT]\nstate_path = %s\n[database]\nconnection = %s\n'
                         % (tmp_path / 'state', url))
    return db, str(conf_file)


def _ring(monkeypatch, members):
    monkeypatch.setattr(manage_upgrade, '_ring_reader', lambda _conf: FakeRing(members))


def test_sync_applies_expand_only_then_contract_waits_for_new_conductors(
        staged, monkeypatch, capsys):
    db, conf_file, head = staged
    assert migration.pending(db) == [('9001', 'contract'), ('9002', 'expand')]
    assert manage.main(['--config-file', conf_file, 'db', 'sync']) == 0
    assert migration.version(db) == head             # stopped before 9001
    assert 'Contract migration(s) pending: 9001' in capsys.readouterr().out

    _ring(monkeypatch, OLD)
    assert manage.main(['--config-file', conf_file, 'db', 'contract']) == 2
    err = capsys.readouterr().err
    assert 'refused' in err and 'c0 (0.1.0 or older)' in err and 'c1' not in err
    assert migration.version(db) == head             # nothing applied

    _ring(monkeypatch, RuntimeError('etcd is down'))
    assert manage.main(['--config-file', conf_file, 'db', 'contract']) == 2
    assert 'etcd is down' in capsys.readouterr().err
    assert migration.version(db) == head

    _ring(monkeypatch, NEW)
    assert manage.main(['--config-file', conf_file, 'db', 'contract']) == 0
    assert '9001, 9002 applied' in capsys.readouterr().out
    assert migration.version(db) == '9002'
    assert manage.main(['--config-file', conf_file, 'db', 'contract']) == 0
    assert 'Nothing to contract' in capsys.readouterr().out


def test_contract_refuses_before_sync(tmp_path, staged, monkeypatch, capsys):
    db, conf_file = _database_at(tmp_path, 'behind', '0003')
    try:
        _ring(monkeypatch, NEW)
        assert manage.main(['--config-file', conf_file, 'db', 'contract']) == 2
        assert 'expand migration 0004 is not applied' in capsys.readouterr().err
        assert migration.version(db) == '0003'
        assert _contract_check(conf_file, NEW)['Database schema'].code == Code.FAILURE
        assert _contract_check(conf_file, NEW)['Contract step'].code == Code.FAILURE
        assert manage.main(['--config-file', conf_file, 'db', 'contract']) == 2
        assert 'is empty' not in capsys.readouterr().err
    finally:
        db.dispose()


def test_an_empty_database_syncs_to_head(tmp_path, staged, monkeypatch, capsys):
    fresh, conf_file = _database_at(tmp_path, 'fresh', None)
    try:
        _ring(monkeypatch, NEW)
        assert manage.main(['--config-file', conf_file, 'db', 'contract']) == 2
        assert 'the database is empty' in capsys.readouterr().err
        assert manage.main(['--config-file', conf_file, 'db', 'sync']) == 0
        assert migration.version(fresh) == '9002'    # no old code reads an empty one
    finally:
        fresh.dispose()


def _contract_check(conf_file, members):
    from cli import config
    conf = config.make_conf(['--config-file', conf_file])
    checks = manage_status.Checks(conf, ring_factory=lambda _conf: FakeRing(members))
    try:
        return dict(checks.run_checks())
    finally:
        checks.close()


def test_status_says_when_the_contract_step_is_safe(staged):
    db, conf_file, head = staged
    results = _contract_check(conf_file, OLD)
    assert results['Database schema'].code == Code.SUCCESS
    assert 'contract migration(s) 9001, 9002 pending' in results['Database schema'].details
    result = results['Contract step']
    assert result.code == Code.WARNING and 'Not safe yet' in result.details
    assert 'c0 (0.1.0 or older)' in result.details
    result = _contract_check(conf_file, NEW)['Contract step']
    assert result.code == Code.WARNING and 'Safe now' in result.details
    migration.upgrade(db)
    result = _contract_check(conf_file, NEW)['Contract step']
    assert result.code == Code.SUCCESS and 'no contract migration pending' in result.details
    result = _contract_check(conf_file, RuntimeError('etcd is down'))['Contract step']
    assert result.code == Code.FAILURE and 'etcd is down' in result.details


@pytest.mark.parametrize('version,release', [
    ('0.1.1', (0, 1, 1)), ('0.1.1.dev12', (0, 1, 1)), ('1.0.0rc1', (1, 0, 0)),
    ('0.0.0+unknown', (0, 0, 0)), ('', ()), (None, ()),
])
def test_release_of_a_version(version, release):
    assert service_versions.release(version) == release


def test_older_than_reads_recorded_releases():
    members = [{'host': 'a', 'capabilities': {'version': '0.1.1.dev3'}},
               {'host': 'b', 'capabilities': {'version': '0.1.0'}},
               {'host': 'c', 'capabilities': {}},
               {'host': 'd', 'capabilities': {'version': '0.2.0'}}]
    assert service_versions.older_than(members, '0.1.1.dev9') == [
        ('b', '0.1.0'), ('c', '0.1.0 or older')]
    assert service_versions.capabilities() == {'version': MINE}
