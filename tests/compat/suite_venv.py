"""A pinned venv per community suite, built once per machine and kept between runs.

``ensure(name, pins)`` installs the requirement lines of the ``pins`` file
(exact ``==`` pins, one per line, comments allowed) into
``~/.cache/berth-compat/<name>-<python>-<hash of the pins>`` (or under
``$BERTH_COMPAT_CACHE``).  Parallel runs serialise on a lock beside it
(:func:`tests.services.build_once`), a stamp file written last marks a finished
build, and a failed build leaves nothing behind.  When the package index
cannot be reached the suite skips with the reason, or fails when
``BERTH_REQUIRE_SERVICES=1`` (as in CI): :func:`require`.
"""

import hashlib
import os
import sys

import pytest

from tests import services

INSTALL_TIMEOUT = 900
REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'


class SuiteUnavailable(Exception):
    """The suite's venv could not be built (no package index, a failed install)."""


def cache_root():
    return os.environ.get('BERTH_COMPAT_CACHE') or os.path.join(
        os.path.expanduser('~'), '.cache', 'berth-compat')


def venv_dir(name, pins):
    with open(pins, 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    python = 'py%d%d' % sys.version_info[:2]
    return os.path.join(cache_root(), '%s-%s-%s' % (name, python, digest))


def _stamp(venv):
    return os.path.join(venv, '.berth-installed')


def _ready(venv):
    return os.path.exists(_stamp(venv)) and os.path.exists(os.path.join(venv, 'bin', 'python'))


def _build(venv, pins, deadline):
    steps = [[sys.executable, '-m', 'venv', venv],
             [os.path.join(venv, 'bin', 'pip'), 'install', '-q',
              '--disable-pip-version-check', '-r', pins]]
    services.install_venv(venv, steps, deadline, SuiteUnavailable, pins, _stamp(venv))


def ensure(name, pins, timeout=INSTALL_TIMEOUT):
    """``(venv path, seconds spent building)`` for the suite ``name`` pinned by ``pins``."""
    venv = venv_dir(name, pins)
    return services.build_once(venv, _ready, lambda deadline: _build(venv, pins, deadline),
                               timeout, SuiteUnavailable)


def require(name, pins):
    """The suite's venv path; skips (or fails under BERTH_REQUIRE_SERVICES=1) without one."""
    try:
        return ensure(name, pins)[0]
    except SuiteUnavailable as exc:
        reason = 'compat suite %s unavailable: %s' % (name, exc)
        if REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
