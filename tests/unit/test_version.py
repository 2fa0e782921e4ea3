"""``--version`` on every command, read from the package metadata pbr wrote."""

from importlib import metadata
import re

import pytest

from cli import api as cli_api
from cli import berth as cli_berth
from cli import conductor as cli_conductor
from cli import manage as cli_manage
from cli import status as cli_status
from common import version


@pytest.fixture(autouse=True)
def _fresh_cache():
    version.version_string.cache_clear()
    yield
    version.version_string.cache_clear()


def test_the_installed_metadata_is_the_version():
    assert version.version_string() == metadata.version('berth')
    # pbr's forms: a tag (0.1.0) or a dev build after it (0.1.1.dev207)
    assert re.fullmatch(r'\d+\.\d+\.\d+(\.dev\d+)?', version.version_string())


def test_a_source_tree_asks_pbr(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(version.metadata, 'version', missing)
    from pbr import version as pbr_version

    class Info:
        def __init__(self, name):
            assert name == 'berth'

        def version_string(self):
            return '9.8.7.dev1'
    monkeypatch.setattr(pbr_version, 'VersionInfo', Info)
    assert version.version_string() == '9.8.7.dev1'


def test_neither_metadata_nor_git_says_unknown(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(version.metadata, 'version', missing)
    from pbr import version as pbr_version

    class Info:
        def __init__(self, name):
            raise Exception('Versioning for this project requires either an sdist '
                            'tarball, or access to an upstream git repository.')
    monkeypatch.setattr(pbr_version, 'VersionInfo', Info)
    assert version.version_string() == version.UNKNOWN


@pytest.mark.parametrize('main', [cli_berth.main, cli_api.main, cli_conductor.main,
                                  cli_manage.main, cli_status.main],
                         ids=['berth', 'berth-api', 'berth-conductor', 'berth-manage',
                              'berth-status'])
def test_every_command_prints_the_version(main, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(['--version'])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == metadata.version('berth')
