"""Every picture in doc/source/images is shown by some page, and every picture shown exists."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINK = re.compile(r'!\[[^\]]*\]\(([^)]+)\)')


def _shown():
    shown = set()
    for page in list((ROOT / 'doc' / 'source').rglob('*.md')) + [ROOT / 'README.md']:
        for target in LINK.findall(page.read_text()):
            shown.add((page.parent / target).resolve())
    return shown


def test_no_picture_is_left_unreferenced():
    pictures = {p.resolve() for p in (ROOT / 'doc' / 'source' / 'images').glob('*.png')}
    assert pictures, 'doc/source/images has no pictures'
    unreferenced = sorted(p.name for p in pictures - _shown())
    assert unreferenced == [], 'pictures no page shows: %s' % unreferenced


def test_every_picture_shown_exists():
    missing = sorted(str(p) for p in _shown() if not p.exists())
    assert missing == []
