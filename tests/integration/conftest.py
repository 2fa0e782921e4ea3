"""Session-wide real servers for the integration tier (started here, stopped by PID).

A server whose binaries are not installed skips its tests with a loud reason,
unless ``BERTH_REQUIRE_SERVICES=1`` (CI), where that is a failure.
"""

import os
import subprocess
import sys

import pytest

from tests import services

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'


# Test modules here carry ``pytestmark = MARKS``: the integration marker, and
# one xdist group so a single worker runs the tier and the servers start once
# (with ``--dist loadgroup``, as ``make test`` runs).
MARKS = [pytest.mark.integration, pytest.mark.xdist_group('integration')]


def _start(cls, tmp_path_factory):
    missing = cls.missing()
    if missing:
        reason = ('!!! %s is not installed (missing %s): integration tests that need '
                  'it are SKIPPED; install the Debian package (see .ci/run) !!!'
                  % (cls.name, ', '.join(missing)))
        if REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
    service = cls(tmp_path_factory.mktemp(cls.name))
    try:
        return service.start()
    except services.ServiceError as exc:
        pytest.fail('%s did not start: %s' % (cls.name, exc))


@pytest.fixture(scope='session')
def rabbitmq(tmp_path_factory):
    service = _start(services.RabbitMQ, tmp_path_factory)
    yield service
    service.stop()


@pytest.fixture(scope='session')
def etcd(tmp_path_factory):
    service = _start(services.Etcd, tmp_path_factory)
    yield service
    service.stop()


@pytest.fixture(scope='session')
def redis(tmp_path_factory):
    service = _start(services.Redis, tmp_path_factory)
    yield service
    service.stop()


@pytest.fixture(scope='session')
def postgresql(tmp_path_factory):
    service = _start(services.PostgreSQL, tmp_path_factory)
    yield service
    service.stop()


def bin_path(name):
    """A console script of this checkout's virtualenv."""
    return os.path.join(os.path.dirname(sys.executable), name)


@pytest.fixture(scope='session')
def pg_synced(postgresql, tmp_path_factory):
    """PostgreSQL with berth's schema (``berth-manage db sync``); its URL."""
    cfg = tmp_path_factory.mktemp('manage') / 'berth.conf'
    cfg.write_text('[database]\nconnection = %s\n' % postgresql.url)
    done = subprocess.run([bin_path('berth-manage'), '--config-file', str(cfg), 'db',
                           'sync'], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail('berth-manage db sync failed:\n%s%s' % (done.stdout, done.stderr))
    return postgresql.url
