"""Every ``ini`` block of the docs survives copy-paste into berth.conf.

oslo.config keeps an inline ``# comment`` as part of the value: a conductor
copied from the docs once joined the ring as ``conductor-1   # unique …`` and a
boolean with a comment stopped the conductor ("Unexpected boolean value").  So
every block is parsed with oslo.config's own parser, no value may carry a
comment, and each value of an option berth's sample documents must convert with
that option's type.
"""

import pathlib
import re

from oslo_config import cfg, generator
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR_CONF = ROOT / 'etc/berth/berth-config-generator.conf'
FENCE = re.compile(r'^([ \t]*)```ini\s*\n(.*?)^\1```', re.S | re.M)


def _blocks():
    pages = sorted((ROOT / 'doc' / 'source').rglob('*.md')) + [ROOT / 'README.md']
    for page in pages:
        for n, match in enumerate(FENCE.finditer(page.read_text())):
            indent, body = match.groups()
            text = '\n'.join(line[len(indent):] for line in body.splitlines())
            yield pytest.param(text, id='%s#%d' % (page.relative_to(ROOT), n))


def _parse(text, tmp_path):
    path = tmp_path / 'block.conf'
    path.write_text(text + '\n')
    sections = {}
    cfg.ConfigParser(str(path), sections).parse()
    return sections


def _documented_opts():
    namespaces = [line.split('=', 1)[1].strip()
                  for line in GENERATOR_CONF.read_text().splitlines()
                  if line.startswith('namespace')]
    known = {}
    for _, groups in generator._list_opts(namespaces):
        for group, opts in groups:
            name = getattr(group, 'name', group) or 'DEFAULT'
            for opt in opts:
                known[(name, opt.dest)] = opt
    return known


KNOWN = _documented_opts()
BLOCKS = list(_blocks())


def test_the_docs_have_ini_blocks():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize('text', BLOCKS)
def test_an_ini_block_parses_without_inline_comments(text, tmp_path):
    sections = _parse(text, tmp_path)
    for section, values in sections.items():
        for key, value in values.items():
            for item in value:
                assert not re.search(r'\s[#;]', item), (
                    '[%s] %s = %r carries an inline comment: oslo.config keeps it in '
                    'the value; put the comment on the line above' % (section, key, item))


@pytest.mark.parametrize('text', BLOCKS)
def test_an_ini_blocks_documented_options_convert(text, tmp_path):
    for section, values in _parse(text, tmp_path).items():
        for key, value in values.items():
            opt = KNOWN.get((section, key))
            if opt is None:
                continue
            for item in value:
                opt.type(item)   # ValueError names the option's complaint


def test_a_value_with_a_comment_is_caught(tmp_path):
    """The check itself: the line that once stopped a conductor is refused."""
    sections = _parse('[oslo_messaging_rabbit]\nrabbit_quorum_queue = true   # Raft\n',
                      tmp_path)
    value = sections['oslo_messaging_rabbit']['rabbit_quorum_queue'][0]
    assert '#' in value
    with pytest.raises(ValueError):
        KNOWN[('oslo_messaging_rabbit', 'rabbit_quorum_queue')].type(value)
