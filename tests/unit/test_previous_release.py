"""The previous-release builder of the HA tier refuses a missing tag by name."""

import os

import pytest

from tests.ha import previous_release


def test_a_missing_tag_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv('BERTH_PREVIOUS_RELEASE_CACHE', str(tmp_path / 'cache'))
    with pytest.raises(previous_release.Unavailable, match="tag 'no-such-tag-9.9.9'"):
        previous_release.build('no-such-tag-9.9.9', out=lambda _line: None)
    assert not os.path.exists(tmp_path / 'cache')      # nothing built, nothing cached


def test_old_processes_get_nothing_of_this_tree_on_their_path(monkeypatch):
    monkeypatch.setenv('PYTHONPATH', '/somewhere')
    monkeypatch.setenv('VIRTUAL_ENV', '/venv')
    env = previous_release.clean_env(PBR_VERSION='0.1.0')
    assert 'PYTHONPATH' not in env and 'VIRTUAL_ENV' not in env
    assert env['PBR_VERSION'] == '0.1.0'
