"""The release notes read as a product's: one prelude, no reno "0.0.0" anchor."""

import pathlib
import runpy

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_one_note_is_the_prelude_saying_what_berth_is():
    preludes = []
    for path in sorted((ROOT / 'releasenotes' / 'notes').glob('*.yaml')):
        note = yaml.safe_load(path.read_text())
        if 'prelude' in note:
            preludes.append(note['prelude'])
    assert len(preludes) == 1
    assert preludes[0].startswith('berth tracks what every resource provider')


def test_untagged_section_gets_the_coming_version_title_and_anchors():
    pytest.importorskip('sphinx')  # doc/requirements.txt (make docs)
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    conf = runpy.run_path(str(ROOT / 'releasenotes' / 'source' / 'conf.py'))
    document = new_document('<notes>', get_default_settings(Parser))
    section = nodes.section(ids=['relnotes-0-0-0'], names=['0.0.0'])
    section += nodes.title(text='0.0.0')
    features = nodes.section(ids=['relnotes-0-0-0-new-features'])
    features += nodes.title(text='New Features')
    section += features
    document += section
    document.ids['relnotes-0-0-0'] = section
    document += nodes.reference(refid='relnotes-0-0-0-new-features')
    conf['_rename_untagged_section'](None, document)
    version = conf['version'].replace('.', '-')
    assert section['ids'] == ['relnotes-%s' % version]
    assert section[0].astext() == '%s (in development)' % conf['version']
    assert features['ids'] == ['relnotes-%s-new-features' % version]
    assert document[-1]['refid'] == 'relnotes-%s-new-features' % version
    assert list(document.ids) == ['relnotes-%s' % version]
    assert '0-0-0' not in document.pformat()
