"""The other writers of Keystone-sourced quota: berth-manage and bare-metal node allocations.

berth-manage refuses to write limits Keystone holds and shows Keystone's;
a node allocation whose claim cannot read its limits ends in ``error``
with the reason (a fake Keystone on loopback: tests/fake_keystone.py).
"""

import json

import pytest

from cli import manage
from tests import fake_keystone, fixtures
from tests.functional import baremetal_helpers as bmh


@pytest.fixture
def keystone():
    fake = fake_keystone.FakeKeystone()
    fake.registered = {'class:VCPU': 8, 'class:CUSTOM_GOLD': 5}
    fake.project_limits = {('p1', 'class:CUSTOM_GOLD'): 1}
    yield fake
    fake.stop()


def _keystone_conf_text(keystone):
    return ('[quota]\nenforce = true\nlimits_source = keystone\nlimits_cache_ttl = 0\n'
            'limits_stale_max_age = 0\n' + keystone.oslo_limit_section())


@pytest.fixture
def cfg(tmp_path, tmp_path_factory, keystone):
    state = tmp_path / 'state'
    conf = fixtures.make_conf(state)
    url = fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    path = tmp_path / 'berth.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n[database]\nconnection = %s\n'
                    % (state, url) + _keystone_conf_text(keystone))
    return str(path)


def _run(cfg, capsys, *args):
    code = manage.main(['--config-file', cfg, 'quota'] + list(args))
    return code, capsys.readouterr().out


def test_manage_shows_keystone_limits_and_refuses_writes(cfg, capsys, keystone):
    code, out = _run(cfg, capsys, 'show', 'p1')
    assert code == 0, out
    shown = json.loads(out)
    assert shown['source'] == 'keystone'
    assert shown['resources'] == {'CUSTOM_GOLD': {'limit': 1, 'usage': 0},
                                  'VCPU': {'limit': 8, 'usage': 0}}
    for args in (('set', 'p1', '--resource', 'VCPU=3'), ('delete', 'p1')):
        code, out = _run(cfg, capsys, *args)
        assert code == 1
        assert 'come from Keystone unified limits' in out
    keystone.down = True
    code, out = _run(cfg, capsys, 'show', 'p1')
    assert code == 1 and 'unavailable' in out


@pytest.fixture
def conf(tmp_path, keystone):
    path = tmp_path / 'keystone-limits.conf'
    path.write_text(_keystone_conf_text(keystone))
    return fixtures.make_conf(tmp_path / 'state', config_files=[path],
                              **{'allocation.backend': 'placement'})


def test_node_allocations_obey_keystone_limits_and_fail_clearly_without_them(
        bm, client, keystone):
    for i in range(3):
        bmh.make_node(bm, 'k%d' % i, owner='p1')
    first = bmh.allocate(bm, resource_class='gold', owner='p1')
    assert first['state'] == 'active'
    second = bmh.allocate(bm, resource_class='gold', owner='p1')
    assert second['state'] == 'error'
    assert 'Quota exceeded for project p1: CUSTOM_GOLD limit 1' in second['last_error']
    keystone.project_limits[('p1', 'class:CUSTOM_GOLD')] = 3
    keystone.down = True
    third = bmh.allocate(bm, resource_class='gold', owner='p1')
    assert third['state'] == 'error'
    assert 'Quota limits of project p1 are unavailable' in third['last_error']
    assert third['node_uuid'] is None
    keystone.down = False
    assert bmh.allocate(bm, resource_class='gold', owner='p1')['state'] == 'active'
