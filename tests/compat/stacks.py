"""The servers a compat suite runs against: berth alone, or berth behind a real Keystone.

``noauth_berth`` is an embedded berth on a fresh SQLite file with the test
defaults (``noauth2``: the bare-metal API treats every caller as a
system-scoped admin, as Ironic's ``noauth`` does).  ``keystone`` and
``keystone_berth`` are the integration tier's Keystone
(:mod:`tests.keystone_service`), tenant matrix (:mod:`tests.keystone_identity`)
and berth behind keystonemiddleware (:mod:`tests.keystone_berth`), with both
of berth's APIs in the catalog (``placement`` and ``baremetal``).  Each is
started once per test module by the module's fixtures and stopped by PID.
"""

import os

import pytest

from tests import fixtures, services
from tests import keystone_berth as ks_berth
from tests import keystone_identity as ks_identity
from tests import keystone_service as ks_service

REQUIRE = os.environ.get('BERTH_REQUIRE_SERVICES') == '1'


def _unavailable(reason):
    if REQUIRE:
        pytest.fail(reason + ' [BERTH_REQUIRE_SERVICES=1]')
    pytest.skip(reason)


def noauth_berth(tmp_root, state_path, **overrides):
    """An embedded berth (API + conductors) with noauth2 on a fresh database."""
    conf = fixtures.make_conf(state_path, **overrides)
    fixtures.fresh_database(tmp_root, conf, scope='module')
    return fixtures.start_embedded(conf)


def keystone(workdir):
    """A started Keystone (tests.keystone_service.Keystone); the caller stops it."""
    try:
        venv, _ = ks_service.ensure_venv()
    except ks_service.KeystoneUnavailable as exc:
        _unavailable('!!! keystone==%s cannot be installed: compat suites behind '
                     'Keystone are SKIPPED: %s !!!' % (ks_service.KEYSTONE_VERSION, exc))
    service = ks_service.Keystone(workdir, venv)
    # one gunicorn worker: tempest's dynamic credentials write to Keystone's
    # SQLite file from parallel test workers, and two writer processes get
    # "database is locked" (a 500 on DELETE /v3/projects/...)
    service.workers = 1
    try:
        return service.start()
    except services.ServiceError as exc:
        pytest.fail('keystone did not start: %s' % exc)


def keystone_berth(tmp_root, state_path, keystone_service, **overrides):
    """``(stack, matrix)``: berth behind ``keystone_service``, both APIs in its catalog."""
    identity = ks_identity.Identity(keystone_service.v3, keystone_service.admin_user,
                                    keystone_service.admin_password, keystone_service.region)
    # the catalog entry is fixed once berth's ports are known
    matrix = ks_identity.build_matrix(identity, keystone_service.admin_user,
                                      keystone_service.admin_password,
                                      'http://127.0.0.1:1/placement')
    stack = ks_berth.start_berth(tmp_root, state_path, keystone_service, matrix,
                                 scope='module', **overrides)
    identity.ensure_service('placement', 'placement', stack.placement_url)
    identity.ensure_service('baremetal', 'ironic', stack.baremetal_url)
    return stack, matrix
