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


def test_a_clone_without_tags_finds_the_release_by_its_recorded_commit(monkeypatch):
    head = previous_release._git('rev-parse', 'HEAD').stdout.strip()
    monkeypatch.setitem(previous_release.RELEASES, 'untagged-9.9.8', head)
    assert previous_release.tag_commit('untagged-9.9.8') == head


def test_a_recorded_commit_missing_from_the_history_is_named(monkeypatch):
    monkeypatch.setitem(previous_release.RELEASES, 'untagged-9.9.7', '0' * 40)
    with pytest.raises(previous_release.Unavailable, match="tag 'untagged-9.9.7'"):
        previous_release.tag_commit('untagged-9.9.7')
