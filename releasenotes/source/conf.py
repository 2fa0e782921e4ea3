"""Sphinx configuration of berth's release notes (``make releasenotes``).

reno renders ``releasenotes/notes/*.yaml`` from git history, one section per
release (a git tag).  Notes no tag contains yet are titled with the release
setup.cfg says berth is working towards ("0.1.1 (in development)"), not
reno's "0.0.0" (no tag at all) or "<last tag>-N": index.rst writes
``@BERTH_VERSION@`` into reno's ``unreleased-version-title`` and this file
puts the version in when Sphinx reads it; without any tag reno does not use
that title (it calls everything "0.0.0"), so the section it titles "0.0.0"
is renamed once the page is parsed, and its anchors (``relnotes-0-0-0``,
``relnotes-0-0-0-new-features``, ...) are named for the coming version
before the table of contents reads them.  The build needs no tag.

reno needs the history of every note; in a shallow clone (CI's
``--depth 1``) it fails with a traceback, so the build stops first with the
command that fixes it.
"""

import configparser
import pathlib
import subprocess

from docutils import nodes
from sphinx.errors import ConfigError

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _setup_cfg_version():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / 'setup.cfg')
    return cfg['metadata']['version']


def _refuse_shallow_clone():
    shallow = subprocess.run(
        ['git', '-C', str(ROOT), 'rev-parse', '--is-shallow-repository'],
        capture_output=True, text=True, check=True).stdout.strip()
    if shallow == 'true':
        raise ConfigError(
            'releasenotes: this is a shallow git clone; reno needs the history '
            'of every note. Run "git fetch --unshallow" (and "git fetch --tags" '
            'for the released versions) first.')


_refuse_shallow_clone()

project = 'berth release notes'
copyright = 'berth developers'  # noqa: A001 (Sphinx's name)
author = 'berth developers'
version = release = _setup_cfg_version()

extensions = [
    'reno.sphinxext',
    'openstackdocstheme',
]
root_doc = 'index'
exclude_patterns = ['_build']

html_theme = 'openstackdocs'
openstackdocs_repo_name = 'berth/berth'
openstackdocs_use_storyboard = False
openstackdocs_auto_name = False
openstackdocs_auto_version = False
openstackdocs_bug_project = ''
openstackdocs_bug_tag = ''
html_static_path = []


UNRELEASED_TITLE = '%s (in development)' % version
UNTAGGED_ID = 'relnotes-0-0-0'
UNRELEASED_ID = 'relnotes-%s' % version.replace('.', '-')


def _put_in_version(app, docname, source):
    source[0] = source[0].replace('@BERTH_VERSION@', version)


def _renamed(name):
    if name.startswith(UNTAGGED_ID):
        return UNRELEASED_ID + name[len(UNTAGGED_ID):]
    return name


def _rename_untagged_section(app, doctree):
    """reno's "0.0.0" (a repository without tags) is the coming release."""
    for title in doctree.findall(nodes.title):
        if title.astext() == '0.0.0':
            title.children = [nodes.Text(UNRELEASED_TITLE)]
    for node in doctree.findall(nodes.Element):
        node['ids'] = [_renamed(name) for name in node['ids']]
        node['names'] = [_renamed(name) for name in node['names']]
        if 'refid' in node:
            node['refid'] = _renamed(node['refid'])
    for table in (doctree.ids, doctree.nameids):
        for name in [n for n in table if n.startswith(UNTAGGED_ID)]:
            table[_renamed(name)] = table.pop(name)


def setup(app):
    app.connect('source-read', _put_in_version)
    # before Sphinx's own readers (priority 500): the table of contents takes
    # the renamed anchors
    app.connect('doctree-read', _rename_untagged_section, priority=100)
