"""Session-wide real servers for the integration tier (started here, stopped by PID).

A server whose binaries are not installed skips its tests with a loud reason,
unless ``BERTH_REQUIRE_SERVICES=1`` (CI), where that is a failure.
"""

import os
import subprocess
import sys

import pytest

from tests import keystone_berth as ks_berth
from tests import keystone_identity as ks_identity
from tests import keystone_service as ks_service
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


# -- a real Keystone (tests/keystone_service.py, keystone_identity.py, keystone_berth.py) --

# the catalog URL registered for placement before any berth runs (tests that
# need the real one call Identity.ensure_service again)
PLACEMENT_CATALOG_URL = 'http://127.0.0.1:8778/placement'


@pytest.fixture(scope='session')
def keystone(tmp_path_factory):
    """Keystone on 127.0.0.1:<free port> (``.v3``, ``.admin_user``/``.admin_password``,
    ``.region``, ``.timings`` = {'venv', 'setup', 'start'} in seconds); stopped by PID.

    Skipped loudly when Keystone cannot be installed from the package index
    (a failure with BERTH_REQUIRE_SERVICES=1); a failure when it does not start.
    """
    try:
        venv, built = ks_service.ensure_venv()
    except ks_service.KeystoneUnavailable as exc:
        reason = ('!!! keystone==%s cannot be installed from the package index: '
                  'tests against a real Keystone are SKIPPED: %s !!!'
                  % (ks_service.KEYSTONE_VERSION, exc))
        if REQUIRE:
            pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
        pytest.skip(reason)
    service = ks_service.Keystone(tmp_path_factory.mktemp('keystone'), venv)
    service.timings['venv'] = built
    try:
        service.start()
    except services.ServiceError as exc:
        pytest.fail('keystone did not start: %s' % exc)
    yield service
    service.stop()


@pytest.fixture(scope='session')
def keystone_identity(keystone):
    """A keystone_identity.Identity: tokens and admin calls (system-scoped bootstrap admin)."""
    return ks_identity.Identity(keystone.v3, keystone.admin_user,
                                      keystone.admin_password, keystone.region)


@pytest.fixture(scope='session')
def tenants(keystone, keystone_identity):
    """The tenant matrix (keystone_identity.TenantMatrix): ``token(name)``,
    ``headers(name)``, ``projects``, ``principals``, ``domain_id``,
    ``placement_service_id``, ``placement_endpoint_id``."""
    return ks_identity.build_matrix(
        keystone_identity, keystone.admin_user, keystone.admin_password,
        PLACEMENT_CATALOG_URL)


@pytest.fixture
def keystone_berth(keystone, tenants, tmp_path_factory, tmp_path):
    """An embedded berth whose APIs validate tokens with the real Keystone; stopped after."""
    stack = ks_berth.start_berth(tmp_path_factory.getbasetemp(), tmp_path / 'state',
                                       keystone, tenants)
    yield stack
    stack.stop()
