"""Configuration: every group module lists its options; the sample is current."""

import configparser
import pathlib
import re
import runpy
import sys

from oslo_config import cfg, generator

from common import conf as berth_conf
from common.conf import opts

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_group_module_lists_its_options():
    for module in berth_conf.MODULES:
        assert callable(module.list_opts), module.__name__
        assert callable(module.register_opts), module.__name__


def test_register_on_a_private_conf_object():
    conf = cfg.ConfigOpts()
    berth_conf.register_opts(conf)
    conf([], project='berth', default_config_files=[])
    assert conf.api.auth_strategy == 'keystone'
    assert conf.placement.allocation_conflict_retry_count == 10
    names = {getattr(g, 'name', g) for g, _ in opts.list_opts()}
    assert {'DEFAULT', 'api', 'placement'} <= names


def test_sample_config_is_current(tmp_path):
    out = tmp_path / 'berth.conf.sample'
    generator.main(['--config-file', str(ROOT / 'etc/berth/berth-config-generator.conf'),
                    '--output-file', str(out)])
    committed = (ROOT / 'etc/berth/berth.conf.sample').read_text()
    assert out.read_text() == committed, (
        'etc/berth/berth.conf.sample is stale: run "make sample-config" and commit it')


def test_sample_config_documents_keystone_authtoken():
    """keystone is the production default: its middleware's options are in the sample."""
    generator_conf = (ROOT / 'etc/berth/berth-config-generator.conf').read_text()
    assert 'namespace = keystonemiddleware.auth_token' in generator_conf
    sample = (ROOT / 'etc/berth/berth.conf.sample').read_text()
    section = sample.split('[keystone_authtoken]', 1)[1].split('\n[', 1)[0]
    assert '#www_authenticate_uri = ' in section
    assert '#auth_type = ' in section


def test_overrides_do_not_leak_between_conf_objects():
    """register_group() copies an OptGroup shallowly; each module builds a fresh one."""
    def fresh():
        conf = cfg.ConfigOpts()
        berth_conf.register_opts(conf)
        conf([], project='berth', default_config_files=[])
        return conf
    first = fresh()
    for group, options in opts.list_opts():
        name = getattr(group, 'name', group)
        for opt in options:
            if isinstance(opt, cfg.IntOpt) and opt.default is not None:
                first.set_override(opt.dest, opt.default + 1,
                                   group=None if name == 'DEFAULT' else name)
    second = fresh()
    for group, options in opts.list_opts():
        name = getattr(group, 'name', group)
        for opt in options:
            if isinstance(opt, cfg.IntOpt) and opt.default is not None:
                section = second if name == 'DEFAULT' else second[name]
                assert section[opt.dest] == opt.default, (name, opt.dest)


def test_configuration_reference_is_rendered_from_the_code():
    """configuration.md shows the ``berth`` namespace through oslo_config.sphinxext."""
    page = (ROOT / 'doc/source/configuration.md').read_text()
    assert '```{eval-rst}\n.. show-options::\n\n   berth\n```' in page
    setup = configparser.ConfigParser()
    setup.read(ROOT / 'setup.cfg')
    assert setup['entry_points']['oslo.config.opts'].split() == [
        'berth', '=', 'common.conf.opts:list_opts']
    sys.path.insert(0, str(ROOT / 'doc/source'))
    try:
        assert 'oslo_config.sphinxext' in runpy.run_path(
            str(ROOT / 'doc/source/conf.py'))['extensions']
    finally:
        sys.path.remove(str(ROOT / 'doc/source'))


def test_configuration_reference_lists_every_option_in_one_section_per_group():
    from oslo_config import sphinxext
    text = '\n'.join(sphinxext._format_option_help(['berth'], False))
    titles = re.findall(r'^\.\. oslo\.config:group:: (\S+)$', text, re.M)
    assert titles.count('DEFAULT') == 1
    assert len(titles) == len(set(titles))
    for group, options in opts.list_opts():
        name = getattr(group, 'name', group)
        assert name in titles
        for opt in options:
            assert '.. oslo.config:option:: %s' % opt.dest in text, (name, opt.dest)


def test_placement_endpoint_reference_is_current():
    from api.placement import reference
    committed = (ROOT / 'doc/source/api/placement-endpoints.md').read_text()
    assert reference.render() == committed, (
        'doc/source/api/placement-endpoints.md is stale: run "make sample-config" and commit it')


def test_builder_reads_files_parses_argv_and_applies_overrides(tmp_path):
    from common.conf import builder
    path = tmp_path / 'berth.conf'
    path.write_text('[api]\nworkers = 3\n[DEFAULT]\nhost = from-file\n')
    conf = builder.build(['--config-file', str(path)], config_files=[],
                         overrides={'host': 'overridden', 'database.max_retries': 7})
    assert conf.api.workers == 3
    assert conf.host == 'overridden'
    assert conf.database.max_retries == 7
    # a listed default file that does not exist is left out, not an error
    assert builder.build(config_files=[str(tmp_path / 'missing.conf')]).api.workers != 3


def test_one_config_builder():
    """Processes, WSGI entry points, tests and benches all build through common.conf.builder.

    The exceptions: the builder itself, this file (it tests registration
    on a bare object) and the oslo.policy tools' enforcer hook, which must
    parse only ``--config-file`` arguments of a foreign command line.
    """
    allowed = {'common/conf/builder.py', 'tests/unit/test_config.py',
               'api/placement/policy.py'}
    found = []
    for top in ('api', 'bench', 'cli', 'common', 'conductor', 'db', 'objects', 'tests'):
        for path in (ROOT / top).rglob('*.py'):
            rel = str(path.relative_to(ROOT))
            if rel not in allowed and 'cfg.ConfigOpts()' in path.read_text():
                found.append(rel)
    assert found == []


def test_the_generator_config_works_outside_the_checkout(tmp_path, monkeypatch, capsys):
    """The installed copy (share/berth/etc) names no path relative to a checkout."""
    generator_conf = (ROOT / 'etc/berth/berth-config-generator.conf').read_text()
    assert not [line for line in generator_conf.splitlines()
                if line.replace(' ', '').startswith('output_file=')]
    installed = tmp_path / 'share' / 'berth' / 'etc'
    installed.mkdir(parents=True)
    (installed / 'berth-config-generator.conf').write_text(generator_conf)
    monkeypatch.chdir(tmp_path)
    generator.main(['--config-file', str(installed / 'berth-config-generator.conf')])
    assert '[placement]' in capsys.readouterr().out
    assert list(tmp_path.rglob('*.sample')) == []
