"""What the wheel ships besides the packages (setup.cfg, read as pbr reads it)."""

import configparser
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _data_files():
    parser = configparser.ConfigParser()
    parser.read(ROOT / 'setup.cfg')
    shipped, target = {}, None
    for line in parser.get('files', 'data_files').splitlines():
        if '=' in line:
            target, _, line = (part.strip() for part in line.partition('='))
        if line.strip():
            shipped[line.strip()] = target
    return shipped


def test_every_file_of_etc_berth_is_shipped():
    present = {str(p.relative_to(ROOT)) for p in (ROOT / 'etc' / 'berth').iterdir()
               if p.is_file() and not p.name.endswith('.pyc')}
    shipped = _data_files()
    assert present <= set(shipped), 'not in setup.cfg data_files: %s' % sorted(
        present - set(shipped))
    assert set(shipped.values()) == {'share/berth/etc'}


def test_shipped_files_exist():
    for path in _data_files():
        assert (ROOT / path).is_file(), path
