"""Options in a configuration file that nothing in berth reads: a misspelling.

oslo.config ignores an option it does not know, so ``placment_port = 9000``
in ``[api]`` leaves the port at its default without a word.  The console
scripts check their files once, after parsing: an unknown option in a group
berth or one of its libraries reads is one line naming the file, the line
and the closest known name, and exit 2 (:func:`check_or_exit`).  A group that
nothing reads only gets a warning: another program's section in a shared
file is not a mistake.

The known options are those of the namespaces the sample configuration lists
(``etc/berth/berth-config-generator.conf``; a unit test keeps the two in
step) and, in a group with
keystoneauth's ``auth_type``, every option of keystoneauth's plugins, session
and adapter (which plugin is chosen decides which it reads).
"""

from __future__ import annotations

from collections.abc import Iterator
import difflib
import glob
from importlib import metadata
import logging
import os
import sys
from typing import Any

from oslo_config import cfg

# the namespaces of etc/berth/berth-config-generator.conf
NAMESPACES = ('berth', 'oslo.db', 'oslo.messaging', 'oslo.log', 'oslo.policy',
              'oslo.middleware.cors', 'oslo.middleware.http_proxy_to_wsgi',
              'oslo.middleware.healthcheck', 'keystonemiddleware.auth_token')

# namespaces that one group alone reads, and costly to import
_ONLY_FOR = {'keystonemiddleware.auth_token': 'keystone_authtoken'}

# the option oslo.config reads from every file itself
_ALWAYS = {'DEFAULT': {'config_file', 'config_dir', 'config_source'}}


def _entries(path: str) -> Iterator[tuple[str, int, str, int]]:
    """Every ``(section, its line number, key, line number)`` of one file, in order.

    oslo.config has parsed the file already (a malformed one never gets
    here); this reads only where each key stands: a continuation line
    (indented) or a comment is no key.
    """
    section, header = 'DEFAULT', 0
    with open(path, encoding='utf-8', errors='replace') as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line[0] in ' \t#;':
                continue
            text = line.strip()
            if text.startswith('['):
                section, header = text[1:text.find(']')].strip(), number
                continue
            cut = min((i for i in (text.find('='), text.find(':')) if i >= 0),
                      default=len(text))
            yield section, header, text[:cut].strip(), number


def _names(opt: cfg.Opt) -> Iterator[tuple[str | None, str]]:
    """``(group or None: the opt's own, name)`` for an option and its old names."""
    yield None, opt.dest
    yield None, opt.name.replace('-', '_')
    for old in opt.deprecated_opts or ():
        if old.name:
            yield old.group, old.name.replace('-', '_')


def _add(known: dict[str, set[str]], group: str, opts: list[cfg.Opt]) -> None:
    for opt in opts:
        for other_group, name in _names(opt):
            known.setdefault(other_group or group, set()).add(name)


def known_options(sections: set[str] | None = None) -> dict[str, set[str]]:
    """``{group: option names}`` that some part of berth reads.

    ``sections``: the groups the files have (None: all); a namespace loaded
    only for its group (keystonemiddleware: 0.5 s to import) is left out
    when no file has that group.
    """
    known: dict[str, set[str]] = {g: set(n) for g, n in _ALWAYS.items()}
    points = {ep.name: ep for ep in metadata.entry_points(group='oslo.config.opts')}
    for namespace in NAMESPACES:
        if namespace not in points:
            continue            # a library this installation does without
        only = _ONLY_FOR.get(namespace)
        if only and sections is not None and only not in sections:
            continue
        for group, opts in points[namespace].load()():
            name = getattr(group, 'name', group) or 'DEFAULT'
            _add(known, name, list(opts))
    auth_groups = [g for g, names in known.items() if 'auth_type' in names]
    if auth_groups:
        plugin_names = _keystoneauth_options()
        for group in auth_groups:
            known[group] = _Anything() if plugin_names is None else known[group] | plugin_names
    return known


class _Anything(set):
    """The options of a group that cannot be known (keystoneauth is not installed)."""

    def __contains__(self, name: object) -> bool:
        return True


def _keystoneauth_options() -> set[str] | None:
    """Every option keystoneauth may read in an ``auth_type`` group (None: not installed)."""
    try:
        from keystoneauth1 import loading
    except ImportError:     # berth without its [keystone] extra
        return None

    names: set[str] = set()
    quiet = logging.getLogger('stevedore')     # it logs the plugins whose extras are missing
    was = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        loaders: dict[str, Any] = loading.get_available_plugin_loaders()
        for loader in loaders.values():
            names |= {o.dest for o in loader.get_options()}
    finally:
        quiet.setLevel(was)
    names |= {o.dest for o in loading.get_session_conf_options()}
    names |= {o.dest for o in loading.get_adapter_conf_options(include_deprecated=True)}
    return names


def config_files(conf: cfg.ConfigOpts) -> list[str]:
    """The files ``conf`` read: ``--config-file`` (or the defaults), then ``--config-dir``."""
    files = list(conf.config_file or conf.default_config_files or ())
    for directory in conf.config_dir and [conf.config_dir] or ():
        files.extend(sorted(glob.glob(os.path.join(directory, '*.conf'))))
    return [f for f in files if os.path.isfile(f)]


def mistakes(conf: cfg.ConfigOpts) -> tuple[list[str], list[str]]:
    """``(errors, warnings)``: unknown options in known groups; groups nothing reads."""
    errors: list[str] = []
    warnings: list[str] = []
    found = {path: list(_entries(path)) for path in config_files(conf)}
    sections = {entry[0] for entries in found.values() for entry in entries}
    known = known_options(sections) if found else {}
    for path, entries in found.items():
        seen_groups = set()
        for section, header, key, line in entries:
            names = known.get(section)
            if names is None:
                if section not in seen_groups:
                    seen_groups.add(section)
                    warnings.append('%s:%d: [%s] is not read by berth%s' % (
                        path, header, section, _hint(section, known)))
                continue
            if key.replace('-', '_') not in names:
                errors.append('%s:%d: unknown option %r in [%s]%s' % (
                    path, line, key, section, _hint(key, names)))
    return errors, warnings


def _hint(name: str, choices) -> str:
    close = difflib.get_close_matches(name, sorted(choices), n=1, cutoff=0.75)
    return ' (did you mean %r?)' % close[0] if close else ''


def check_or_exit(prog: str, conf: cfg.ConfigOpts) -> None:
    """Exit 2 with one line per unknown option; a warning line per unread group."""
    errors, warnings = mistakes(conf)
    for warning in warnings:
        print('%s: warning: %s' % (prog, warning), file=sys.stderr)
    if errors:
        for error in errors:
            print('%s: %s' % (prog, error), file=sys.stderr)
        raise SystemExit(2)
