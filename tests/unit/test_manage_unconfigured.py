"""``berth-manage`` with no configuration says so instead of creating a database."""

import os

from cli import manage


def test_no_configuration_is_refused_and_creates_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert manage.main(['status']) == 2
    err = capsys.readouterr().err
    assert 'no configuration' in err and '--config-file' in err
    assert os.listdir(tmp_path) == []          # no ./berth-data, no berth.sqlite


def test_an_existing_embedded_database_is_still_found(tmp_path, monkeypatch, capsys):
    """Beside a `berth serve` data dir, `berth-manage db version` reads it."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / 'berth-data'
    data.mkdir()
    (data / 'berth.sqlite').write_bytes(b'')
    assert manage.main(['db', 'version']) == 0
    assert 'None (empty database)' in capsys.readouterr().out


def test_a_configuration_file_is_used_as_given(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / 'berth.conf'
    conf.write_text('[database]\nconnection = sqlite:///%s/other.sqlite\n' % tmp_path)
    assert manage.main(['--config-file', str(conf), 'db', 'version']) == 0
    assert (tmp_path / 'other.sqlite').exists()


def test_a_command_without_a_database_needs_no_configuration(tmp_path, monkeypatch, capsys):
    """``berth-manage policy …`` reads only the policy defaults."""
    monkeypatch.chdir(tmp_path)
    assert manage.main(['policy', 'list']) == 0
    assert 'no configuration' not in capsys.readouterr().err
    assert os.listdir(tmp_path) == []
