"""ironic-tempest-plugin API tests, unmodified, on berth behind a real Keystone (issues 34, 50).

tempest and ironic-tempest-plugin share one venv (``ironic-tempest-pins.txt``).
stestr runs, from ``ironic_tempest_plugin.tests.api`` (:mod:`tests.compat.stestr_suite`):
``admin.test_allocations``, ``admin.test_nodes``, ``admin.test_nodestates``,
``admin.test_api_discovery``, ``admin.test_shards`` (its classes need 1.82 and
skip until berth serves it), the classes of ``admin.test_microversion_enforcement``
that exercise what berth serves (:data:`MICROVERSION_CLASSES`) and
``rbac_defaults.test_nodes`` (node RBAC as a project reader and a system
reader, from 1.70).  The ``tempest.conf`` is written here: Keystone's bootstrap
admin, system-scoped (``admin_system = all``), creates the tests' users and
projects (dynamic credentials); ``[enforce_scope] ironic = true`` makes the
plugin call the bare-metal API as a system-scoped admin and enables the RBAC
tests; the ``baremetal`` service is berth's ``/v1`` from Keystone's catalog,
with the ``fake-hardware`` driver and the microversion range berth advertises
(read from its root document).  No other service is available (nova,
neutron, glance, cinder, swift: off).

Keystone and berth start once for the module.  The counts are printed; a
failure fails the test unless :data:`EXPECTED_FAILURES` (reviewed: what berth
does not offer) or :data:`PENDING` (temporary) names it.  Most of the wall
time is Keystone's (each test class creates and deletes its users and
projects): the module's time is printed with the counts.
"""

import os
import time

import pytest
import requests

from tests.compat import stacks, stestr_suite, suite_venv

pytestmark = [pytest.mark.compat, pytest.mark.integration]

PINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ironic-tempest-pins.txt')
API_TESTS = 'ironic_tempest_plugin.tests.api.'
# test_microversion_enforcement: the classes of what berth serves (the others
# exercise ports, portgroups, volume, VIFs, BIOS, deploy templates, vendor
# passthru and the agent, each class costing a Keystone user and project)
MICROVERSION_CLASSES = ('Nodes', 'NodeManagement', 'NodeTraits', 'NodeIndicators',
                        'NodeHistory', 'NodeInventory', 'Shard', 'Chassis', 'Driver',
                        'Conductor', 'Allocation', 'NodeAllocation')
SELECTION = (r'^ironic_tempest_plugin\.tests\.api\.('
             r'admin\.test_(allocations|nodes|api_discovery|nodestates|shards)\.'
             r'|admin\.test_microversion_enforcement\.Test(%s)Microversions\.'
             r'|rbac_defaults\.test_nodes\.)' % '|'.join(MICROVERSION_CLASSES))

# Ironic features berth does not offer, each with the reason (test id after
# ironic_tempest_plugin.tests.api., without tempest's [id-…] tags):
# reviewed, permanent.
EXPECTED_FAILURES = {
    'admin.test_nodes.TestNodes.test_get_console':
        'console: berth has no console interface (GET /v1/nodes/{n}/states/console)',
    'admin.test_nodes.TestNodes.test_set_console_mode':
        'console: berth has no console interface (PUT /v1/nodes/{n}/states/console)',
    'admin.test_nodes.TestNodes.test_get_node_boot_device':
        'boot device: berth has no management interface (/v1/nodes/{n}/management/...)',
    'admin.test_nodes.TestNodes.test_get_node_supported_boot_devices':
        'boot device: berth has no management interface (/v1/nodes/{n}/management/...)',
    'admin.test_nodes.TestNodes.test_set_node_boot_device':
        'boot device: berth has no management interface (/v1/nodes/{n}/management/...)',
    'admin.test_nodes.TestNodes.test_node_port_list':
        'ports: berth keeps no ports (/v1/ports, /v1/nodes/{n}/ports)',
    'admin.test_nodes.TestNodes.test_node_ports_detail':
        'ports: berth keeps no ports (/v1/ports, /v1/nodes/{n}/ports)',
    'admin.test_nodes.TestNodes.test_node_port_list_no_ports':
        'ports: berth keeps no ports (/v1/ports, /v1/nodes/{n}/ports)',
    'admin.test_nodes.TestNodes.test_validate_driver_interface':
        'validate: berth runs no driver interfaces (GET /v1/nodes/{n}/validate)',
    'admin.test_api_discovery.TestApiDiscovery.test_version_1_resources':
        'ports: berth keeps no ports, so its /v1 document has no "ports" link',
    'admin.test_microversion_enforcement.TestDriverMicroversions.'
    'test_show_driver_logical_disk_properties':
        'RAID: berth has no RAID interface (/v1/drivers/{d}/raid/logical_disk_properties)',
    'admin.test_microversion_enforcement.TestNodeManagementMicroversions.'
    'test_set_node_raid_config':
        'RAID: berth has no RAID interface (PUT /v1/nodes/{n}/states/raid)',
    'admin.test_nodestates.TestNodeStatesV1_12.test_set_node_raid_config':
        'RAID: berth has no RAID interface (PUT /v1/nodes/{n}/states/raid)',
    'admin.test_nodestates.TestNodeStatesV1_6.test_set_node_provision_state':
        'inspection: berth has no inspect interface (the "inspect" provision target)',
    'admin.test_nodestates.TestNodeStatesV1_11.test_set_node_provision_state':
        'inspection: berth has no inspect interface (the "inspect" provision target)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_can_bios_get':
        'BIOS: berth keeps no BIOS settings (GET /v1/nodes/{n}/bios)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_can_get_indicator_state':
        'management: berth has no indicators (/v1/nodes/{n}/management/indicators)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_set_indicator_state':
        'management: berth has no indicators (/v1/nodes/{n}/management/indicators)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_get_boot_device':
        'boot device: berth has no management interface (/v1/nodes/{n}/management/...)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_set_boot_device':
        'boot device: berth has no management interface (/v1/nodes/{n}/management/...)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_get_console':
        'console: berth has no console interface (its 404 comes before the 403 expected)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_set_console_state':
        'console: berth has no console interface (PUT /v1/nodes/{n}/states/console)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_validate_node':
        'validate: berth runs no driver interfaces (GET /v1/nodes/{n}/validate)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_vendor_passthru':
        'vendor passthru: berth has no vendor interface (/v1/nodes/{n}/vendor_passthru)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_can_vif_list':
        'VIFs: berth attaches no VIFs (/v1/nodes/{n}/vifs)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_vif_attach':
        'VIFs: berth attaches no VIFs (/v1/nodes/{n}/vifs)',
    'rbac_defaults.test_nodes.TestNodeSystemReader.test_reader_cannot_vif_detach':
        'VIFs: berth attaches no VIFs (/v1/nodes/{n}/vifs)',
}

# TEMPORARY: a failure a change in flight will fix (test id -> the change);
# empty when nothing is in flight.  An entry that passes is printed to be removed.
PENDING: dict[str, str] = {}

TEMPEST_CONF = '''\
[DEFAULT]
log_file = {workdir}/tempest.log
debug = true

[oslo_concurrency]
lock_path = {workdir}/locks

[auth]
use_dynamic_credentials = true
create_isolated_networks = false
admin_username = {admin_user}
admin_password = {admin_password}
admin_project_name = {admin_project}
admin_domain_name = Default
admin_user_domain_name = Default
admin_project_domain_name = Default
admin_system = all

[identity]
uri_v3 = {keystone_v3}
auth_version = v3
region = {region}
v3_endpoint_type = public

[identity-feature-enabled]
api_v2 = false

[service_available]
ironic = true
nova = false
neutron = false
glance = false
cinder = false
swift = false

[enforce_scope]
ironic = true

[baremetal]
driver = fake-hardware
enabled_drivers = fake-hardware
enabled_hardware_types = fake-hardware
endpoint_type = public
min_microversion = {min_version}
max_microversion = {max_version}
'''


@pytest.fixture(scope='module')
def venv():
    return suite_venv.require('ironic-tempest', PINS)


def _site_packages(venv):
    lib = os.path.join(venv, 'lib')
    return os.path.join(lib, sorted(os.listdir(lib))[0], 'site-packages')


def _versions(baremetal_url):
    """The microversion range berth advertises at GET / (Ironic's root document)."""
    resp = requests.get(baremetal_url + '/', timeout=60)
    assert resp.status_code == 200, resp.text
    current = resp.json()['default_version']
    return current['min_version'], current['version']


# about 10 min on 2 busy cores (Keystone's user and project churn): the
# run's own limit (stestr, 1700 s) comes before pytest-timeout's
@pytest.mark.timeout(1800)
def test_ironic_tempest_api(venv, tmp_path_factory):
    workdir = tmp_path_factory.mktemp('ironic-tempest')
    os.makedirs(str(workdir / 'locks'))
    keystone = stacks.keystone(tmp_path_factory.mktemp('keystone'))
    try:
        stack, _ = stacks.keystone_berth(tmp_path_factory.getbasetemp(),
                                         workdir / 'state', keystone)
        try:
            min_version, max_version = _versions(stack.baremetal_url)
            with open(str(workdir / 'tempest.conf'), 'w') as f:
                f.write(TEMPEST_CONF.format(
                    workdir=workdir, admin_user=keystone.admin_user,
                    admin_password=keystone.admin_password,
                    admin_project=keystone.admin_project, keystone_v3=keystone.v3,
                    region=keystone.region, min_version=min_version,
                    max_version=max_version))
            top = _site_packages(venv)
            env = stestr_suite.suite_env(TEMPEST_CONFIG_DIR=str(workdir),
                                         TEMPEST_CONFIG='tempest.conf')
            started = time.monotonic()
            results = stestr_suite.run(
                venv, str(workdir), top,
                os.path.join(top, 'ironic_tempest_plugin', 'tests', 'api'),
                SELECTION, env, timeout=1700)
            took = time.monotonic() - started
        finally:
            stack.stop()
    finally:
        keystone.stop()
    print('ironic-tempest-plugin api ran in %.0f s (microversions %s-%s)'
          % (took, min_version, max_version))
    stestr_suite.judge('ironic-tempest-plugin api (admin + rbac_defaults)', results,
                       EXPECTED_FAILURES, PENDING, prefix=API_TESTS)
