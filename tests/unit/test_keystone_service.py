"""The Keystone venv of the integration tier: cached, built once, failures are clear.

No package index is touched: the install steps are replaced by small commands.
"""

import fcntl
import os
import sys

import pytest

from tests import keystone_identity, keystone_service


@pytest.fixture
def venv(tmp_path, monkeypatch):
    path = str(tmp_path / 'ks-venv')
    monkeypatch.setenv('BERTH_KEYSTONE_VENV', path)
    return path


def _stamped(path):
    os.makedirs(os.path.join(path, 'bin'))
    os.symlink(sys.executable, os.path.join(path, 'bin', 'python'))
    open(os.path.join(path, '.berth-installed'), 'w').close()


def test_a_built_venv_is_reused_without_building(venv, monkeypatch):
    _stamped(venv)
    monkeypatch.setattr(keystone_service, '_build', pytest.fail)
    assert keystone_service.ensure_venv() == (venv, 0.0)


def test_an_unstamped_venv_is_rebuilt(venv, monkeypatch):
    os.makedirs(os.path.join(venv, 'bin'))          # a build that died half-way
    built = []
    monkeypatch.setattr(keystone_service, '_install_steps',
                        lambda path: [['mkdir', '-p', os.path.join(path, 'bin')],
                                      ['ln', '-s', sys.executable,
                                       os.path.join(path, 'bin', 'python')]])
    real_build = keystone_service._build
    monkeypatch.setattr(keystone_service, '_build',
                        lambda path, timeout: built.append(path) or real_build(path, timeout))
    path, seconds = keystone_service.ensure_venv()
    assert built == [venv] and path == venv and seconds > 0
    assert keystone_service.ensure_venv() == (venv, 0.0)    # stamped now


def test_a_failing_install_is_unavailable_and_leaves_no_venv(venv):
    os.makedirs(venv)
    with pytest.raises(keystone_service.KeystoneUnavailable) as err:
        keystone_service._build(venv, 60, steps=[['sh', '-c', 'echo no index here; exit 3']])
    assert 'failed (3)' in str(err.value) and 'no index here' in str(err.value)
    assert not os.path.exists(venv)


def test_an_install_over_its_time_is_unavailable(venv):
    with pytest.raises(keystone_service.KeystoneUnavailable, match='took over'):
        keystone_service._build(venv, 0.2, steps=[['sleep', '30']])
    assert not os.path.exists(venv)


def test_a_build_held_by_another_process_is_waited_for_boundedly(venv):
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    with open(venv + '.lock', 'w') as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(keystone_service.KeystoneUnavailable, match='waited'):
            keystone_service.ensure_venv(timeout=0.1)


def test_the_cache_key_follows_the_pins(monkeypatch, tmp_path):
    monkeypatch.delenv('BERTH_KEYSTONE_VENV', raising=False)
    first = keystone_service.venv_dir()
    assert keystone_service.KEYSTONE_VERSION in first
    pins = tmp_path / 'pins.txt'
    pins.write_text('keystone==%s\nother==1\n' % keystone_service.KEYSTONE_VERSION)
    monkeypatch.setattr(keystone_service, 'CONSTRAINTS', str(pins))
    assert keystone_service.venv_dir() != first


def test_the_pins_hold_the_keystone_version():
    with open(keystone_service.CONSTRAINTS) as f:
        assert 'keystone==%s\n' % keystone_service.KEYSTONE_VERSION in f.read()


def test_a_grant_needs_a_target():
    ident = keystone_identity.Identity('http://127.0.0.1:9/v3', 'admin', 'x')
    with pytest.raises(ValueError):
        ident.grant('member', 'u1')
