"""openstacksdk's own functional tests, unmodified, against a real berth (issue 34).

The ``openstacksdk`` wheel (pinned by ``openstacksdk-pins.txt``) ships
``openstack/tests/functional``; stestr runs them from the suite's venv
(:mod:`tests.compat.stestr_suite`).  The tests pick their clouds by name from
a ``clouds.yaml`` (``OS_CLIENT_CONFIG_FILE``): ``devstack`` (a project
member), ``devstack-alt`` (another project's member), ``devstack-admin`` (the
operator: ``OS_CLOUD`` and ``OPENSTACKSDK_OPERATOR_CLOUD``) and
``devstack-system-admin``.

* ``baremetal/v1`` (allocation, node, chassis, conductor, driver): every
  cloud is ``auth_type: none`` with ``auth: {endpoint: <berth's /v1 root>}``,
  against a berth with ``noauth2`` (every caller a system-scoped admin).
* ``placement/v1``, all files: behind a real Keystone, the clouds being the
  tenant matrix's users (tests/keystone_identity.py), on the data a devstack
  cloud has and the tests assume (a compute node, an instance of the operator's
  project), written through Placement's API first.

Keystone and each berth start once for the module.  The counts are printed;
a failure fails the test unless :data:`EXPECTED_FAILURES` (reviewed: what
berth does not offer) or :data:`PENDING` (temporary) names it.
"""

import json
import os
import time
import uuid

import pytest
import requests

from tests.compat import stacks, stestr_suite, suite_venv

pytestmark = [pytest.mark.compat, pytest.mark.integration]

PINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'openstacksdk-pins.txt')
FUNCTIONAL = 'openstack.tests.functional.'
BAREMETAL = (r'^openstack\.tests\.functional\.baremetal\.v1\.'
             r'test_(allocation|node|chassis|conductor|driver)\.')
PLACEMENT = r'^openstack\.tests\.functional\.placement\.v1\.'

# Ironic features berth does not offer, each with the reason (test id after
# openstack.tests.functional.): reviewed, permanent.
EXPECTED_FAILURES = {
    'baremetal.v1.test_node.TestBareMetalNode.test_node_validate':
        'validate: berth runs no driver interfaces, so there is nothing to validate '
        '(GET /v1/nodes/{n}/validate is not offered)',
    'baremetal.v1.test_node.TestBareMetalVif.test_node_vif_attach_detach':
        'VIFs: berth has no network interface or Neutron ports to attach a VIF to '
        '(/v1/nodes/{n}/vifs is not offered)',
    'baremetal.v1.test_node.TestBareMetalNodeListFirmware.test_list_firmware':
        'firmware: berth keeps no firmware components (GET /v1/nodes/{n}/firmware '
        'is not offered; the node field firmware_interface, 1.86, is always no-firmware)',
    'baremetal.v1.test_node.TestBareMetalVirtualMedia.test_node_vmedia_attach_detach':
        'virtual media: berth has no BMC to attach media to (/v1/nodes/{n}/vmedia, 1.89, '
        'is not offered)',
}

# TEMPORARY: a failure a change in flight will fix (test id -> the change);
# empty when nothing is in flight.  An entry that passes is printed to be removed.
PENDING: dict[str, str] = {}


@pytest.fixture(scope='module')
def venv():
    return suite_venv.require('openstacksdk', PINS)


def _only(listed, service):
    """The entries of a list that concern one suite (``'baremetal.'``, ``'placement.'``)."""
    return {k: v for k, v in listed.items() if k.startswith(service)}


def _site_packages(venv):
    lib = os.path.join(venv, 'lib')
    return os.path.join(lib, sorted(os.listdir(lib))[0], 'site-packages')


def _write_clouds(path, clouds):
    # JSON is YAML: no YAML writer needed on berth's side
    with open(path, 'w') as f:
        json.dump({'clouds': clouds}, f, indent=2)
    return path


def _run(venv, workdir, clouds_file, service, selection):
    top = _site_packages(venv)
    env = stestr_suite.suite_env(
        OS_CLIENT_CONFIG_FILE=clouds_file, OS_CLOUD='devstack-admin',
        OPENSTACKSDK_OPERATOR_CLOUD='devstack-admin', OPENSTACKSDK_DEMO_CLOUD='devstack',
        OPENSTACKSDK_DEMO_CLOUD_ALT='devstack-alt',
        OPENSTACKSDK_SYSTEM_ADMIN_CLOUD='devstack-system-admin',
        # the tests' own bound for waits (allocations, provision states), and
        # for a whole test (5 s without it: too short on a loaded CI machine)
        OPENSTACKSDK_FUNC_TEST_TIMEOUT='120', OS_TEST_TIMEOUT='300')
    started = time.monotonic()
    # one test at a time: test_allocation_list lists every allocation of the
    # cloud and expects only its own two
    results = stestr_suite.run(venv, str(workdir), top,
                               os.path.join(top, 'openstack', 'tests', 'functional', service, 'v1'),
                               selection, env, concurrency=1)
    return results, time.monotonic() - started


def test_baremetal_v1(venv, tmp_path_factory):
    workdir = tmp_path_factory.mktemp('sdk-baremetal')
    stack = stacks.noauth_berth(tmp_path_factory.getbasetemp(), workdir / 'state')
    try:
        # without a catalog every service would be this endpoint: the base
        # class looks for a flavor and an image when compute and image exist
        cloud = {'auth_type': 'none', 'auth': {'endpoint': stack.baremetal_url},
                 'region_name': 'RegionOne', 'has_compute': False, 'has_image': False}
        clouds = _write_clouds(str(workdir / 'clouds.yaml'), {
            name: dict(cloud) for name in ('devstack', 'devstack-alt', 'devstack-admin',
                                           'devstack-system-admin')})
        results, took = _run(venv, workdir, clouds, 'baremetal', BAREMETAL)
    finally:
        stack.stop()
    print('openstacksdk baremetal/v1 ran in %.0f s' % took)
    stestr_suite.judge('openstacksdk baremetal/v1', results, _only(EXPECTED_FAILURES, 'baremetal.'),
                       _only(PENDING, 'baremetal.'), prefix=FUNCTIONAL)


def _keystone_cloud(keystone, principal):
    auth = {'auth_url': keystone.v3, 'username': principal.username,
            'password': principal.password, 'user_domain_id': principal.user_domain_id}
    if principal.system:
        auth['system_scope'] = 'all'
    else:
        auth['project_id'] = principal.project_id
    return {'auth_type': 'password', 'auth': auth, 'region_name': keystone.region,
            'interface': 'public', 'identity_api_version': '3'}


def _seed_compute_node(stack, matrix):
    """What a devstack cloud has and the tests assume: a compute node with free
    VCPU (allocation candidates) and an instance of the operator's project on it
    (usages by consumer type), written through Placement's API."""
    headers = dict(matrix.headers('project-admin'),
                   **{'OpenStack-API-Version': 'placement 1.38'})
    admin = matrix.principals['project-admin']

    def call(method, path, body, status):
        resp = requests.request(method, stack.placement_url + path, json=body,
                                headers=headers, timeout=60)
        assert resp.status_code == status, (method, path, resp.status_code, resp.text)
        return resp.json() if resp.content else None

    rp = str(uuid.uuid4())
    call('POST', '/resource_providers', {'name': 'compute-seed', 'uuid': rp}, 200)
    call('PUT', '/resource_providers/%s/inventories' % rp, {
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 8192},
                        'DISK_GB': {'total': 100}}}, 200)
    call('PUT', '/allocations/%s' % uuid.uuid4(), {
        'allocations': {rp: {'resources': {'VCPU': 1, 'MEMORY_MB': 512}}},
        'project_id': admin.project_id, 'user_id': admin.user_id,
        'consumer_generation': None, 'consumer_type': 'INSTANCE'}, 204)


def test_placement_v1(venv, tmp_path_factory):
    workdir = tmp_path_factory.mktemp('sdk-placement')
    keystone = stacks.keystone(tmp_path_factory.mktemp('keystone'))
    try:
        stack, matrix = stacks.keystone_berth(tmp_path_factory.getbasetemp(),
                                              workdir / 'state', keystone)
        try:
            _seed_compute_node(stack, matrix)
            p = matrix.principals
            clouds = _write_clouds(str(workdir / 'clouds.yaml'), {
                'devstack': _keystone_cloud(keystone, p['a-member']),
                'devstack-alt': _keystone_cloud(keystone, p['b-member']),
                'devstack-admin': _keystone_cloud(keystone, p['project-admin']),
                'devstack-system-admin': _keystone_cloud(keystone, p['system-admin'])})
            results, took = _run(venv, workdir, clouds, 'placement', PLACEMENT)
        finally:
            stack.stop()
    finally:
        keystone.stop()
    print('openstacksdk placement/v1 ran in %.0f s' % took)
    stestr_suite.judge('openstacksdk placement/v1', results, _only(EXPECTED_FAILURES, 'placement.'),
                       _only(PENDING, 'placement.'), prefix=FUNCTIONAL)
