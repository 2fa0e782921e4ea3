"""Sphinx configuration of berth's documentation (``make docs``).

The pages are the Markdown files of this directory, rendered with myst-parser;
the man pages of the five commands are ``cli/*.rst`` (``make man``).  The
version comes from setup.cfg, the one place berth names the release it is
working towards, so the build needs neither an installed berth nor git tags.

Writing a page: every shell block (```sh, ```shell, ```bash, ```console) has,
on the line above it, either ``<!-- runnable: tests/<file>.py -->`` (the block
runs as pasted, and that test, which names the page, pastes it) or
``<!-- not-runnable: <reason> -->`` (a placeholder to fill in, a production
host's paths, a server of the reader's); tests/unit/test_doc_shell_blocks.py
fails on a block with neither.  ``ini`` blocks must parse with oslo.config and
carry no inline comment (tests/unit/test_doc_ini_blocks.py).
"""

import configparser
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _setup_cfg_version():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / 'setup.cfg')
    return cfg['metadata']['version']


project = 'berth'
copyright = 'berth developers'  # noqa: A001 (Sphinx's name)
author = 'berth developers'
version = release = _setup_cfg_version()

extensions = [
    'myst_parser',
    'openstackdocstheme',
    # configuration.md: `.. show-options:: berth`, the options of the code
    'oslo_config.sphinxext',
]
source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}
root_doc = 'index'
exclude_patterns = ['_build', 'cli/_*.rst']  # _*.rst: included, not pages

# Markdown: '#' anchors on headings down to level 4, so links such as
# deployment.md#security resolve (and a broken one is a warning, an error
# with -W); ```ini blocks and tables as GitHub shows them.
myst_heading_anchors = 4
myst_enable_extensions = ['colon_fence']

# openstackdocstheme: the theme docs.openstack.org uses; no bug tracker or
# edit links (berth is not on opendev).
html_theme = 'openstackdocs'
openstackdocs_repo_name = 'berth/berth'
openstackdocs_use_storyboard = False
openstackdocs_auto_name = False
openstackdocs_auto_version = False
openstackdocs_bug_project = ''
openstackdocs_bug_tag = ''
html_static_path = []

# man pages: (source, name, description, authors, section)
man_pages = [
    ('cli/berth', 'berth', 'the embedded all-in-one berth server',
     [author], 1),
    ('cli/berth-api', 'berth-api', 'the berth API server (Placement and '
     'bare-metal REST APIs)', [author], 1),
    ('cli/berth-conductor', 'berth-conductor', 'the berth conductor (RPC '
     'server for claims and node allocations)', [author], 1),
    ('cli/berth-manage', 'berth-manage', 'berth management: schema, imports, '
     'quotas, policy, conductors, capacity', [author], 1),
    ('cli/berth-status', 'berth-status', 'berth upgrade checks', [author], 1),
]
man_show_urls = False


def _oslo_config_xrefs_only():
    """oslo.config's domain answers only its own ``group.option`` targets.

    myst offers a link it cannot resolve (a mistyped ``#anchor``) to every
    domain; oslo_config.sphinxext's ``resolve_xref`` then splits the target
    on its dot and crashes the build with a traceback.  Answering None lets
    myst report the broken link as the warning it is (an error with -W).
    """
    from oslo_config import sphinxext

    resolve = sphinxext.ConfigDomain.resolve_xref

    def resolve_xref(self, env, fromdocname, builder, typ, target, node, contnode):
        if '.' not in target:
            return None
        return resolve(self, env, fromdocname, builder, typ, target, node, contnode)

    sphinxext.ConfigDomain.resolve_xref = resolve_xref


_oslo_config_xrefs_only()
